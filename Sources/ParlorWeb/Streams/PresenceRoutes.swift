import MicroHTTP
import ParlorDomain

/// `POST /presence` (`page=<key>&visible=1|0&idle=1|0&left=1|0`): a page's script says whether the page is in front
/// of its person, whether they have used it lately, and when it is going away (its stream may look open for a while
/// yet). Decides whom messages are pushed to, and the person's dot.
public struct PresenceRoutes: Sendable {
    let gate: SignInGate
    let presence: PresenceReporter

    public init(gate: SignInGate, presence: PresenceReporter) {
        self.gate = gate
        self.presence = presence
    }

    public func register(on router: inout Router) {
        router.post("/presence", bodyLimit: 1024, gate.signedIn { [presence] request, signedIn in
            guard let key = request.form["page"], VisiblePages.isPageKey(key), let visible = request.form["visible"], visible == "1" || visible == "0",
                  (request.form["idle"] ?? "0") == "0" || request.form["idle"] == "1"
            else {
                throw HTTPError(.badRequest, "Say which page, whether it is visible and whether its person is idle.")
            }
            if let wait = presence.admitReport(of: signedIn.user.id) {
                throw HTTPError(.tooManyRequests, Refusal.tooFrequent.message, headers: ["Retry-After": String(wait.wholeSecondsUp)])
            }
            if request.form["left"] == "1" {
                presence.closed(signedIn.user.id, page: key)
            } else {
                presence.reported(signedIn.user.id, page: key, visible: visible == "1", idle: request.form["idle"] == "1")
            }
            return .text("", status: .noContent)
        })
    }
}
