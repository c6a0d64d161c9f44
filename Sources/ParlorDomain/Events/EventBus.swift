/// Where stored events go on their way to the open pages: in process by default, through the database's
/// event log when several instances share one. The router publishes each event after its change is
/// stored; the live pages receive them one at a time, in the order they were published.
public protocol EventBus: Sendable {
    /// Hands on an event whose change is stored. Returns at once: nobody waits for pages.
    func publish(_ event: PublishedEvent)
    /// Delivers every event published from now on to `receiver`, in order: the live pages of this instance, and
    /// the few others that act on what happened anywhere (streams whose session ended, presence preferences).
    /// `receiver` must return at once (it queues the event).
    func subscribe(_ receiver: @escaping @Sendable (PublishedEvent) -> Void)
    /// Tells `handler` when this instance lost events (it fell behind what the database's event log keeps):
    /// every open page must then reload. A bus that loses nothing never calls it.
    func onMissedEvents(_ handler: @escaping @Sendable () -> Void)
    /// Whether each chat's sent messages arrive in the order of their ids, every one of them: then the live pages
    /// know a chat's newest message without asking the store. The in-process bus does not promise it (sends
    /// stored together may be published the other way round).
    var deliversEachChatsMessagesInOrder: Bool { get }
}

extension EventBus {
    public func onMissedEvents(_ handler: @escaping @Sendable () -> Void) {}
    public var deliversEachChatsMessagesInOrder: Bool { false }
}

/// An event on the bus, with the request that caused it (for log lines about its fan-out).
public struct PublishedEvent: Hashable, Sendable {
    public let event: DomainEvent
    public let requestID: String?

    public init(_ event: DomainEvent, requestID: String? = nil) {
        self.event = event
        self.requestID = requestID
    }
}
