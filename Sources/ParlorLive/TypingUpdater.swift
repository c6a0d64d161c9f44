import ParlorDomain
import ParlorViews

/// "Ana is typing…": on every open page of the chat, for the members other than those typing, who each see the
/// others. Sent only when the names change, so a screen reader hears each change once.
struct TypingUpdater: LiveUpdater {
    let live: LiveContext

    func typingChanged(_ report: TypingReport) async throws {
        guard let typists = live.typing.apply(report) else { return }
        try await showTyping(typists, in: report.chatID)
    }

    /// A member's message ends their "is typing" at once, whatever their page said.
    func stoppedTypingBySending(_ messages: [Message]) async throws {
        for message in messages where live.typing.typists(in: message.chatID).contains(message.senderID) {
            try await typingChanged(TypingReport(chatID: message.chatID, userID: message.senderID, isTyping: false))
        }
    }

    /// The line for each open page of the chat: the same for everyone who is not typing; each typist sees the others.
    private func showTyping(_ typists: [UserID], in chat: ChatID) async throws {
        let open = live.pages(showing: chat)
        guard !open.isEmpty else { return }
        var names: [UserID: String] = [:]
        for user in typists { names[user] = try await known.user(user, in: store)?.displayName ?? "Someone" }
        var lines: [[UserID]: ScreenUpdate] = [:]
        for (viewer, pages) in open {
            let shown = typists.filter { $0 != viewer }
            let update = lines[shown] ?? {
                let line = TypingBuilder.line(in: chat, names: shown.compactMap { names[$0] })
                return renderer.update(.replace, line.domID, .typing(line))
            }()
            lines[shown] = update
            deliver([update], to: pages)
        }
    }

    /// The line a page shows as it opens, when someone is typing in its chat.
    func typingLine(in chat: ChatID, for viewer: UserID) async throws -> ScreenUpdate? {
        let shown = live.typing.typists(in: chat).filter { $0 != viewer }
        guard !shown.isEmpty else { return nil }
        var names: [String] = []
        for user in shown { names.append(try await known.user(user, in: store)?.displayName ?? "Someone") }
        let line = TypingBuilder.line(in: chat, names: names)
        return renderer.update(.replace, line.domID, .typing(line))
    }

    /// Twice a second by the timer, the names whose time is up are taken off, each through its chat's lane
    /// (`queue`), until cancelled.
    func sweep(queue: (PublishedEvent) -> Void) async {
        while !Task.isCancelled {
            do { try await live.timer.sleep(for: .milliseconds(500)) } catch { return }
            for report in live.typing.expired() {
                queue(PublishedEvent(.presence(.typing(report))))
            }
        }
    }
}
