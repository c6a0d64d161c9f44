import CoreMetrics
import Foundation
import Logging
import MicroHTTP
import ParlorDomain
import Synchronization

/// What Parlor counts, through swift-metrics: the composition root gives the factory (Prometheus in
/// `parlor serve`, nothing in tests that do not ask) and, to answer `/metrics`, how to write what it holds.
/// Every metric is made once, here, at start; those labelled by route and status are made once per
/// combination, the first time it happens (routes are Parlor's own patterns, never raw paths).
/// Names and labels follow Prometheus's conventions: `parlor_` prefix, `_total` counters, base units.
public final class ParlorMetrics: RequestObserver, EventObserver, Sendable {
    let factory: any MetricsFactory
    /// The text `/metrics` answers, in Prometheus's exposition format; nil: `/metrics` is not served.
    let exposition: (@Sendable () -> [UInt8])?

    let requestDuration: CoreMetrics.Timer
    let eventStreamsOpen: Gauge
    let messagesSent: Counter
    let signInFailures: Counter
    let signInLockouts: Counter
    /// Sign-ins and password changes refused because the throttle's shared store could not be read or written.
    let signInThrottleUnavailable: Counter
    let residentMemory: Gauge
    private let progressGauges = Mutex<[(Gauge, @Sendable () -> Int)]>([])
    let openDescriptors: Gauge
    let fanOutDuration: CoreMetrics.Timer
    let fanOutEvents: Counter
    let pageReadDuration: CoreMetrics.Timer
    /// Chat pages answered on the connection's thread, without a hand-over to the pool (the rest were
    /// opened unread, found no connection free, or were read from a store that cannot answer at once).
    private let pagesAtOnce: Counter
    private let pagesAtOnceCount = Atomic(0)
    private let storeWrites: [String: CoreMetrics.Timer]
    private let published: [String: Counter]
    private let refusals: [String: Counter]
    private let feedChecks: [String: Counter]
    private let pushes: [String: Counter]
    private let botsLimited: [String: Counter]
    private let workersRefused: [String: Counter]
    /// When each worker's refusals were last said in the log.
    private let refusalsLogged = Mutex<[String: (at: ContinuousClock.Instant, total: Int)]>([:])
    let feedItemsPosted: Counter
    private let requests = Mutex<[String: Counter]>([:])

    /// The background workers whose queues may turn jobs away, the label of `parlor_worker_jobs_refused_total`.
    public static let workers = ["photos", "link_previews", "bot_webhooks", "push_notifier", "push_queue", "presence", "feed_checks", "dns_lookups"]

    /// The kinds of stored event, the label of `parlor_events_published_total`.
    static let eventKinds = [
        "message_sent", "message_edited", "message_deleted", "message_read", "photo_processed", "message_reacted", "message_previewed", "chat_created", "user_signed_up",
        "feed_subscribed", "feed_unsubscribed", "feed_checked",
        "profile_updated", "account_deactivated", "account_reactivated", "signed_in", "sessions_ended", "role_changed", "settings_changed",
        "join_link_replaced", "bot_key_replaced", "push_subscriptions_changed", "preferences_changed", "presence_refreshed", "other",
    ]
    /// The store's writes, the label of `parlor_store_operation_duration_seconds` (with "page_read", the
    /// read behind a chat page).
    static let storeOperations = ["send", "edit", "delete", "mark_read", "create_chat", "create_user", "update_profile", "finish_photo",
        "subscribe_feed", "unsubscribe_feed", "retry_feed", "record_feed_check", "page_read", "react", "change_account", "record_preview", "remove_preview",
        "create_session", "end_session", "end_sessions", "change_password", "reset_password", "set_role", "change_settings", "replace_join_link",
        "replace_bot_key", "subscribe_push", "unsubscribe_push", "set_preferences",
    ]
    /// The refusals' kinds, the label of `parlor_refusals_total`.
    static let refusalKinds = [
        "empty_message", "message_too_long", "invalid_text", "control_character", "chat_with_yourself", "unknown_handle", "invalid_handle",
        "handle_taken", "invalid_display_name", "chat_exists", "not_found", "not_your_message", "message_deleted", "invalid_feed_url", "already_subscribed",
        "too_many_feeds", "invalid_room_name", "invalid_topic", "members_fixed", "not_a_room", "too_many_to_mention", "too_frequent",
        "too_many_to_show_typing", "invalid_reaction", "too_many_reactions", "invitation_required", "join_link_invalid", "join_link_expired",
        "join_link_used_up", "administrators_only", "last_administrator", "deactivating_yourself", "invalid_webhook_url", "unavailable", "other",
    ]

