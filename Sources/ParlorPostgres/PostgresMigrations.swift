import Logging
import PostgresNIO

// The schema, as named migrations, applied in order inside transactions under an advisory lock, so two
// instances starting together migrate once. Append new ones; never edit one that has shipped.
//
// Unquoted names fold to lower case in PostgreSQL; they are written in camel case as in the SQLite schema.
// Dates are seconds since 1970 (double precision), as SQLite keeps them, so values compare exactly.

enum PostgresMigrations {
    static let all: [(name: String, sql: [PostgresQuery])] = [
        ("1-parlor", [
            """
            CREATE TABLE account (
                id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                handle TEXT NOT NULL,
                displayName TEXT NOT NULL,
                timeZone TEXT NOT NULL,
                locale TEXT NOT NULL,
                avatarID BIGINT,
                isBot BOOLEAN NOT NULL DEFAULT FALSE,
                createdAt DOUBLE PRECISION NOT NULL,
                passwordHash TEXT
            )
            """,
            "CREATE UNIQUE INDEX account_handle ON account (lower(handle))",
            """
            CREATE TABLE chat (
                id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                pairKey TEXT NOT NULL UNIQUE,
                createdAt DOUBLE PRECISION NOT NULL,
                lastMessageID BIGINT,
                lastActivity DOUBLE PRECISION NOT NULL
            )
            """,
            """
            CREATE TABLE member (
                chatID BIGINT NOT NULL REFERENCES chat(id) ON DELETE CASCADE,
                userID BIGINT NOT NULL REFERENCES account(id),
                lastReadMessageID BIGINT,
                unreadCount BIGINT NOT NULL DEFAULT 0,
                PRIMARY KEY (chatID, userID)
            )
            """,
            "CREATE INDEX member_by_user ON member (userID, chatID)",
            """
            CREATE TABLE image (
                id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                ownerID BIGINT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                purpose TEXT NOT NULL,
                createdAt DOUBLE PRECISION NOT NULL,
                state TEXT NOT NULL DEFAULT 'ready',
                original TEXT
            )
            """,
            "CREATE INDEX image_pending ON image (id) WHERE state = 'pending'",
            """
            CREATE TABLE imageVersion (
                imageID BIGINT NOT NULL REFERENCES image(id) ON DELETE CASCADE,
                role TEXT NOT NULL,
                format TEXT NOT NULL,
                width BIGINT NOT NULL,
                height BIGINT NOT NULL,
                hash TEXT NOT NULL,
                byteCount BIGINT NOT NULL,
                PRIMARY KEY (imageID, role)
            )
            """,
            "CREATE INDEX imageVersion_by_hash ON imageVersion (hash)",
            """
            CREATE TABLE message (
                id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                chatID BIGINT NOT NULL REFERENCES chat(id) ON DELETE CASCADE,
                senderID BIGINT NOT NULL REFERENCES account(id),
                body TEXT NOT NULL,
                createdAt DOUBLE PRECISION NOT NULL,
                editedAt DOUBLE PRECISION,
                replyToID BIGINT REFERENCES message(id),
                token TEXT NOT NULL,
                deletedAt DOUBLE PRECISION,
                photoID BIGINT REFERENCES image(id) ON DELETE SET NULL,
                photoState TEXT,
                photoWidth BIGINT,
                photoHeight BIGINT,
                feedSource TEXT,
                feedTitle TEXT,
                feedLink TEXT,
                feedDate DOUBLE PRECISION,
                feedIconID BIGINT REFERENCES image(id),
                UNIQUE (senderID, token)
            )
            """,
            "CREATE INDEX message_by_chat ON message (chatID, id)",
            "CREATE INDEX message_by_photo ON message (photoID) WHERE photoID IS NOT NULL",
            "CREATE INDEX message_by_feed_icon ON message (feedIconID) WHERE feedIconID IS NOT NULL",
            """
            CREATE TABLE session (
                idHash TEXT PRIMARY KEY,
                userID BIGINT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                csrfToken TEXT NOT NULL,
                createdAt DOUBLE PRECISION NOT NULL,
                expiresAt DOUBLE PRECISION NOT NULL
            )
            """,
            "CREATE INDEX session_by_user ON session (userID)",
            """
            CREATE TABLE feedSubscription (
                id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                chatID BIGINT NOT NULL REFERENCES chat(id) ON DELETE CASCADE,
                subscriberID BIGINT NOT NULL REFERENCES account(id),
                url TEXT NOT NULL,
                title TEXT,
                createdAt DOUBLE PRECISION NOT NULL,
                status TEXT NOT NULL,
                newItems BIGINT NOT NULL DEFAULT 0,
                statusAt DOUBLE PRECISION,
                reason TEXT,
                nextCheck DOUBLE PRECISION NOT NULL,
                failures BIGINT NOT NULL DEFAULT 0,
                etag TEXT,
                lastModified TEXT,
                iconURL TEXT,
                iconID BIGINT REFERENCES image(id),
                -- The instance checking it now, and until when: one fetch per feed, whatever the number of instances.
                leaseHolder TEXT,
                leaseUntil DOUBLE PRECISION,
                UNIQUE (chatID, url)
            )
            """,
            "CREATE INDEX feedSubscription_due ON feedSubscription (nextCheck)",
            "CREATE INDEX feedSubscription_by_icon ON feedSubscription (iconID) WHERE iconID IS NOT NULL",
            """
            CREATE TABLE feedSeenKey (
                subscriptionID BIGINT NOT NULL REFERENCES feedSubscription(id) ON DELETE CASCADE,
                key TEXT NOT NULL,
                seenAt DOUBLE PRECISION NOT NULL,
                PRIMARY KEY (subscriptionID, key)
            )
            """,
            // Stored events, written in the transaction of their change: kinds and ids, never rendered pages.
            // Read in (xid, id) order below the oldest running transaction, so a late commit is never skipped.
            """
            CREATE TABLE eventLog (
                id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                xid XID8 NOT NULL DEFAULT pg_current_xact_id(),
                kind TEXT NOT NULL,
                ids BIGINT[] NOT NULL,
                token TEXT,
                loggedAt TIMESTAMPTZ NOT NULL DEFAULT now()
            )
            """,
            "CREATE INDEX eventLog_order ON eventLog (xid, id)",
            // Where the log was last trimmed: a reader behind it has missed events and refreshes its pages.
            "CREATE TABLE eventLogTrim (single BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (single), xid XID8 NOT NULL, id BIGINT NOT NULL)",
            "INSERT INTO eventLogTrim (xid, id) VALUES ('0', 0)",
            // Failed sign-ins per handle and per address, shared by every instance.
            "CREATE TABLE signInFailure (key TEXT NOT NULL, at DOUBLE PRECISION NOT NULL)",
            "CREATE INDEX signInFailure_by_key ON signInFailure (key, at)",
        ]),
        // Rooms: as SQLite's "8-room-kinds-and-involvement".
        ("2-room-kinds-and-involvement", [
            "ALTER TABLE chat ADD COLUMN kind TEXT NOT NULL DEFAULT 'direct' CHECK (kind IN ('open', 'closed', 'direct'))",
            "ALTER TABLE chat ADD COLUMN name TEXT",
            "ALTER TABLE chat ADD COLUMN topic TEXT",
            """
            ALTER TABLE member ADD COLUMN involvement TEXT NOT NULL DEFAULT 'everything'
                CHECK (involvement IN ('everything', 'mentions', 'nothing', 'hidden'))
            """,
            "ALTER TABLE member ADD COLUMN joinedAt DOUBLE PRECISION NOT NULL DEFAULT 0",
            "UPDATE member SET joinedAt = chat.createdAt FROM chat WHERE chat.id = member.chatID",
        ]),
        // As SQLite's "9-rooms": rooms found by "#id", member counts kept, open rooms found at sign-up.
        ("3-rooms", [
            "ALTER TABLE chat ADD COLUMN memberCount BIGINT NOT NULL DEFAULT 0",
            "UPDATE chat SET memberCount = (SELECT count(*) FROM member WHERE member.chatID = chat.id)",
            "CREATE INDEX chat_open ON chat (id) WHERE kind = 'open'",
        ]),
        // As SQLite's "10-room-notices".
        ("4-room-notices", [
            "ALTER TABLE message ADD COLUMN noticeKind TEXT",
            "ALTER TABLE message ADD COLUMN noticeSubject BIGINT REFERENCES account(id)",
            "ALTER TABLE message ADD COLUMN noticeText TEXT",
        ]),
        // As SQLite's "11-mentions".
        ("5-mentions", [
            "ALTER TABLE message ADD COLUMN mentions TEXT",
            "ALTER TABLE member ADD COLUMN mentionCount BIGINT NOT NULL DEFAULT 0",
        ]),
        // As SQLite's "12-photos-by-chat".
        ("6-photos-by-chat", [
            "CREATE INDEX message_photos_by_chat ON message (chatID, id) WHERE photoID IS NOT NULL",
        ]),
        // Search. `searchText` is a message's words as Parlor reads them (`SearchText.searchable`: case and accents
        // folded, one space between words), written with the message; its words are kept as a `tsvector` with their
        // positions (the `simple` configuration: no stemming, and a word of letters and numbers is one word in any
        // locale) in a GIN index, for words, prefixes and words in a row, and messages with Chinese, Japanese or Korean text have a trigram index
        // (`pg_trgm`) for substrings. Messages stored before have none yet: they are indexed at start, in batches.
        ("7-search", [
            "CREATE EXTENSION IF NOT EXISTS pg_trgm",
            "ALTER TABLE message ADD COLUMN searchText TEXT",
            """
            ALTER TABLE message ADD COLUMN searchWords tsvector
                GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, COALESCE(searchText, ''))) STORED
            """,
            "CREATE INDEX message_search_words ON message USING GIN (searchWords)",
            "CREATE INDEX message_search_ideographs ON message USING GIN (searchText gin_trgm_ops) WHERE searchText ~ \(unescaped: PostgresSearch.ideographicClass)",
            "CREATE INDEX message_search_pending ON message (id) WHERE searchText IS NULL",
        ]),
        // As SQLite's "14-push".
        ("8-push", [
            """
            CREATE TABLE pushSubscription (
                id BIGSERIAL PRIMARY KEY,
                userID BIGINT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                endpoint TEXT NOT NULL UNIQUE,
                p256dh TEXT NOT NULL,
                auth TEXT NOT NULL,
                label TEXT NOT NULL,
                createdAt DOUBLE PRECISION NOT NULL
            )
            """,
            "CREATE INDEX pushSubscription_by_user ON pushSubscription (userID)",
            """
            CREATE TABLE notificationPreference (
                userID BIGINT PRIMARY KEY REFERENCES account(id) ON DELETE CASCADE,
                isPrivate BOOLEAN NOT NULL,
                appearsOffline BOOLEAN NOT NULL
            )
            """,
            "CREATE TABLE vapidKey (single BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (single), privateKey TEXT NOT NULL)",
        ]),
        ("9-reactions", [
            // One row per person, message and text, numbered in the order given.
            """
            CREATE TABLE reaction (
                id BIGSERIAL PRIMARY KEY,
                messageID BIGINT NOT NULL REFERENCES message(id) ON DELETE CASCADE,
                userID BIGINT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                text TEXT NOT NULL,
                createdAt DOUBLE PRECISION NOT NULL,
                UNIQUE (messageID, userID, text)
            )
            """,
        ]),
        // As SQLite's "16-administration".
        ("10-administration", [
            "ALTER TABLE account ADD COLUMN role TEXT NOT NULL DEFAULT 'member'",
            "ALTER TABLE account ADD COLUMN deactivatedAt DOUBLE PRECISION",
            "UPDATE account SET role = 'administrator' WHERE id = (SELECT min(id) FROM account WHERE NOT isBot AND passwordHash IS NOT NULL)",
            """
            CREATE TABLE parlorSetting (
                single BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (single),
                signUpPolicy TEXT NOT NULL,
                onlyAdministratorsCreateRooms BOOLEAN NOT NULL DEFAULT FALSE,
                joinCode TEXT,
                joinCreatedAt DOUBLE PRECISION,
                joinExpiresAt DOUBLE PRECISION,
                joinUsesLimit BIGINT,
                joinUses BIGINT NOT NULL DEFAULT 0
            )
            """,
            "INSERT INTO parlorSetting (signUpPolicy) SELECT 'open' WHERE EXISTS (SELECT 1 FROM account WHERE NOT isBot)",
        ]),
        // As SQLite's "17-bots".
        ("11-bots", [
            """
            CREATE TABLE botKey (
                userID BIGINT PRIMARY KEY REFERENCES account(id) ON DELETE CASCADE,
                keyHash TEXT NOT NULL UNIQUE,
                webhookURL TEXT,
                createdAt DOUBLE PRECISION NOT NULL
            )
            """,
        ]),
        // As SQLite's "18-link-previews".
        ("12-link-previews", [
            """
            ALTER TABLE message ADD COLUMN previewURL TEXT, ADD COLUMN previewTitle TEXT, ADD COLUMN previewDescription TEXT,
                ADD COLUMN previewSite TEXT, ADD COLUMN previewRemoved BOOLEAN NOT NULL DEFAULT FALSE
            """,
        ]),
        // As SQLite's "19-link-preview-images".
        ("13-link-preview-images", [
            """
            ALTER TABLE message ADD COLUMN previewImageID BIGINT REFERENCES image(id), ADD COLUMN previewImageWidth INTEGER,
                ADD COLUMN previewImageHeight INTEGER
            """,
            "CREATE INDEX message_by_preview_image ON message(previewImageID) WHERE previewImageID IS NOT NULL",
        ]),
        // As SQLite's "20-parlor-bot-is-a-bot".
        ("14-parlor-bot-is-a-bot", [
            """
            INSERT INTO botKey (userID, keyHash, webhookURL, createdAt)
            SELECT id, 'unused-' || md5(random()::text || clock_timestamp()::text), NULL, extract(epoch FROM now()) FROM account
            WHERE handle = 'parlor' AND isBot
            ON CONFLICT DO NOTHING
            """,
        ]),
        // As SQLite's "21-seen-since-joining".
        ("15-seen-since-joining", [
            "ALTER TABLE member ADD COLUMN joinedAfterMessageID BIGINT NOT NULL DEFAULT 0",
            """
            UPDATE member SET joinedAfterMessageID = COALESCE(
                (SELECT max(id) FROM message WHERE message.chatID = member.chatID AND message.createdAt < member.joinedAt), 0)
            FROM chat WHERE chat.id = member.chatID AND member.joinedAt > chat.createdAt
            """,
        ]),
        // As SQLite's "23-unread-positions": a send writes the same few rows whatever the room's size.
        ("16-unread-positions", [
            "ALTER TABLE chat ADD COLUMN messageSeq BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE chat ADD COLUMN everyoneSeq BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE member ADD COLUMN readSeq BIGINT NOT NULL DEFAULT 0",
            "ALTER TABLE member ADD COLUMN everyoneReadSeq BIGINT NOT NULL DEFAULT 0",
            """
            UPDATE chat SET messageSeq = (SELECT count(*) FROM message WHERE message.chatID = chat.id AND message.noticeKind IS NULL)
            """,
            "UPDATE member SET readSeq = chat.messageSeq - member.unreadCount FROM chat WHERE chat.id = member.chatID",
            "ALTER TABLE member DROP COLUMN unreadCount",
        ]),
    ]

