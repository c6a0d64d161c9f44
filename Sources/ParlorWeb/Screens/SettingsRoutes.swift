import Foundation
import MicroHTTP
import ParlorDomain
import ParlorViews

/// `/settings`: display name, time zone and locale. A change is a `UserEvent` like any other.
extension ParlorApp {
    func registerSettingsRoutes(on router: inout Router) {
        router.get("/settings", signedIn { [self] request, signedIn in
            try await settingsPage(signedIn, form: settingsBuilder(signedIn).form(saved: request.query["saved"] == "1"))
        })
        router.post("/settings", bodyLimit: 16 * 1024, signedIn { [self] request, signedIn in
            let displayName = request.form["displayName"] ?? ""
            let timeZone = request.form["timeZone"] ?? signedIn.user.timeZoneIdentifier
            let locale = request.form["locale"] ?? signedIn.user.localeIdentifier
            guard StoredText.identifier(timeZone) != nil, TimeZone(identifier: timeZone) != nil,
                  SettingsBuilder.localeIdentifiers.contains(locale) || locale == signedIn.user.localeIdentifier
            else {
                let form = settingsBuilder(signedIn).form(displayName: displayName, error: "Choose a time zone and a language from the lists.")
                return try await settingsPage(signedIn, form: form, status: .unprocessableContent)
            }
            let change = ProfileChange(userID: signedIn.user.id, displayName: displayName, timeZoneIdentifier: timeZone, localeIdentifier: locale)
            switch await events.send(.updatingProfile(change), requestID: request.id.description) {
            case .profileUpdated:
                return .redirect(to: paths.settings + "?saved=1")
            case .profileUpdateFailed(_, let reason):
                let form = settingsBuilder(signedIn).form(displayName: displayName, error: reason.message)
                return try await settingsPage(signedIn, form: form, status: Self.status(for: reason))
            default:
                throw HTTPError(.serviceUnavailable, Refusal.unavailable.message)
            }
        })
    }

    private func settingsBuilder(_ signedIn: SignedIn) -> SettingsBuilder {
        SettingsBuilder(context: context(signedIn), timeZones: timeZones)
    }

    private func settingsPage(_ signedIn: SignedIn, form: SettingsFormViewModel, status: HTTPStatus = .ok) async throws -> Response {
        let context = context(signedIn)
        let unread = try await store.unreadTotal(for: signedIn.user.id)
        let layout = PageBuilder(context: context).layout(title: "Settings", unreadTotal: unread)
        return page(SettingsPageViewModel(layout: layout, form: form), status: status)
    }
}
