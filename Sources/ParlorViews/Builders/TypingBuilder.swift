import ParlorDomain

/// The line that says who is typing, in the order they started: two or three names, then "Several people".
public enum TypingBuilder {
    public static func line(in chat: ChatID, names: [String]) -> TypingViewModel {
        TypingViewModel(domID: domID(chat), text: text(names))
    }

    public static func domID(_ chat: ChatID) -> String { "typing-\(chat)" }

    static func text(_ names: [String]) -> String? {
        switch names.count {
        case 0: nil
        case 1: "\(names[0]) is typing…"
        case 2: "\(names[0]) and \(names[1]) are typing…"
        case 3: "\(names[0]), \(names[1]) and \(names[2]) are typing…"
        default: "Several people are typing…"
        }
    }
}