    /// Brings the schema up to date (`through` a named migration only, for the tests of a later one on data an
    /// earlier release wrote); answers the names of the migrations applied now.
    @discardableResult
    static func migrate(_ database: PostgresDatabase, through last: String? = nil) async throws -> [String] {
        let logger = database.logger
        let wanted = last.flatMap { name in all.firstIndex { $0.name == name } }.map { Array(all[...$0]) } ?? all
        do {
            return try await migrations(wanted, database, logger)
        } catch {
            throw PostgresStoreError.wrapping(error)
        }
    }

    private static func migrations(_ all: [(name: String, sql: [PostgresQuery])], _ database: PostgresDatabase, _ logger: Logger) async throws -> [String] {
        try await database.client.withConnection { connection in
            try await PostgresDatabase.transaction(connection, logger: logger) { connection in
                // One instance at a time; the others wait here, then find nothing left to do.
                try await connection.run("SELECT pg_advisory_xact_lock(7460201)", logger: logger)
                try await connection.run(
                    "CREATE TABLE IF NOT EXISTS schemaMigration (name TEXT PRIMARY KEY, appliedAt TIMESTAMPTZ NOT NULL DEFAULT now())",
                    logger: logger
                )
                let done = Set(try await connection.rows("SELECT name FROM schemaMigration", logger: logger).map { try $0.at(0, as: String.self) })
                var applied: [String] = []
                for migration in all where !done.contains(migration.name) {
                    for statement in migration.sql { try await connection.run(statement, logger: logger) }
                    try await connection.run("INSERT INTO schemaMigration (name) VALUES (\(migration.name))", logger: logger)
                    applied.append(migration.name)
                }
                return applied
            }
        }
    }
}
