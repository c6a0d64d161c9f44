import ParlorDomain
import ParlorLive

/// Whether a person has a page in front of them anywhere: on this instance, as its pages say right now, or on
/// another, as its reports say (a message for them is shown there, and not pushed).
public struct EveryInstanceVisibility: PageVisibility {
    let here: PresenceReporter
    let everywhere: EventHandler

    public init(here: PresenceReporter, everywhere: EventHandler) {
        self.here = here
        self.everywhere = everywhere
    }

    public func hasVisiblePage(_ user: UserID) -> Bool {
        here.pages.hasVisiblePage(user) || everywhere.hasVisiblePage(user, elsewhereThan: here.instance)
    }
}
