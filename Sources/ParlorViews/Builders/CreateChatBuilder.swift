import Foundation
import ParlorDomain

/// Builds the new-chat form and the suggestions shown as a person types.
public struct CreateChatBuilder: Sendable {
    public let context: ViewerContext

    public init(context: ViewerContext) {
        self.context = context
    }

    /// A match for the typed text, with the viewer's existing chat with that person if there is one.
    public struct Match: Hashable, Sendable {
        public let user: User
        public let existingChat: ChatID?

        public init(user: User, existingChat: ChatID? = nil) {
            self.user = user
            self.existingChat = existingChat
        }
    }

    /// Why a chat could not be started, as the form shows it.
    public enum Problem: Hashable, Sendable {
        case emptyHandle
        case unknownHandle(String)
        case yourself
        case alreadyExists(ChatID, contactName: String)
        case other(String)
    }

    public func form(handle: String = "", isSending: Bool = false, problem: Problem? = nil, matches: [Match] = []) -> CreateChatViewModel {
        var message: String?
        var existing: String?
        switch problem {
        case nil: break
        case .emptyHandle: message = "Type the handle of the person you want to chat with."
        case .unknownHandle(let handle): message = "No one is called @\(handle)."
        case .yourself: message = "You cannot start a chat with yourself."
        case .alreadyExists(let chat, let name):
            message = "You already have a chat with \(name)."
            existing = context.paths.chat(chat)
        case .other(let text): message = text
        }
        return CreateChatViewModel(
            actionURL: context.paths.newChat,
            csrfToken: context.csrfToken,
            handle: handle,
            isSending: isSending,
            errorMessage: message,
            existingChatURL: existing,
            suggestionsURL: context.paths.contactSuggestions,
            suggestions: suggestions(query: handle, matches: matches)
        )
    }

    public func suggestions(query: String, matches: [Match]) -> ContactSuggestionsViewModel {
        let trimmed = query.trimmingCharacters(in: .whitespaces)
        return ContactSuggestionsViewModel(
            domID: "contact-suggestions",
            query: trimmed,
            items: matches.map { match in
                ContactSuggestionViewModel(
                    handle: "@" + match.user.handle,
                    displayName: match.user.displayName,
                    avatar: AvatarBuilder.avatar(for: match.user, paths: context.paths),
                    chatURL: match.existingChat.map(context.paths.chat)
                )
            },
            showsNoMatch: matches.isEmpty && !trimmed.isEmpty,
            noMatchText: "No one matches “\(trimmed)”."
        )
    }
}