    public init(factory: any MetricsFactory = NOOPMetricsHandler.instance, exposition: (@Sendable () -> [UInt8])? = nil) {
        self.factory = factory
        self.exposition = exposition
        requestDuration = CoreMetrics.Timer(label: "parlor_http_request_duration_seconds", factory: factory)
        eventStreamsOpen = Gauge(label: "parlor_event_streams_open", factory: factory)
        messagesSent = Counter(label: "parlor_messages_sent_total", factory: factory)
        signInFailures = Counter(label: "parlor_sign_in_failures_total", factory: factory)
        signInLockouts = Counter(label: "parlor_sign_in_lockouts_total", factory: factory)
        signInThrottleUnavailable = Counter(label: "parlor_sign_in_throttle_unavailable_total", factory: factory)
        residentMemory = Gauge(label: "parlor_process_resident_memory_bytes", factory: factory)
        openDescriptors = Gauge(label: "parlor_process_open_fds", factory: factory)
        fanOutDuration = CoreMetrics.Timer(label: "parlor_fanout_duration_seconds", factory: factory)
        fanOutEvents = Counter(label: "parlor_fanout_events_total", factory: factory)
        let stores = Dictionary(uniqueKeysWithValues: Self.storeOperations.map {
            ($0, CoreMetrics.Timer(label: "parlor_store_operation_duration_seconds", dimensions: [("operation", $0)], factory: factory))
        })
        storeWrites = stores
        pageReadDuration = stores["page_read"]!
        pagesAtOnce = Counter(label: "parlor_pages_answered_at_once_total", factory: factory)
        published = Dictionary(uniqueKeysWithValues: Self.eventKinds.map {
            ($0, Counter(label: "parlor_events_published_total", dimensions: [("kind", $0)], factory: factory))
        })
        refusals = Dictionary(uniqueKeysWithValues: Self.refusalKinds.map {
            ($0, Counter(label: "parlor_refusals_total", dimensions: [("reason", $0)], factory: factory))
        })
        feedChecks = Dictionary(uniqueKeysWithValues: Self.feedOutcomes.map {
            ($0, Counter(label: "parlor_feed_checks_total", dimensions: [("outcome", $0)], factory: factory))
        })
        feedItemsPosted = Counter(label: "parlor_feed_items_posted_total", factory: factory)
        pushes = Dictionary(uniqueKeysWithValues: Self.pushOutcomes.map {
            ($0, Counter(label: "parlor_pushes_total", dimensions: [("outcome", $0)], factory: factory))
        })
        workersRefused = Dictionary(uniqueKeysWithValues: Self.workers.map {
            ($0, Counter(label: "parlor_worker_jobs_refused_total", dimensions: [("worker", $0)], factory: factory))
        })
        botsLimited = Dictionary(uniqueKeysWithValues: Self.botLimitKinds.map {
            ($0, Counter(label: "parlor_bot_requests_limited_total", dimensions: [("kind", $0)], factory: factory))
        })
    }

    /// What a bot's key was refused for past its limit, the label of `parlor_bot_requests_limited_total`.
    static let botLimitKinds = ["message", "direct_chat"]

    /// Counts one bot request refused with 429.
    public func botLimited(_ kind: String) {
        botsLimited[kind]?.increment()
    }

    /// How a Web Push ended, the label of `parlor_pushes_total` (``PushQueue``'s outcomes).
    static let pushOutcomes = ["sent", "failed", "gone", "dropped"]

