// Typed identifiers, so a chat id can never be passed where a user id is expected.

/// A person's (or a bot's) id.
public struct UserID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
    public init(_ rawValue: Int64) { self.rawValue = rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { String(rawValue) }
}

/// A chat's id.
public struct ChatID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
    public init(_ rawValue: Int64) { self.rawValue = rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { String(rawValue) }
}

/// A message's id; ids grow with time within a store, so "read up to" is a comparison.
public struct MessageID: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
    public init(_ rawValue: Int64) { self.rawValue = rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { String(rawValue) }
}

/// An uploaded image's id.
public struct ImageID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int64
    public init(rawValue: Int64) { self.rawValue = rawValue }
    public init(_ rawValue: Int64) { self.rawValue = rawValue }
    public var description: String { String(rawValue) }
}

// An id in a string ("/chats/\(id)", "message-\(id)") is its number, written straight in: through
// `CustomStringConvertible` each one made a `String` first and went through the generic path (URLs and ids
// of every cell on every page).
extension DefaultStringInterpolation {
    public mutating func appendInterpolation(_ id: UserID) { appendInterpolation(id.rawValue) }
    public mutating func appendInterpolation(_ id: ChatID) { appendInterpolation(id.rawValue) }
    public mutating func appendInterpolation(_ id: MessageID) { appendInterpolation(id.rawValue) }
    public mutating func appendInterpolation(_ id: ImageID) { appendInterpolation(id.rawValue) }
}
