import ParlorDomain

/// Code outside the core that reacts to what happened (the chatbot, a feed). It is told every event the
/// router applied, after the pages were updated, and answers only by sending new events to the router.
public protocol EventObserver: Sendable {
    /// Must return promptly; longer work (a pause before answering) runs in a task of its own.
    func observe(_ event: DomainEvent, router: EventRouter)
}