    /// Counts one push's outcome.
    public func pushed(_ outcome: String) {
        pushes[outcome]?.increment()
    }

    /// How a feed check ended, the label of `parlor_feed_checks_total`: a failure that paused the feed
    /// counts as "paused".
    static let feedOutcomes = ["loaded", "failed", "paused"]

    // MARK: Requests

    public func answered(method: HTTPMethod, route: String, status: Int, seconds: Double) {
        let key = method.rawValue + " " + route + " " + String(status)
        let counter = requests.withLock { made in
            if let counter = made[key] { return counter }
            let counter = Counter(
                label: "parlor_http_requests_total", dimensions: [("method", method.rawValue), ("route", route), ("status", String(status))],
                factory: factory
            )
            made[key] = counter
            return counter
        }
        counter.increment()
        requestDuration.recordNanoseconds(Int64(max(0, min(seconds, 3_600)) * 1e9))
    }

    // MARK: The store and the live pages

    public func stored(_ operation: String, _ elapsed: Duration) {
        storeWrites[operation]?.recordNanoseconds(Self.nanoseconds(elapsed))
    }

    public func fannedOut(_ elapsed: Duration, events: Int) {
        fanOutDuration.recordNanoseconds(Self.nanoseconds(elapsed))
        fanOutEvents.increment(by: Int64(events))
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let parts = duration.components
        return max(0, min(parts.seconds, 3_600)) * 1_000_000_000 + parts.attoseconds / 1_000_000_000
    }

    // MARK: Events

    public func observe(_ event: DomainEvent, router: any EventSink) {
        let kind: String
        switch event {
        case .message(.sent):
            kind = "message_sent"
            messagesSent.increment()
        case .message(.edited): kind = "message_edited"
        case .message(.deleted): kind = "message_deleted"
        case .message(.userRead): kind = "message_read"
        case .message(.photoProcessed): kind = "photo_processed"
        case .message(.reacted): kind = "message_reacted"
        case .message(.previewed): kind = "message_previewed"
        case .chat(.created): kind = "chat_created"
        case .user(.signedUp): kind = "user_signed_up"
        case .user(.profileUpdated): kind = "profile_updated"
        case .user(.accountChanged(let state)): kind = state.isActive ? "account_reactivated" : "account_deactivated"
        case .feed(.subscribed): kind = "feed_subscribed"
        case .feed(.unsubscribed): kind = "feed_unsubscribed"
        case .feed(.checked(let subscription)):
            kind = "feed_checked"
            switch subscription.status {
            case .loaded(let newItems, _):
                feedChecks["loaded"]?.increment()
                feedItemsPosted.increment(by: Int64(max(0, newItems)))
            case .failed: feedChecks["failed"]?.increment()
            case .paused: feedChecks["paused"]?.increment()
            case .loading: break
            }
        case .account(.signedIn): kind = "signed_in"
        case .account(.sessionsEnded): kind = "sessions_ended"
        case .account(.roleChanged): kind = "role_changed"
        case .account(.settingsChanged): kind = "settings_changed"
        case .account(.joinLinkReplaced): kind = "join_link_replaced"
        case .account(.botKeyReplaced): kind = "bot_key_replaced"
        case .account(.pushSubscriptionsChanged): kind = "push_subscriptions_changed"
        case .account(.preferencesChanged): kind = "preferences_changed"
        case .presence(.presenceRefreshed): kind = "presence_refreshed"
        default: kind = "other"
        }
        published[kind]?.increment()
    }

