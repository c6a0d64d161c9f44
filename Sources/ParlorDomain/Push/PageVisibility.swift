/// Whether a person has a Parlor page in front of them now: then a message is shown there, and not pushed.
public protocol PageVisibility: Sendable {
    func hasVisiblePage(_ user: UserID) -> Bool
}
