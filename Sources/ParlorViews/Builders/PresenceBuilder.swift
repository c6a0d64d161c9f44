import ParlorDomain

/// The words and look of a person's presence dot.
public enum PresenceBuilder {
    public static func presence(of user: UserID, named name: String, _ state: PresenceState) -> PresenceViewModel {
        let words = switch state {
        case .active: "active"
        case .away: "away"
        case .offline: "offline"
        }
        return PresenceViewModel(userID: String(user.rawValue), state: state.rawValue, label: "\(name) is \(words)")
    }
}
