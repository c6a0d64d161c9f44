import Foundation
import HTTPTestSupport
import Testing

/// Many pages at once, as a crowd loads them: every one is answered. Signed-in requests read the session
/// on their own thread while pages read through the pool; a read that blocked a thread the pool's readers
/// need to finish would stop the server here.
@Suite struct ConcurrentPagesTests {
    @Test(arguments: [0, 8 * 1024 * 1024])
    func aCrowdOfSignedInPagesIsAllAnswered(pageCacheBytes: Int) async throws {
        try await RunningParlor.with(configure: { $0.pageCacheBytes = pageCacheBytes }) { parlor in
            let (ana, _, chat) = try await ConversationTests.anaAndBen(parlor)
            for index in 0..<5 { try await ana.say("Message \(index)", in: chat) }
            let cookies = ana.cookies
            let port = parlor.port
            let answered = try await withThrowingTaskGroup(of: Int.self) { group in
                for worker in 0..<48 {
                    group.addTask {
                        let visitor = Visitor(port: port)
                        visitor.cookies = cookies
                        var ok = 0
                        for round in 0..<15 {
                            let page = try await visitor.get((worker + round) % 3 == 0 ? "/chats" : chat)
                            if page.status == 200, page.text.contains("Message 4") { ok += 1 }
                        }
                        return ok
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(answered == 48 * 15)
        }
    }
}
