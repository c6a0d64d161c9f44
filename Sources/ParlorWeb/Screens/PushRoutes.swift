import Foundation
import Logging
import MicroHTTP
import ParlorDomain
import ParlorEvents
import ParlorNotifications
import ParlorPush
import ParlorViews

/// Web Push: a browser subscribes (from the script, once its person allowed notifications) and unsubscribes;
/// Settings lists the browsers, removes one, sends a test notification, and saves what notifications may say;
/// pages report whether they are visible (a person with a visible page is not pushed to). Every change is an
/// ``AccountEvent`` through the router: a preference to appear offline holds on every instance.
public struct PushRoutes: Sendable {
    public struct Dependencies: Sendable {
        let gate: SignInGate
        let pages: WebPages
        let store: any PushReads
        let events: EventRouter
        let delivery: HTTPPushDelivery
        let queue: PushQueue
        let logger: Logger

        public init(
            gate: SignInGate, pages: WebPages, store: any PushReads, events: EventRouter, delivery: HTTPPushDelivery, queue: PushQueue, logger: Logger
        ) {
            self.events = events
            self.gate = gate
            self.pages = pages
            self.store = store
            self.delivery = delivery
            self.queue = queue
            self.logger = logger
        }
    }

    let dependencies: Dependencies
    private var paths: Paths { dependencies.pages.paths }
    /// Most browsers one person may have subscribed; the oldest goes past it.
    static let browserLimit = 20

    public init(_ dependencies: Dependencies) {
        self.dependencies = dependencies
    }

    public func register(on router: inout Router) {
        let gate = dependencies.gate
        // The key browsers subscribe with (`applicationServerKey`).
        router.get("/push/key", gate.signedIn { [self] _, _ in .text(dependencies.delivery.vapid.publicKey) })
        router.post("/push/subscriptions", bodyLimit: 16 * 1024, gate.signedIn { [self] request, signedIn in
            try await subscribe(request, signedIn)
        })
        router.post("/push/subscriptions/remove", bodyLimit: 8 * 1024, gate.signedIn { [self] request, signedIn in
            try await unsubscribe(request, signedIn)
        })
        router.post("/push/test", bodyLimit: 4 * 1024, gate.signedIn { [self] request, signedIn in
            let browsers = try await dependencies.store.pushSubscriptions(of: signedIn.user.id)
            let payload = PushPayload(
                title: "Parlor", body: "Notifications work in this browser.", url: paths.settings + "#notifications", tag: "parlor-test"
            ).encoded
            let queued = browsers.filter { dependencies.queue.enqueue(PushQueue.Job(payload: payload, subscription: $0, urgency: "high")) }.count
            return .redirect(to: paths.settings + "?push=tested-\(queued)#notifications")
        })
        router.post("/settings/notifications", bodyLimit: 4 * 1024, gate.signedIn { [self] request, signedIn in
            let preferences = NotificationPreferences(isPrivate: request.form["private"] == "1", appearsOffline: request.form["appearOffline"] == "1")
            // Every instance's presence hears the change from the bus (``StreamSessions``), this one's too.
            let command = AccountEvent.changingPreferences(signedIn.user.id, preferences)
            guard case .preferencesChanged = await dependencies.events.send(command, requestID: request.id.description) else {
                throw HTTPError(.serviceUnavailable, Refusal.unavailable.message)
            }
            return .redirect(to: paths.settings + "?push=saved#notifications")
        })
    }

    /// `endpoint`, `p256dh`, `auth`: the browser's subscription. 201 once stored; 400 with the reason, and nothing
    /// stored, for an address Parlor would not send to or keys that are not keys.
    private func subscribe(_ request: Request, _ signedIn: SignedIn) async throws -> Response {
        let fields: SubscriptionFields
        do {
            fields = try SubscriptionFields(
                endpoint: request.form["endpoint"] ?? "", p256dh: request.form["p256dh"] ?? "", auth: request.form["auth"] ?? ""
            )
        } catch {
            dependencies.logger.info("push subscription refused", metadata: ["request": "\(request.id)", "why": "\(error)"])
            throw HTTPError(.badRequest, error.description)
        }
        if let refusal = await dependencies.delivery.refusal(of: fields.endpoint) {
            dependencies.logger.info("push subscription refused", metadata: ["request": "\(request.id)", "why": "\(refusal)"])
            throw HTTPError(.badRequest, refusal)
        }
        let subscription = PushSubscription(
            id: 0, userID: signedIn.user.id, endpoint: fields.endpoint, p256dh: fields.p256dh, auth: fields.auth,
            label: BrowserLabel.label(userAgent: request.headers["User-Agent"]), createdAt: dependencies.pages.clock.now
        )
        // A person who keeps subscribing new browsers keeps the newest few.
        let command = AccountEvent.subscribingPush(subscription, limit: Self.browserLimit)
        guard case .pushSubscriptionsChanged = await dependencies.events.send(command, requestID: request.id.description) else {
            throw HTTPError(.serviceUnavailable, Refusal.unavailable.message)
        }
        dependencies.logger.info("push subscription added", metadata: ["request": "\(request.id)", "user": "\(signedIn.user.id)"])
        return .text("Notifications are on in this browser.", status: .created)
    }

    /// `subscription=<id>` (Settings' "Remove") or `endpoint=<address>` (the script, turning notifications off).
    private func unsubscribe(_ request: Request, _ signedIn: SignedIn) async throws -> Response {
        let user = signedIn.user.id
        if let raw = request.form["subscription"] {
            guard let id = Int64(raw) else { throw HTTPError(.badRequest, "There is no such browser.") }
            try await remove(PushRemoval(userID: user, which: .id(id)), request)
            return .redirect(to: paths.settings + "?push=removed#notifications")
        }
        guard let endpoint = request.form["endpoint"], endpoint.utf8.count <= SubscriptionFields.endpointLimit else {
            throw HTTPError(.badRequest, "Say which browser to remove.")
        }
        try await remove(PushRemoval(userID: user, which: .endpoint(endpoint)), request)
        return .text("", status: .noContent)
    }

    /// Removes a browser; one that is gone already (removed in another tab) is no error.
    private func remove(_ removal: PushRemoval, _ request: Request) async throws {
        switch await dependencies.events.send(.unsubscribingPush(removal), requestID: request.id.description) {
        case .pushSubscriptionsChanged, .refused(.notFound): return
        default: throw HTTPError(.serviceUnavailable, Refusal.unavailable.message)
        }
    }
}
