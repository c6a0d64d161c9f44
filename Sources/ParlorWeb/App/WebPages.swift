import ByteOutput
import Foundation
import MicroHTTP
import ParlorDomain
import ParlorTemplates
import ParlorViews

/// How a route answers with a page: the builders' context for a signed-in person at the clock's now, and
/// the page rendered with the current templates, never stored by a cache.
public struct WebPages: Sendable {
    let templates: PageTemplates
    let paths: Paths
    let clock: any WallClock
    /// Date labels per (locale, time zone), built once and shared by pages and live updates.
    let dateLabels: DateLabels.Cache

    public init(templates: PageTemplates, paths: Paths, clock: any WallClock, dateLabels: DateLabels.Cache) {
        self.templates = templates
        self.paths = paths
        self.clock = clock
        self.dateLabels = dateLabels
    }

    /// The builders' context for a signed-in person, at the clock's now.
    func context(_ signedIn: SignedIn) -> ViewerContext {
        ViewerContext(viewer: signedIn.user, now: clock.now, basePath: paths.basePath, csrfToken: signedIn.session.csrfToken, cache: dateLabels)
    }

    /// A page or a fragment. They carry CSRF tokens and private messages: never stored by a cache.
    func page<ViewModel: Renderable>(_ viewModel: ViewModel, status: HTTPStatus = .ok) -> Response {
        html(templates.current.render(viewModel, capacity: 32 * 1024), status: status)
    }

    /// A rendered page or fragment, with the same fields as ``page(_:status:)``.
    func html(_ rendered: OutputBuffer, status: HTTPStatus = .ok) -> Response {
        var response = Response.html(rendered, status: status)
        response.headers.replace("Cache-Control", with: "no-store")
        return response
    }
}

extension Request {
    /// Whether the request came from Parlor's script, which wants a short answer instead of a page.
    var isFromScript: Bool { headers["X-Parlor-Script"] == "1" }
}

extension Refusal {
    /// The status a refused change is answered with.
    var httpStatus: HTTPStatus {
        switch self {
        case .notFound: .notFound
        case .notYourMessage, .administratorsOnly, .invitationRequired, .joinLinkInvalid: .forbidden
        case .joinLinkExpired, .joinLinkUsedUp: .gone
        case .lastAdministrator, .deactivatingYourself: .conflict
        case .unavailable: .serviceUnavailable
        case .tooFrequent: .tooManyRequests
        default: .unprocessableContent
        }
    }
}

extension ImageRefusal {
    /// The status a refused photo is answered with.
    var httpStatus: HTTPStatus {
        switch self {
        case .busy: .serviceUnavailable
        case .tooLarge: .contentTooLarge
        default: .unprocessableContent
        }
    }
}
