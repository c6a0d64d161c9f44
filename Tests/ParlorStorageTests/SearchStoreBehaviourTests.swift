import Foundation
import ParlorDomain
import Testing

/// Search in every store, on the same corpus: what is found (the same in each), what is never found (messages
/// the person cannot reach), and the order. Best match is ranked by each store its own way (SQLite's bm25,
/// PostgreSQL's ts_rank, the in-memory store's word count); the tests only ask that a message saying the word
/// three times comes before one saying it once among many other words, which all three agree on.
@Suite struct SearchStoreBehaviourTests {
    typealias World = ChatStoreBehaviourTests.World

    /// Ana's rooms and chats, with text of every kind search reads.
    struct Corpus {
        let world: World
        let search: any SearchStore
        let launch: Chat
        let withBen: Chat
        let bensWithChloe: Chat
        var sent: [String: Message] = [:]

        init(_ kind: StoreKind) async throws {
            world = try await World(kind)
            search = try #require(world.store as? any SearchStore)
            let store = world.store
            launch = try await store.createRoom(NewRoom(
                creator: world.ana.id, kind: .closed, name: "Launch Plans", topic: nil, members: [world.ben.id], createdAt: .at(1)
            ))
            withBen = try await store.createChat(between: world.ana.id, and: world.ben.id, at: .at(1))
            bensWithChloe = try await store.createChat(between: world.ben.id, and: world.chloe.id, at: .at(1))
            let lines: [(String, Chat, User, String)] = [
                ("deployment", launch, world.ana, "The deployment of *Friday* is at noon"),
                ("café", launch, world.ben, "Meet at the Café Olé before the deploy?"),
                ("link", withBen, world.ben, "Guide: https://docs.example.org/deploy-guide/steps?lang=en"),
                ("path", withBen, world.ana, "Look in src/foo-bar/baz.swift"),
                ("phrase", launch, world.ana, "the release train leaves on time"),
                ("reversed", launch, world.ben, "time on leaves train release the"),
                ("tokyo", launch, world.ben, "明日は東京都で会議があります"),
                ("korean", withBen, world.ana, "회의는 서울에서 합니다"),
                ("repeated", withBen, world.ben, "deploy deploy deploy"),
                ("long", launch, world.ana, "we talked about lunch, the weather, trains, plans, and one deploy among many other things"),
                ("secret", bensWithChloe, world.chloe, "the secret deploy code is 4471"),
                ("hostile", withBen, world.ana, "<script>alert(\"x\")</script> &amp; \"quoted\" deploy"),
            ]
            for (index, line) in lines.enumerated() {
                sent[line.0] = try await world.send(line.1.id, from: line.2, line.3, at: Double(10 + index * 7_200))
            }
        }

        func find(_ text: String, as viewer: User? = nil, order: SearchOrder = .newest, limit: Int = 20) async throws -> [String] {
            let results = try await search.search(MessageSearch(
                viewer: (viewer ?? world.ana).id, query: SearchQuery.parse(text), dayStart: Self.dayStart, order: order, limit: limit
            ))
            return results.messages.map { message in sent.first { $0.value.id == message.id }?.key ?? "#\(message.id)" }
        }

