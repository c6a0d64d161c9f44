import Clocks
import ParlorDomain
import Synchronization

/// Who is typing in each chat on this instance's pages, in the order they started, each until a "stop", a message
/// of theirs, or ``Typing/shownFor`` after their last "start" by its clock. Kept by the chat's lane (a chat's changes
/// in order); the sweep, run twice a second, finds the names whose time is up.
final class TypingBoard: Sendable {
    private struct Typist: Sendable {
        let user: UserID
        var until: AnyClock<Duration>.Instant
    }

    private let chats = Mutex<[ChatID: [Typist]]>([:])
    private let clock: AnyClock<Duration>

    init(clock: AnyClock<Duration>) {
        self.clock = clock
    }

    /// Applies a report; answers who types in the chat now, in order, when that changed (nil when not: another
    /// "start" of someone already shown only moves their time on).
    func apply(_ report: TypingReport) -> [UserID]? {
        let now = clock.now
        return chats.withLock { chats in
            var typists = chats[report.chatID, default: []]
            let before = typists.map(\.user)
            if report.isTyping {
                if let index = typists.firstIndex(where: { $0.user == report.userID }) {
                    typists[index].until = now + Typing.shownFor
                } else {
                    typists.append(Typist(user: report.userID, until: now + Typing.shownFor))
                }
            } else {
                typists.removeAll { $0.user == report.userID }
            }
            chats[report.chatID] = typists.isEmpty ? nil : typists
            let after = typists.map(\.user)
            return after == before ? nil : after
        }
    }

    /// Who types in `chat` now.
    func typists(in chat: ChatID) -> [UserID] {
        chats.withLock { $0[chat]?.map(\.user) ?? [] }
    }

    /// The names whose time is up now, as the "stop"s that hide them (applied through their chats' lanes).
    func expired() -> [TypingReport] {
        let now = clock.now
        return chats.withLock { chats in
            chats.flatMap { chat, typists in
                typists.filter { $0.until <= now }.map { TypingReport(chatID: chat, userID: $0.user, isTyping: false) }
            }
        }
    }
}
