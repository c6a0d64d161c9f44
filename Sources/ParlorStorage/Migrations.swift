import GRDB

// The schema, as named migrations. Append new ones; never edit one that has shipped.

enum Migrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("1-people-chats-messages") { db in
            try db.execute(sql: """
                CREATE TABLE user (
                    id INTEGER PRIMARY KEY,
                    handle TEXT NOT NULL UNIQUE COLLATE NOCASE,
                    displayName TEXT NOT NULL,
                    timeZone TEXT NOT NULL,
                    locale TEXT NOT NULL,
                    avatarID INTEGER,
                    isBot INTEGER NOT NULL DEFAULT 0,
                    createdAt REAL NOT NULL
                );
                CREATE TABLE chat (
                    id INTEGER PRIMARY KEY,
                    -- "smaller id:larger id": one one-to-one chat per pair of people.
                    pairKey TEXT NOT NULL UNIQUE,
                    createdAt REAL NOT NULL,
                    -- Kept in the transaction that stores a message, so the chat list needs no scan.
                    lastMessageID INTEGER,
                    lastActivity REAL NOT NULL
                );
                CREATE TABLE member (
                    chatID INTEGER NOT NULL REFERENCES chat(id) ON DELETE CASCADE,
                    userID INTEGER NOT NULL REFERENCES user(id),
                    lastReadMessageID INTEGER,
                    PRIMARY KEY (chatID, userID)
                ) WITHOUT ROWID;
                -- A person's chats, for the chat list.
                CREATE INDEX member_by_user ON member(userID, chatID);
                CREATE TABLE message (
                    id INTEGER PRIMARY KEY,
                    chatID INTEGER NOT NULL REFERENCES chat(id) ON DELETE CASCADE,
                    senderID INTEGER NOT NULL REFERENCES user(id),
                    body TEXT NOT NULL,
                    createdAt REAL NOT NULL,
                    editedAt REAL,
                    replyToID INTEGER REFERENCES message(id),
                    token TEXT NOT NULL,
                    UNIQUE (senderID, token)
                );
                -- History pages (keyset on id) and unread counts (ids after the read mark).
                CREATE INDEX message_by_chat ON message(chatID, id);
                """)
        }
        migrator.registerMigration("2-unread-counts-on-members") { db in
            // The chat list reads each member's unread count instead of counting messages per chat:
            // kept by the transactions that store a message and move a read mark.
            try db.execute(sql: """
                ALTER TABLE member ADD COLUMN unreadCount INTEGER NOT NULL DEFAULT 0;
                UPDATE member SET unreadCount = (
                    SELECT COUNT(*) FROM message
                    WHERE message.chatID = member.chatID AND message.id > IFNULL(member.lastReadMessageID, 0)
                      AND message.senderID <> member.userID);
                """)
        }
        migrator.registerMigration("3-passwords-and-sessions") { db in
            // Bots and accounts made before this migration have no password and cannot sign in.
            // Sessions are stored by the hash of their id; a session dies with its account.
            try db.execute(sql: """
                ALTER TABLE user ADD COLUMN passwordHash TEXT;
                CREATE TABLE session (
                    idHash TEXT PRIMARY KEY,
                    userID INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                    csrfToken TEXT NOT NULL,
                    createdAt REAL NOT NULL,
                    expiresAt REAL NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX session_by_user ON session(userID);
                """)
        }
        migrator.registerMigration("4-deleted-messages") { db in
            // A deleted message keeps its row (replies and read marks point at it) with an empty body.
            try db.execute(sql: "ALTER TABLE message ADD COLUMN deletedAt REAL")
        }
        migrator.registerMigration("5-images") { db in
            // An image's content never changes; its versions are files named by their hash in the media folder.
            try db.execute(sql: """
                CREATE TABLE image (
                    id INTEGER PRIMARY KEY,
                    ownerID INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                    purpose TEXT NOT NULL,
                    createdAt REAL NOT NULL
                );
                CREATE TABLE imageVersion (
                    imageID INTEGER NOT NULL REFERENCES image(id) ON DELETE CASCADE,
                    role TEXT NOT NULL,
                    format TEXT NOT NULL,
                    width INTEGER NOT NULL,
                    height INTEGER NOT NULL,
                    hash TEXT NOT NULL,
                    byteCount INTEGER NOT NULL,
                    PRIMARY KEY (imageID, role)
                ) WITHOUT ROWID;
                CREATE INDEX imageVersion_by_hash ON imageVersion(hash);
                """)
        }
        migrator.registerMigration("6-message-photos") { db in
            // A message's photo: the image row keeps its state and, while pending, the upload's file name; the
            // message row repeats the state and the thumbnail's size, which is all its cell needs, so reading
            // a page of messages stays one table.
            try db.execute(sql: """
                ALTER TABLE image ADD COLUMN state TEXT NOT NULL DEFAULT 'ready';
                ALTER TABLE image ADD COLUMN original TEXT;
                CREATE INDEX image_pending ON image(id) WHERE state = 'pending';
                ALTER TABLE message ADD COLUMN photoID INTEGER REFERENCES image(id) ON DELETE SET NULL;
                ALTER TABLE message ADD COLUMN photoState TEXT;
                ALTER TABLE message ADD COLUMN photoWidth INTEGER;
                ALTER TABLE message ADD COLUMN photoHeight INTEGER;
                CREATE INDEX message_by_photo ON message(photoID) WHERE photoID IS NOT NULL;
                """)
        }
        migrator.registerMigration("7-feeds") { db in
            // A chat's feeds. `seenKeys` holds the item keys each subscription has posted or passed over,
            // written in the transaction that posts, so an item is never posted twice, also after a restart.
            // A message a feed posted carries the feed's title and the item's title, link and date.
            try db.execute(sql: """
                CREATE TABLE feedSubscription (
                    id INTEGER PRIMARY KEY,
                    chatID INTEGER NOT NULL REFERENCES chat(id) ON DELETE CASCADE,
                    subscriberID INTEGER NOT NULL REFERENCES user(id),
                    url TEXT NOT NULL,
                    title TEXT,
                    createdAt REAL NOT NULL,
                    -- 'loading', 'loaded', 'failed' or 'paused', with what each shows.
                    status TEXT NOT NULL,
                    newItems INTEGER NOT NULL DEFAULT 0,
                    statusAt REAL,
                    reason TEXT,
                    nextCheck REAL NOT NULL,
                    failures INTEGER NOT NULL DEFAULT 0,
                    etag TEXT,
                    lastModified TEXT,
                    -- The feed's icon: the address it came from, the image made of it (none when unreadable).
                    iconURL TEXT,
                    iconID INTEGER REFERENCES image(id),
                    UNIQUE (chatID, url)
                );
                CREATE INDEX feedSubscription_due ON feedSubscription(nextCheck);
                -- seenAt: the last check whose document held the key; keys gone from the feed for long are forgotten.
                CREATE TABLE feedSeenKey (
                    subscriptionID INTEGER NOT NULL REFERENCES feedSubscription(id) ON DELETE CASCADE,
                    key TEXT NOT NULL,
                    seenAt REAL NOT NULL,
                    PRIMARY KEY (subscriptionID, key)
                ) WITHOUT ROWID;
                ALTER TABLE message ADD COLUMN feedSource TEXT;
                ALTER TABLE message ADD COLUMN feedTitle TEXT;
                ALTER TABLE message ADD COLUMN feedLink TEXT;
                ALTER TABLE message ADD COLUMN feedDate REAL;
                ALTER TABLE message ADD COLUMN feedIconID INTEGER REFERENCES image(id);
                CREATE INDEX message_by_feed_icon ON message(feedIconID) WHERE feedIconID IS NOT NULL;
                CREATE INDEX feedSubscription_by_icon ON feedSubscription(iconID) WHERE iconID IS NOT NULL;
                """)
        }
        migrator.registerMigration("8-room-kinds-and-involvement") { db in
            // Rooms: a chat has a kind (every chat so far is a direct one) and, for open and closed rooms, a
            // name and a topic; a membership says how closely its member follows the chat and since when
            // (every member so far follows a direct chat fully, from when it was made).
            try db.execute(sql: """
                ALTER TABLE chat ADD COLUMN kind TEXT NOT NULL DEFAULT 'direct' CHECK (kind IN ('open', 'closed', 'direct'));
                ALTER TABLE chat ADD COLUMN name TEXT;
                ALTER TABLE chat ADD COLUMN topic TEXT;
                ALTER TABLE member ADD COLUMN involvement TEXT NOT NULL DEFAULT 'everything'
                    CHECK (involvement IN ('everything', 'mentions', 'nothing', 'hidden'));
                ALTER TABLE member ADD COLUMN joinedAt REAL NOT NULL DEFAULT 0;
                UPDATE member SET joinedAt = (SELECT createdAt FROM chat WHERE chat.id = member.chatID);
                """)
        }
        migrator.registerMigration("9-rooms") { db in
            // Rooms are found by their id ("#12" in pairKey), direct chats by their members; a chat keeps its
            // member count, so the list shows "500 members" without counting them. Open rooms are looked up
            // when someone signs up (they join every one).
            try db.execute(sql: """
                ALTER TABLE chat ADD COLUMN memberCount INTEGER NOT NULL DEFAULT 0;
                UPDATE chat SET memberCount = (SELECT COUNT(*) FROM member WHERE member.chatID = chat.id);
                CREATE INDEX chat_open ON chat(id) WHERE kind = 'open';
                """)
        }
        migrator.registerMigration("10-room-notices") { db in
            // A line about the room ("Ana added Ben") is a message with a notice: its kind, whom it is about,
            // the new name or topic. It counts as unread for no one.
            try db.execute(sql: """
                ALTER TABLE message ADD COLUMN noticeKind TEXT;
                ALTER TABLE message ADD COLUMN noticeSubject INTEGER REFERENCES user(id);
                ALTER TABLE message ADD COLUMN noticeText TEXT;
                """)
        }
        migrator.registerMigration("11-mentions") { db in
            // Whom each message names (" ana ben ", "*" for everyone), and each member's unread mentions, kept by
            // the transactions that store a message, move a read mark or delete one, like the unread count.
            try db.execute(sql: """
                ALTER TABLE message ADD COLUMN mentions TEXT;
                ALTER TABLE member ADD COLUMN mentionCount INTEGER NOT NULL DEFAULT 0;
                """)
        }
        migrator.registerMigration("12-photos-by-chat") { db in
            // The image view's previous and next photo: a chat's photos in order, without reading its messages.
            try db.execute(sql: "CREATE INDEX message_photos_by_chat ON message(chatID, id) WHERE photoID IS NOT NULL")
        }
        migrator.registerMigration("13-search") { db in
            // Search. A word index (FTS5, `unicode61` with accents removed: the parts of `foo-bar/baz` and of a link
            // are words) of every message, with a second column of two words naming its chat and its sender
            // (`searchScope`, "c12 u7", computed from the row): a search asks the index for the viewer's chats (and
            // a `from:`'s people) along with the words, so it never reads a message the viewer cannot see. A
            // trigram index holds the messages with Chinese, Japanese or Korean text, found by substring;
            // `message_ideographs` lists those messages with their chat, for terms of one or two such characters,
            // which a trigram cannot find. The indexes read their text from `message`.
            //
            // New messages are indexed in batches (FTS5 costs far more a message in small transactions): by the send
            // whose transaction finds enough waiting, before every search (so a message just sent is found), and at
            // start. `searchIndex.doneThrough` says how far: every message up to that id is in the indexes. An edit
            // or a deletion of a message already indexed changes the indexes in its own transaction (triggers).
            // Text with such a character is not plain ASCII: more bytes than characters, which SQLite counts far
            // faster than it matches the ranges, so most messages skip the ranges.
            let ideographic = SQLiteSearch.ideographicGlob
            func has(_ row: String) -> String { "length(\(row).body) < length(CAST(\(row).body AS BLOB)) AND \(row).body GLOB '\(ideographic)'" }
            let indexed = "old.id <= (SELECT doneThrough FROM searchIndex)"
            try db.execute(sql: """
                ALTER TABLE message ADD COLUMN searchScope TEXT GENERATED ALWAYS AS ('c' || chatID || ' u' || senderID) VIRTUAL;
                CREATE VIRTUAL TABLE message_words USING fts5(
                    body, searchScope, content='message', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
                CREATE VIRTUAL TABLE message_trigrams USING fts5(body, content='message', content_rowid='id', tokenize='trigram');
                CREATE TABLE message_ideographs (id INTEGER PRIMARY KEY, chatID INTEGER NOT NULL);
                CREATE TABLE searchIndex (doneThrough INTEGER NOT NULL);
                INSERT INTO searchIndex VALUES (0);
                CREATE TRIGGER message_search_update AFTER UPDATE OF body ON message WHEN \(indexed) BEGIN
                    INSERT INTO message_words(message_words, rowid, body, searchScope) VALUES ('delete', old.id, old.body, old.searchScope);
                    INSERT INTO message_words(rowid, body, searchScope) VALUES (new.id, new.body, new.searchScope);
                    INSERT INTO message_trigrams(message_trigrams, rowid, body) SELECT 'delete', old.id, old.body WHERE \(has("old"));
                    INSERT INTO message_trigrams(rowid, body) SELECT new.id, new.body WHERE \(has("new"));
                    DELETE FROM message_ideographs WHERE id = old.id;
                    INSERT INTO message_ideographs(id, chatID) SELECT new.id, new.chatID WHERE \(has("new"));
                END;
                CREATE TRIGGER message_search_delete AFTER DELETE ON message WHEN \(indexed) BEGIN
                    INSERT INTO message_words(message_words, rowid, body, searchScope) VALUES ('delete', old.id, old.body, old.searchScope);
                    INSERT INTO message_trigrams(message_trigrams, rowid, body) SELECT 'delete', old.id, old.body WHERE \(has("old"));
                    DELETE FROM message_ideographs WHERE id = old.id;
                END;
                """)
        }
        migrator.registerMigration("14-push") { db in
            // Web Push: each browser's subscription (one person per endpoint), what each person lets notifications say
            // and whether they appear offline, and the server's VAPID key (one row).
            try db.execute(sql: """
                CREATE TABLE pushSubscription (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    userID INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                    endpoint TEXT NOT NULL UNIQUE,
                    p256dh TEXT NOT NULL,
                    auth TEXT NOT NULL,
                    label TEXT NOT NULL,
                    createdAt REAL NOT NULL);
                CREATE INDEX pushSubscription_by_user ON pushSubscription(userID);
                CREATE TABLE notificationPreference (
                    userID INTEGER PRIMARY KEY REFERENCES user(id) ON DELETE CASCADE,
                    isPrivate INTEGER NOT NULL,
                    appearsOffline INTEGER NOT NULL);
                CREATE TABLE vapidKey (single INTEGER PRIMARY KEY CHECK (single = 1), privateKey TEXT NOT NULL);
                """)
        }
        migrator.registerMigration("15-reactions") { db in
            // Reactions: one row per person, message and text, numbered in the order given.
            try db.execute(sql: """
                CREATE TABLE reaction (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    messageID INTEGER NOT NULL REFERENCES message(id) ON DELETE CASCADE,
                    userID INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                    text TEXT NOT NULL,
                    createdAt REAL NOT NULL,
                    UNIQUE (messageID, userID, text));
                """)
        }
        migrator.registerMigration("16-administration") { db in
            // Roles and deactivation on accounts (a Parlor that had people makes its first one administrator), and the
            // Parlor's settings in one row: a Parlor that had people kept taking anyone, so its policy stays open; a
            // new one gets the policy `serve --signup` names at its first start.
            try db.execute(sql: """
                ALTER TABLE user ADD COLUMN role TEXT NOT NULL DEFAULT 'member';
                ALTER TABLE user ADD COLUMN deactivatedAt REAL;
                UPDATE user SET role = 'administrator' WHERE id = (SELECT MIN(id) FROM user WHERE isBot = 0 AND passwordHash IS NOT NULL);
                CREATE TABLE parlorSetting (
                    single INTEGER PRIMARY KEY CHECK (single = 1),
                    signUpPolicy TEXT NOT NULL,
                    onlyAdministratorsCreateRooms INTEGER NOT NULL DEFAULT 0,
                    joinCode TEXT,
                    joinCreatedAt REAL,
                    joinExpiresAt REAL,
                    joinUsesLimit INTEGER,
                    joinUses INTEGER NOT NULL DEFAULT 0);
                INSERT INTO parlorSetting (single, signUpPolicy) SELECT 1, 'open' WHERE EXISTS (SELECT 1 FROM user WHERE isBot = 0);
                """)
        }
        migrator.registerMigration("17-bots") { db in
            // The bots administrators make: the hash of each one's key (the key is shown once) and its webhook.
            try db.execute(sql: """
                CREATE TABLE botKey (
                    userID INTEGER PRIMARY KEY REFERENCES user(id) ON DELETE CASCADE,
                    keyHash TEXT NOT NULL UNIQUE,
                    webhookURL TEXT,
                    createdAt REAL NOT NULL);
                """)
        }
        migrator.registerMigration("18-link-previews") { db in
            // The card of the page a message links to, kept on the message (read with it everywhere); removed by its sender.
            try db.execute(sql: """
                ALTER TABLE message ADD COLUMN previewURL TEXT;
                ALTER TABLE message ADD COLUMN previewTitle TEXT;
                ALTER TABLE message ADD COLUMN previewDescription TEXT;
                ALTER TABLE message ADD COLUMN previewSite TEXT;
                ALTER TABLE message ADD COLUMN previewRemoved INTEGER NOT NULL DEFAULT 0;
                """)
        }
        migrator.registerMigration("19-link-preview-images") { db in
            // The card's picture: an image of the sender's, seen by those who see the message (found by this column).
            try db.execute(sql: """
                ALTER TABLE message ADD COLUMN previewImageID INTEGER REFERENCES image(id);
                ALTER TABLE message ADD COLUMN previewImageWidth INTEGER;
                ALTER TABLE message ADD COLUMN previewImageHeight INTEGER;
                CREATE INDEX message_by_preview_image ON message(previewImageID) WHERE previewImageID IS NOT NULL;
                """)
        }
        migrator.registerMigration("20-parlor-bot-is-a-bot") { db in
            // Parlor Bot, made before bots had keys, is listed with the others: the hash of a key nobody is given.
            try db.execute(sql: """
                INSERT OR IGNORE INTO botKey (userID, keyHash, webhookURL, createdAt)
                SELECT id, 'unused-' || lower(hex(randomblob(16))), NULL, CAST(strftime('%s', 'now') AS REAL) FROM user
                WHERE handle = 'parlor' AND isBot = 1;
                """)
        }
        migrator.registerMigration("21-seen-since-joining") { db in
            // The chat's newest message when each member joined: "Seen by" never counts history from before. A member
            // who joined after the chat began gets the last message sent before they joined (as near as the times say).
            try db.execute(sql: """
                ALTER TABLE member ADD COLUMN joinedAfterMessageID INTEGER NOT NULL DEFAULT 0;
                UPDATE member SET joinedAfterMessageID = IFNULL(
                    (SELECT MAX(id) FROM message WHERE message.chatID = member.chatID AND message.createdAt < member.joinedAt), 0)
                WHERE joinedAt > (SELECT createdAt FROM chat WHERE chat.id = member.chatID);
                """)
        }
        migrator.registerMigration("22-account-log") { db in
            // Sessions, passwords, roles and settings changed by a process (`parlor admin`), for the server running on
            // the same file to hear within a second; each process skips its own entries. Kept for an hour.
            try db.execute(sql: """
                CREATE TABLE accountLog (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    origin INTEGER NOT NULL,
                    kind TEXT NOT NULL,
                    ids TEXT NOT NULL,
                    loggedAt REAL NOT NULL
                );
                """)
        }
        migrator.registerMigration("23-unread-positions") { db in
            // Unread as positions, so a send writes the same few rows in a room of 2 or of 10,000. A chat counts the
            // messages that count as unread (`messageSeq`) and the @everyone ones (`everyoneSeq`); a membership keeps
            // where it stands in each (`readSeq`, `everyoneReadSeq`), moved by its own sends, its reads and the deletion
            // of a message it had not read. Its unread count is `messageSeq - readSeq`; its mentions are `mentionCount`
            // (those that name it) plus `everyoneSeq - everyoneReadSeq`. Every count carries over exactly: the new
            // positions are set from the counts kept until now.
            try db.execute(sql: """
                ALTER TABLE chat ADD COLUMN messageSeq INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE chat ADD COLUMN everyoneSeq INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE member ADD COLUMN readSeq INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE member ADD COLUMN everyoneReadSeq INTEGER NOT NULL DEFAULT 0;
                UPDATE chat SET messageSeq = (SELECT COUNT(*) FROM message WHERE message.chatID = chat.id AND message.noticeKind IS NULL);
                UPDATE member SET readSeq = (SELECT messageSeq FROM chat WHERE chat.id = member.chatID) - unreadCount;
                ALTER TABLE member DROP COLUMN unreadCount;
                """)
        }
        return migrator
    }
}