        /// Days start at midnight UTC in these tests.
        static func dayStart(_ day: SearchDay) -> Date? {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            return calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day))
        }
    }

    @Test(arguments: StoreKind.allCases)
    func wordsArePrefixesFoldedForCaseAndAccentsAndAllMustMatch(_ kind: StoreKind) async throws {
        let corpus = try await Corpus(kind)
        #expect(try await corpus.find("deplo") == ["hostile", "long", "repeated", "link", "café", "deployment"], "newest first; not Chloé's chat with Ben")
        #expect(try await corpus.find("DEPLOYMENT") == ["deployment"])
        #expect(try await corpus.find("cafe ole") == ["café"], "accents folded away, both words")
        #expect(try await corpus.find("café deployment").isEmpty, "every word must match one message")
        #expect(try await corpus.find("friday noon") == ["deployment"], "formatting markers are not part of words")
        #expect(try await corpus.find("xyzzy").isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func partsOfLinksAndOfHyphenatedOrSlashedWordsAreWords(_ kind: StoreKind) async throws {
        let corpus = try await Corpus(kind)
        #expect(try await corpus.find("guide") == ["link"], "a word inside a link")
        #expect(try await corpus.find("docs example") == ["link"])
        #expect(try await corpus.find("lang") == ["link"], "a link's query")
        #expect(try await corpus.find("bar") == ["path"], "the middle of foo-bar/baz")
        #expect(try await corpus.find("foo-bar") == ["path"], "a hyphenated word as typed")
        #expect(try await corpus.find("baz.swift") == ["path"])
    }

    @Test(arguments: StoreKind.allCases)
    func aPhraseIsItsWordsInARow(_ kind: StoreKind) async throws {
        let corpus = try await Corpus(kind)
        #expect(try await corpus.find("release train") == ["reversed", "phrase"], "words in any order")
        #expect(try await corpus.find("\"release train\"") == ["phrase"], "a phrase in its order")
        #expect(try await corpus.find("\"release tra\"").isEmpty, "a phrase's words are whole")
        #expect(try await corpus.find("\"the release train leaves\" time") == ["phrase"])
    }

    @Test(arguments: StoreKind.allCases)
    func chineseJapaneseAndKoreanTextIsFoundBySubstring(_ kind: StoreKind) async throws {
        let corpus = try await Corpus(kind)
        #expect(try await corpus.find("東京都") == ["tokyo"], "three characters, inside a run without spaces")
        #expect(try await corpus.find("東京") == ["tokyo"], "two characters")
        #expect(try await corpus.find("京") == ["tokyo"], "one character")
        #expect(try await corpus.find("会議") == ["tokyo"])
        #expect(try await corpus.find("서울에서") == ["korean"])
        #expect(try await corpus.find("서울 합니다") == ["korean"], "two substrings")
        #expect(try await corpus.find("大阪").isEmpty)
        #expect(try await corpus.find("東京 deploy").isEmpty, "with a word, both must match")
    }

    @Test(arguments: StoreKind.allCases)
    func onlyWhatThePersonCanReachNowIsFoundAndAnEditMatchesItsNewText(_ kind: StoreKind) async throws {
        var corpus = try await Corpus(kind)
        let store = corpus.world.store
        let world = corpus.world
        // Chloé's chat with Ben is not Ana's; Chloé finds her own message there.
        #expect(try await corpus.find("secret").isEmpty)
        #expect(try await corpus.find("secret", as: world.chloe) == ["secret"])
        // A deleted message is never found.
        _ = try await store.delete(MessageDeletion(messageID: try #require(corpus.sent["repeated"]).id, requesterID: world.ben.id, deletedAt: .at(90_000)))
        #expect(try await corpus.find("deploy").contains("repeated") == false)
        // An edited message is found by its new text only.
        let path = try #require(corpus.sent["path"])
        _ = try await store.edit(MessageEdit(messageID: path.id, editorID: world.ana.id, body: "Look in Sources/Parlor instead", editedAt: .at(90_001)))
        #expect(try await corpus.find("baz").isEmpty)
        #expect(try await corpus.find("sources parlor") == ["path"])
        // Taken out of the room, Ben no longer finds what was said there, his own words included.
        #expect(try await corpus.find("café", as: world.ben) == ["café"])
        _ = try await store.removeMember(world.ben.id, from: corpus.launch.id, by: world.ana.id, at: .at(90_002))
        #expect(try await corpus.find("café", as: world.ben).isEmpty)
        #expect(try await corpus.find("東京", as: world.ben).isEmpty)
        #expect(try await corpus.find("deploy", as: world.ben) == ["hostile", "secret", "link"], "his chats with Ana and Chloé stay")
        // A message just sent is found at once.
        corpus.sent["fresh"] = try await world.send(corpus.withBen.id, from: world.ana, "zebra crossing", at: 90_003)
        #expect(try await corpus.find("zebr") == ["fresh"])
        // Lines about the room are nobody's words.
        #expect(try await corpus.find("ben").isEmpty)
    }

    @Test(arguments: StoreKind.allCases)
    func filtersNarrowByAuthorRoomPhotoAndDay(_ kind: StoreKind) async throws {
        let corpus = try await Corpus(kind)
        #expect(try await corpus.find("deploy from:@ben") == ["repeated", "link", "café"])
        #expect(try await corpus.find("deploy from:@ben from:@ana") == ["hostile", "long", "repeated", "link", "café", "deployment"])
        #expect(try await corpus.find("from:@nobody").isEmpty)
        #expect(try await corpus.find("deploy in:#launch-plans").isEmpty, "a room no one has")
        #expect(try await corpus.find("deploy in:\"launch plans\"") == ["long", "café", "deployment"], "a room's name, case folded")
        #expect(try await corpus.find("in:\"Launch Plans\" from:@ben") == ["tokyo", "reversed", "café"], "filters alone, newest first")
        // The corpus's messages are two hours apart from 2026-11-18 11:06:50 UTC: seven that day, five the next.
        #expect(try await corpus.find("deploy before:2026-11-19") == ["link", "café", "deployment"])
        #expect(try await corpus.find("deploy after:2026-11-19") == ["hostile", "long", "repeated"], "on or after the day's start")
        #expect(try await corpus.find("deploy after:2026-11-19 before:2026-11-19").isEmpty)
        #expect(try await corpus.find("has:photo").isEmpty)
        let store = try #require(corpus.world.store as? any ChatStore & ImageStore)
        let photo = try await store.send(OutgoingMessage(
            chatID: corpus.withBen.id, senderID: corpus.world.ben.id, body: "Our deploy board", token: "photo", createdAt: .at(100_000),
            photo: NewPhoto(original: "upload", width: 10, height: 10)
        ))
        let found = try await corpus.search.search(MessageSearch(viewer: corpus.world.ana.id, query: .parse("has:photo deploy"), dayStart: Corpus.dayStart))
        #expect(found.messages.map(\.id) == [photo.id])
    }

    @Test(arguments: StoreKind.allCases)
    func resultsComeWithTheirChatsHeadingsAndAuthors(_ kind: StoreKind) async throws {
        let corpus = try await Corpus(kind)
        let found = try await corpus.search.search(MessageSearch(viewer: corpus.world.ana.id, query: .parse("guide OR café"), dayStart: Corpus.dayStart))
        #expect(found.messages.isEmpty, "OR is a word")
        let both = try await corpus.search.search(MessageSearch(viewer: corpus.world.ana.id, query: .parse("deploy"), dayStart: Corpus.dayStart))
        let room = try #require(both.headings[corpus.launch.id])
        #expect(room.kind == .closed && room.name == "Launch Plans" && room.memberCount == 2 && room.contact == nil)
        let direct = try #require(both.headings[corpus.withBen.id])
        #expect(direct.kind == .direct && direct.contact == corpus.world.ben, "Ana's chat with Ben is called by Ben")
        #expect(both.headings.count == 2 && both.people[corpus.world.ben.id] == corpus.world.ben && both.people[corpus.world.ana.id] == corpus.world.ana)
    }

    @Test(arguments: StoreKind.allCases)
    func pagesFollowEachOtherAndBestMatchPutsTheRepeatedWordFirst(_ kind: StoreKind) async throws {
        let corpus = try await Corpus(kind)
        let all = try await corpus.find("deploy")
        let first = try await corpus.search.search(MessageSearch(viewer: corpus.world.ana.id, query: .parse("deploy"), dayStart: Corpus.dayStart, limit: 4))
        #expect(first.messages.count == 4 && first.hasMore)
        let next = try await corpus.search.search(MessageSearch(
            viewer: corpus.world.ana.id, query: .parse("deploy"), dayStart: Corpus.dayStart, olderThan: first.messages.last?.id, limit: 4
        ))
        #expect(!next.hasMore && (first.messages + next.messages).count == all.count)
        #expect(Set((first.messages + next.messages).map(\.id)).count == all.count, "no message twice")
        let best = try await corpus.find("deploy", order: .best)
        #expect(Set(best) == Set(all))
        #expect(best.firstIndex(of: "repeated")! < best.firstIndex(of: "long")!, "three times before once among many words")
        let bestPage = try await corpus.search.search(MessageSearch(
            viewer: corpus.world.ana.id, query: .parse("deploy"), dayStart: Corpus.dayStart, order: .best, offset: 4, limit: 4
        ))
        #expect(bestPage.messages.count == all.count - 4 && !bestPage.hasMore)
    }

    @Test(arguments: StoreKind.allCases)
    func whatPeopleTypeIsNeverReadAsTheIndexsSyntax(_ kind: StoreKind) async throws {
        let corpus = try await Corpus(kind)
        for text in ["\" OR \"", "deploy*", "NEAR(deploy code)", "deploy OR secret", "-deploy", "^deploy", "a:b", "'; DROP TABLE message; --",
                     "script>", "&amp;", "\"", "*", "(", ")", ":*", "\\", "''", "% _"] {
            _ = try await corpus.find(text)
        }
        #expect(try await corpus.find("deploy OR secret").isEmpty, "OR is a word like any other")
        for scope in ["c1", "c2", "c3", "u1", "u2", "searchScope", "body"] {
            #expect(try await corpus.find(scope).isEmpty, "\(scope): the index's own words for chats and people are not text")
        }
        #expect(try await corpus.find("script alert") == ["hostile"])
        #expect(try await corpus.find("amp") == ["hostile"])
        #expect(try await corpus.find("deploy").count == 6, "the store is unchanged")
    }
}
