import Foundation
import ParlorLive
import ParlorDomain

/// How `parlor serve` runs the chat: where its files are, who may be trusted, how long things last.
public struct WebConfiguration: Sendable {
    public var publicFolder = "Public"
    public var templatesFolder = "Templates"
    public var reloadTemplates = false
    /// Peers whose `X-Forwarded-Proto` and `X-Forwarded-For` are believed (a reverse proxy on the machine).
    public var trustedProxies: Set<String> = []
    /// How long a sign-in lasts.
    public var sessionLifetime: TimeInterval = 30 * 24 * 60 * 60
    public var signInLimits = SignInThrottle.Limits()
    /// What hashing a password costs; `.interactive` unless a test suite needs thousands of cheap accounts.
    public var passwordCost = PasswordHasher.Cost.interactive
    /// Threads that hash passwords at once; nil: one per core.
    public var passwordThreads: Int?
    /// Sign-ins and sign-ups that may wait for a hashing thread; past that they get 503 with `Retry-After`.
    /// nil: 16 per hashing thread.
    public var passwordWaitingLimit: Int?
    /// Event streams one account may hold open (its open pages, in every browser). A new one past this
    /// closes that account's oldest, which is told to reconnect after ``evictedStreamRetry``.
    public var eventStreamsPerAccount = 20
    /// How long a page whose stream was closed for a newer one waits before it reconnects.
    public var evictedStreamRetry: Duration = .seconds(10)
    /// Bytes of rendered chat pages kept between requests (0: none); the pages used longest ago go first.
    public var pageCacheBytes = 64 * 1024 * 1024
    /// How long after a person's last page closed they show as offline (away until then: a reload is no departure).
    public var presenceOfflineAfter: Duration = Presence.offlineAfter
    /// How often this instance says again who is here (`--presence-refresh`).
    public var presenceRefresh: Duration = Presence.refreshEvery
    /// How often every open event stream's session is checked again (`--heartbeat`): an expired session, or one
    /// ended where this instance did not hear of it, stops streaming by then.
    public var sessionCheckInterval: Duration = .seconds(15)
    /// Ports a push service may be reached on (Web Push: 443).
    public var pushPorts: Set<Int> = [443]
    /// Pushes sent to loopback addresses too, over plain http (for a test push service).
    public var pushAllowsLoopback = false
    /// Who runs this Parlor, for push services (VAPID's subject): "mailto:…" or an https address.
    public var pushContact = "mailto:parlor@localhost"
    /// Who may sign up on a new Parlor (one that has a policy keeps it; administrators change it on their page).
    public var signUpPolicy = SignUpPolicy.open
    /// How many messages and direct chats one bot's key may send in a minute (on each instance).
    public var botLimits = BotLimits()
    /// The ports bots' webhooks may use, and whether one on this machine may be called (for tests).
    public var webhookPorts: Set<Int> = [80, 443]
    public var webhookAllowsLoopback = false
    /// How long a webhook has to answer, its reply included.
    public var webhookTimeout = Duration.seconds(7)
    /// Whether messages with a link get the linked page's card, and where those pages may be fetched from.
    public var linkPreviews = true
    public var linkPreviewPorts: Set<Int> = [80, 443]
    public var linkPreviewsAllowLoopback = false
    /// How long fetching a linked page may take, redirects included.
    public var linkPreviewTimeout = Duration.seconds(5)
    /// How long what a link gave (its card, or that it has none) is kept before the page is fetched again.
    public var linkPreviewLifetime = Duration.seconds(3_600)
    /// Chats' events applied side by side by the live pages (each chat's in order, in one lane).
    public var liveLanes = EventHandler.defaultLaneCount
    /// Seconds at least between two changes of one row of a page's chat list, for chats the page does not show,
    /// and of its unread badge; changes within it are held and the newest sent at its end (0: each at once).
    /// A room of thousands would otherwise move its row on every member's page at every message.
    public var listPace: Double = 1
    /// Rooms with more members than this have each message's fan-out split across the live lanes, side by side.
    public var fanOutPartSize = EventHandler.defaultFanOutPartSize
    /// Where image files are kept, named by their hash.
    public var mediaFolder = "media"
    /// How large an upload may be; the rest of the limits are the image service's.
    public var imageLimits = ImageLimits()
    /// Photos accepted and not yet processed, at most; past it an upload is refused (503) before anything is
    /// stored. Photos resumed at start do not count against it.
    public var photosInProgress = 32
    /// Photos in messages the worker processes at once (`--image-threads`: one per thread the image service has).
    public var photoWorkers = 4

    /// The path Parlor is served under behind a proxy ("/chat"), or empty for the root: every URL Parlor
    /// writes starts with it, and only requests below it are answered.
    public var basePath = ""
    /// Addresses `/metrics` answers (the person's, as a trusted proxy reports it); anyone else gets 404.
    public var metricsAddresses: Set<String> = []

    /// Whether `path` can be a base path: empty, or "/" and segments of letters, digits, `-`, `_` and `.`
    /// (none of them only dots), without a slash at the end.
    public static func isValidBasePath(_ path: String) -> Bool {
        if path.isEmpty { return true }
        guard path.hasPrefix("/"), !path.hasSuffix("/"), path.utf8.count <= 200 else { return false }
        return path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).allSatisfy { segment in
            !segment.isEmpty && !segment.allSatisfy { $0 == "." }
                && segment.unicodeScalars.allSatisfy { ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || "-_.".unicodeScalars.contains($0) }
        }
    }

    public init() {}
}
