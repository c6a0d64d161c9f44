import Foundation
import MicroHTTP
import ParlorDomain
import ParlorViews

/// What the bot API answers with, as JSON: messages, rooms, reactions, and refusals (`{"error": "…"}`).
enum BotAPI {
    struct Person: Encodable {
        let id: Int64
        let handle: String
        let name: String
        let isBot: Bool

        init(_ user: User) {
            id = user.id.rawValue
            handle = user.handle
            name = user.displayName
            isBot = user.isBot
        }
    }

    struct MessageBody: Encodable {
        let id: Int64
        let room: Int64
        let sender: Person
        /// As typed (formatting marks included); empty once deleted.
        let text: String
        /// As the conversation shows it (escaped, linked, formatted).
        let html: String
        let createdAt: String
        let editedAt: String?
        let deleted: Bool
        let replyTo: Int64?
        /// Its photo: "pending" until processed, then "ready" (or "failed"); the size its thumbnail has.
        let photo: Photo?
    }

    struct Photo: Encodable {
        let id: Int64
        let state: String
        let width: Int
        let height: Int
    }

    struct Room: Encodable {
        let id: Int64
        let name: String
        let kind: String
    }

    struct ReactionBody: Encodable {
        let reaction: String
        let count: Int
        let people: [String]
    }

    struct Failure: Encodable {
        let error: String
        let request: String
    }

    static func date(_ date: Date) -> String { date.formatted(.iso8601) }

    static func json(_ value: some Encodable, status: HTTPStatus = .ok) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        var response = Response(status: status, headers: ["Content-Type": "application/json"], body: .bytes(.init(data)))
        response.headers.replace("Cache-Control", with: "no-store")
        return response
    }

    static func error(_ message: String, status: HTTPStatus, requestID: String) -> Response {
        var response = json(Failure(error: message, request: requestID), status: status)
        if status == .unauthorized { response.headers.replace("WWW-Authenticate", with: "Bearer realm=\"parlor\"") }
        return response
    }
}