    public func refused(_ refusal: Refusal) {
        let kind: String
        switch refusal {
        case .emptyMessage: kind = "empty_message"
        case .messageTooLong: kind = "message_too_long"
        case .invalidText: kind = "invalid_text"
        case .controlCharacter: kind = "control_character"
        case .chatWithYourself: kind = "chat_with_yourself"
        case .unknownHandle: kind = "unknown_handle"
        case .invalidHandle: kind = "invalid_handle"
        case .handleTaken: kind = "handle_taken"
        case .invalidDisplayName: kind = "invalid_display_name"
        case .chatExists: kind = "chat_exists"
        case .notFound: kind = "not_found"
        case .notYourMessage: kind = "not_your_message"
        case .messageDeleted: kind = "message_deleted"
        case .invalidFeedURL: kind = "invalid_feed_url"
        case .alreadySubscribed: kind = "already_subscribed"
        case .tooManyFeeds: kind = "too_many_feeds"
        case .invalidRoomName: kind = "invalid_room_name"
        case .invalidTopic: kind = "invalid_topic"
        case .membersFixed: kind = "members_fixed"
        case .notARoom: kind = "not_a_room"
        case .tooManyToMention: kind = "too_many_to_mention"
        case .tooFrequent: kind = "too_frequent"
        case .tooManyToShowTyping: kind = "too_many_to_show_typing"
        case .invalidReaction: kind = "invalid_reaction"
        case .tooManyReactions: kind = "too_many_reactions"
        case .invitationRequired: kind = "invitation_required"
        case .joinLinkInvalid: kind = "join_link_invalid"
        case .joinLinkExpired: kind = "join_link_expired"
        case .joinLinkUsedUp: kind = "join_link_used_up"
        case .administratorsOnly: kind = "administrators_only"
        case .lastAdministrator: kind = "last_administrator"
        case .deactivatingYourself: kind = "deactivating_yourself"
        case .invalidWebhookURL: kind = "invalid_webhook_url"
        case .unavailable: kind = "unavailable"
        @unknown default: kind = "other"
        }
        refusals[kind, default: refusals["other"]!].increment()
    }

    // MARK: The process, read when asked

    /// Brings the gauges read from the process up to date (before `/metrics` answers).
    /// Adds a gauge read whenever `/metrics` is asked: how far a service the composition root runs has got
    /// (Parlor Bot's work, the feed poller's rounds). Made once, here, like every other metric.
    /// A worker's queue was full and turned a job away (its `total` so far): counted, and said in the log at most once
    /// a minute for each worker while it goes on.
    public func workerRefused(_ worker: String, total: Int, logger: Logger, now: ContinuousClock.Instant = .now) {
        workersRefused[worker]?.increment()
        let since: Int? = refusalsLogged.withLock { logged in
            if let last = logged[worker], now - last.at < .seconds(60) { return nil }
            defer { logged[worker] = (now, total) }
            return total - (logged[worker]?.total ?? 0)
        }
        if let since {
            logger.warning("a worker's queue is full; jobs are refused", metadata: ["worker": "\(worker)", "refused": "\(since)", "total": "\(total)"])
        }
    }

    public func addProgressGauge(_ label: String, _ read: @escaping @Sendable () -> Int) {
        let gauge = Gauge(label: label, factory: factory)
        progressGauges.withLock { $0.append((gauge, read)) }
    }

    func sampleProcess(openEventStreams: Int) {
        for (gauge, read) in progressGauges.withLock({ $0 }) { gauge.record(read()) }
        eventStreamsOpen.record(openEventStreams)
        if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
           let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
           let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        {
            residentMemory.record(kilobytes * 1024)
        }
        if let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
            openDescriptors.record(descriptors.count)
        }
    }
}

extension ParlorMetrics {
    /// The sign-in throttle's shared store failed: said in the log and counted, never passed over in silence.
    func throttleUnavailable(_ error: any Error, request: Request, logger: Logger) {
        signInThrottleUnavailable.increment()
        logger.error("sign-in throttle unavailable", metadata: ["request": "\(request.id)", "error": "\(String(describing: error).escapedForLog)"])
    }
}

extension ParlorMetrics {
    /// A chat page was answered on the connection's thread.
    func answeredAtOnce() {
        pagesAtOnce.increment()
        pagesAtOnceCount.add(1, ordering: .relaxed)
    }

    /// How many chat pages were answered on the connection's thread since start.
    public var pagesAnsweredAtOnce: Int { pagesAtOnceCount.load(ordering: .relaxed) }
}
