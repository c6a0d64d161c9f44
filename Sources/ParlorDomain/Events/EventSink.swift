/// Where a source outside the core (the chatbot, a feed) sends its events: the router, as these sources
/// see it. They compile against the domain alone, never against views or the live pages.
public protocol EventSink: Sendable {
    /// Applies a message event and answers how it ended (`sent`, `failedSending`, `userRead`...).
    @discardableResult
    func send(_ event: MessageEvent, requestID: String?) async -> MessageEvent
    /// Applies a chat event and answers how it ended (`created`, `createFailed`).
    @discardableResult
    func send(_ event: ChatEvent, requestID: String?) async -> ChatEvent
    /// Applies a user event and answers how it ended (`signedUp`, `profileUpdated`, or their failures).
    @discardableResult
    func send(_ event: UserEvent, requestID: String?) async -> UserEvent
    /// Applies a feed event and answers how it ended (`subscribed`, `checked`, or their failures).
    @discardableResult
    func send(_ event: FeedEvent, requestID: String?) async -> FeedEvent
    /// Adds a source that reacts to events (it may send events back).
    func addObserver(_ observer: any EventObserver)
}

extension EventSink {
    @discardableResult
    public func send(_ event: MessageEvent) async -> MessageEvent { await send(event, requestID: nil) }
    @discardableResult
    public func send(_ event: ChatEvent) async -> ChatEvent { await send(event, requestID: nil) }
    @discardableResult
    public func send(_ event: UserEvent) async -> UserEvent { await send(event, requestID: nil) }
    @discardableResult
    public func send(_ event: FeedEvent) async -> FeedEvent { await send(event, requestID: nil) }
}

/// Code outside the core that reacts to what happened (the chatbot, a feed). It is told every event the
/// router applied, and answers only by sending new events to the sink.
public protocol EventObserver: Sendable {
    /// Must return promptly: longer work (a pause before answering) is queued for the observer's own service
    /// (Parlor Bot's `run()`), never left to a task nobody awaits.
    func observe(_ event: DomainEvent, router: any EventSink)
}
