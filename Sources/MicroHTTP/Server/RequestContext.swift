import CMicroHTTPD
import Synchronization

/// What the server remembers about one request between libmicrohttpd's calls for it. Lives
/// in the connection's `con_cls`, used only on that connection's thread.
final class RequestContext {
    /// Why the request will be refused without reaching a handler.
    var refusal: HTTPError?
    /// The answer an admission gave a body it refused, sent once the (small) body has been read into nothing.
    var refusedWith: Response?
    var isRefused: Bool { refusal != nil || refusedWith != nil }
    /// The head's fields, collected once at the first call.
    var headers = HTTPHeaders()
    /// Set while the route's admission decides on the head (the connection suspended); the first call
    /// that comes after reads its decision.
    var admission: AdmissionDecision?
    /// Whether a refused body is small enough to be read into nothing before the answer (see
    /// ``ServerConfiguration/refusedBodyDrainLimit``).
    var drainable = false
    /// The place among the uploads in progress this request holds, if it streams one.
    var uploadSlot: UploadSlots.Slot?
    var method: HTTPMethod
    var path: String
    /// The path as the access log shows it: the route's pattern when the path carries a secret (a join code).
    var loggedPath: String
    var route: Router.Route?
    /// The matched route's pattern for metrics, "unmatched" when none did.
    var routeLabel: String { route?.pattern.description ?? "unmatched" }
    var parameters: [String: String] = [:]
    var bodyLimit = 0
    var bodyBytes = 0
    /// The form kind announced by `Content-Type`, when the request may carry a form.
    var formKind: FormParser.Kind?
    var body: [UInt8] = []
    /// Whether the body is the media type the route takes as it comes (`Content-Type` checked, UTF-8 if it says).
    var takesRawBody: Bool {
        guard let wanted = route?.rawBodyType, let type = headers["Content-Type"] else { return false }
        return FormParser.isRawBody(contentType: type, of: wanted)
    }
    /// The multipart parser of a route that streams uploads, and the files it wrote.
    var uploads: MultipartStream<FileUploadWriter>?
    let id: RequestID
    let connection: ConnectionHandle
    let started = ContinuousClock.now

    init(id: RequestID, method: HTTPMethod, path: String, connection: ConnectionHandle) {
        self.id = id
        self.method = method
        self.path = path
        loggedPath = path
        self.connection = connection
    }

    /// The request is over (answered, refused or dropped): its uploaded files go.
    deinit {
        uploads?.removeWriterFiles()
    }
}

/// What a route's admission decided on a head: written by its task before the connection is resumed, read
/// on the connection's thread after.
final class AdmissionDecision: Sendable {
    enum Outcome: Sendable {
        case admitted
        case refused(Response)
    }

    private let outcome = Mutex<Outcome?>(nil)

    func decide(_ decided: Outcome) { outcome.withLock { $0 = decided } }

    var decided: Outcome? { outcome.withLock { $0 } }
}

/// The part of a request an `async` handler's task needs: who answers first wins, the
/// handler or a shutdown that gives up waiting for it.
final class PendingReply: Sendable {
    let id: RequestID
    let method: HTTPMethod
    let path: String
    let loggedPath: String
    let route: String
    let connection: ConnectionHandle
    let started: ContinuousClock.Instant
    private let answered = Mutex(false)

    init(_ context: RequestContext) {
        id = context.id
        method = context.method
        path = context.path
        loggedPath = context.loggedPath
        route = context.routeLabel
        connection = context.connection
        started = context.started
    }

    /// Runs `body` if nobody answered yet; returns whether it ran.
    @discardableResult
    func answerOnce(_ body: () -> Void) -> Bool {
        answered.withLock { answered in
            guard !answered else { return false }
            answered = true
            body()
            return true
        }
    }
}

/// Requests waiting for an `async` handler, with their connections suspended. Once
/// shutdown has taken them all, no more are let in.
final class PendingReplies: Sendable {
    private let state = Mutex<(replies: [ObjectIdentifier: PendingReply], closed: Bool)>(([:], false))

    /// Registers a reply; false once shutdown has closed the set.
    func add(_ reply: PendingReply) -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.replies[ObjectIdentifier(reply)] = reply
            return true
        }
    }

    func remove(_ reply: PendingReply) { _ = state.withLock { $0.replies.removeValue(forKey: ObjectIdentifier(reply)) } }

    /// Closes the set and returns everything still waiting.
    func closeAndTakeAll() -> [PendingReply] {
        state.withLock { state in
            state.closed = true
            defer { state.replies = [:] }
            return Array(state.replies.values)
        }
    }
}
