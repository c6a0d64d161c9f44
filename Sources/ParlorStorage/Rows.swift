// Reading domain values out of rows, by column position: a lookup by name hashes and lowercases the
// name for every value, which was a fifth of the chat list's time. The column lists below fix the
// positions; a query selects `Columns.user` or `Columns.message` (or their `in:` forms, qualified by a table
// alias) and decodes from the index where that list starts, with `User(_:at:)` and `Message(_:at:)`
// (StatementRows.swift).

enum Columns {
    /// The `message` columns in the order `Message(_:at:)` reads them, qualified by `table` when given.
    static func message(in table: String?) -> String {
        qualified([
            "id", "chatID", "senderID", "body", "createdAt", "editedAt", "replyToID", "deletedAt", "photoID", "photoState", "photoWidth", "photoHeight",
            "feedSource", "feedTitle", "feedLink", "feedDate", "feedIconID", "noticeKind", "noticeSubject", "noticeText",
            "previewURL", "previewTitle", "previewDescription", "previewSite", "previewRemoved", "previewImageID", "previewImageWidth",
            "previewImageHeight",
        ], by: table)
    }

    /// How many columns ``message(in:)`` lists.
    static let messageCount = 28

    /// The `user` columns in the order `User(_:at:)` reads them, qualified by `table` when given.
    static func user(in table: String?) -> String {
        qualified(["id", "handle", "displayName", "timeZone", "locale", "avatarID", "isBot"], by: table)
    }

    static let message = message(in: nil)
    static let user = user(in: nil)

    private static func qualified(_ names: [String], by table: String?) -> String {
        let prefix = table.map { "\($0)." } ?? ""
        return names.map { prefix + $0 }.joined(separator: ", ")
    }
}
