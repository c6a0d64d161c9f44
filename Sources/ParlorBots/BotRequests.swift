import Foundation

/// What a bot sends the API, read from JSON bytes that may be anything: an object with the fields named, each of the
/// type it must be, within the limits. Anything else is one ``BotRequestError`` with words for the bot's author.
public enum BotRequests {
    /// A new message: `{"text": "…", "replyTo": 12, "token": "…"}` (reply and token optional).
    public struct NewMessage: Decodable, Equatable, Sendable {
        public let text: String
        public let replyTo: Int64?
        /// The same token twice stores one message: a bot retrying after a timeout posts nothing twice.
        public let token: String?
    }

    /// A message's new text: `{"text": "…"}`.
    public struct Edit: Decodable, Equatable, Sendable {
        public let text: String
    }

    /// A reaction to toggle: `{"reaction": "👍"}`.
    public struct Reaction: Decodable, Equatable, Sendable {
        public let reaction: String
    }

    /// How far the bot has read a room: `{"upTo": 12}`.
    public struct Read: Decodable, Equatable, Sendable {
        public let upTo: Int64
    }

    /// The person a bot writes to directly: `{"handle": "ana"}` (an `@` before it is allowed).
    public struct Direct: Decodable, Equatable, Sendable {
        public let handle: String
    }

    /// The most bytes a request's JSON may have (the route refuses more before reading it).
    public static let maximumBytes = 16 * 1024
    /// Ids in URLs and bodies, as JavaScript numbers can hold them exactly.
    public static let maximumID: Int64 = 9_007_199_254_740_991

    public static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws(BotRequestError) -> Value {
        guard !bytes.isEmpty else { throw .empty }
        guard bytes.count <= maximumBytes else { throw .tooLarge }
        guard String(validating: bytes, as: UTF8.self) != nil else { throw .notUTF8 }
        do {
            let value = try JSONDecoder().decode(Value.self, from: Data(bytes))
            if let message = value as? NewMessage {
                if let replyTo = message.replyTo, !(1...maximumID).contains(replyTo) { throw BotRequestError.invalidField("replyTo") }
                if let token = message.token, token.isEmpty || token.utf8.count > 100 { throw BotRequestError.invalidField("token") }
            }
            if let read = value as? Read, !(1...maximumID).contains(read.upTo) { throw BotRequestError.invalidField("upTo") }
            if let direct = value as? Direct, direct.handle.isEmpty || direct.handle.utf8.count > 40 { throw BotRequestError.invalidField("handle") }
            return value
        } catch let error as BotRequestError {
            throw error
        } catch DecodingError.keyNotFound(let key, _) {
            throw .missingField(key.stringValue)
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context) {
            // Nothing on the path: the body itself is no object.
            guard let field = context.codingPath.first?.stringValue else { throw .notJSON }
            throw .invalidField(field)
        } catch {
            throw .notJSON
        }
    }
}

/// Why a bot's request body was refused, in words for whoever wrote the bot.
public enum BotRequestError: Error, Equatable, Sendable {
    case empty
    case tooLarge
    case notJSON
    /// JSON is UTF-8 (RFC 8259); UTF-16 or anything else is another media type, refused with 415.
    case notUTF8
    case missingField(String)
    case invalidField(String)

    public var message: String {
        switch self {
        case .empty: "Send a JSON object."
        case .tooLarge: "A request's JSON has at most \(BotRequests.maximumBytes) bytes."
        case .notJSON: "That is not a JSON object Parlor can read."
        case .notUTF8: "Send JSON in UTF-8."
        case .missingField(let name): "The field \"\(Self.shown(name))\" is missing."
        case .invalidField(let name): "The field \"\(Self.shown(name))\" has a value Parlor cannot take."
        }
    }

    /// A field's name as the bot wrote it, cut short and without control characters (it goes back in the answer).
    private static func shown(_ name: String) -> String {
        String(name.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(40).map(Character.init))
    }
}
