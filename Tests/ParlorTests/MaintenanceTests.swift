import Foundation
import HTTPTestSupport
import ParlorDomain
import ParlorStorage
import Synchronization
import Testing

/// `parlor backup` and `parlor migrate`, run as an operator runs them, beside a serving Parlor.
@Suite struct MaintenanceTests {
    /// What the senders had acknowledged, and when; and whether they should stop.
    final class Load: Sendable {
        let acknowledged = Mutex<[(body: String, at: ContinuousClock.Instant)]>([])
        let stop = Atomic<Bool>(false)
    }

    static func run(_ arguments: [String]) async throws -> (status: Int32?, errors: String) {
        let child = try ChildProcess(executable: ServeCommandTests.executable.path, arguments: arguments)
        let status = await child.waitForExit(within: 30)
        return (status, child.readErrors())
    }

    @Test(.timeLimit(.minutes(2))) func aBackupUnderAWriteLoadHoldsEveryMessageAcknowledgedBeforeItBegan() async throws {
        // Quiet: nobody reads its log during the load, and a full pipe would stop it.
        let parlor = try ServeCommandTests.RunningParlor(arguments: ["--log-level", "notice"])
        try await parlor.waitUntilListening()
        let ana = Visitor(port: parlor.port)
        #expect(try await ana.signUp("backupana").status == 303)
        let ben = Visitor(port: parlor.port)
        #expect(try await ben.signUp("backupben").status == 303)
        let chat = try await ana.startChat(with: "backupben")
        try await ana.get(chat)
        // Four senders, each message acknowledged (204) before the next; what was acknowledged, and when.
        let state = Load()
        let port = parlor.port, cookies = ana.cookies, csrf = ana.csrf
        let load = Task {
            await withTaskGroup(of: Void.self) { group in
                for sender in 0..<4 {
                    group.addTask {
                        let visitor = Visitor(port: port)
                        visitor.cookies = cookies
                        visitor.csrf = csrf
                        for number in 0..<5_000 where !state.stop.load(ordering: .relaxed) {
                            let body = "load \(sender)-\(number)"
                            let response: TestResponse
                            do {
                                response = try await visitor.post(
                                    chat + "/messages", [("body", body), ("token", "load-\(sender)-\(number)")], headers: ["X-Parlor-Script: 1"]
                                )
                            } catch {
                                print("sender \(sender) stopped at \(number): \(error)")
                                break
                            }
                            if response.status == 204 { state.acknowledged.withLock { $0.append((body, .now)) } }
                        }
                    }
                }
            }
        }
        // A load under way (bounded: ten seconds at most), however busy the machine.
        for _ in 0..<1_000 where state.acknowledged.withLock({ $0.count }) < 40 { try await Task.sleep(for: .milliseconds(10)) }
        let began = ContinuousClock.now
        let copy = parlor.database + ".backup"
        let backup = try await Self.run(["backup", copy, "--database", parlor.database])
        // And on after it: more acknowledged than when it began (bounded too).
        let atEnd = state.acknowledged.withLock { $0.count }
        for _ in 0..<1_000 where state.acknowledged.withLock({ $0.count }) < atEnd + 20 { try await Task.sleep(for: .milliseconds(10)) }
        state.stop.store(true, ordering: .relaxed)
        await load.value
        #expect(backup.status == 0, "parlor backup: \(backup.errors)")

        let before = state.acknowledged.withLock { $0.filter { $0.at < began }.map(\.body) }
        let all = state.acknowledged.withLock { $0.map(\.body) }
        #expect(before.count > 20, "there was a write load before the backup began")
        let store = try SQLiteChatStore(path: copy)
        let id = ChatID(Int64(chat.split(separator: "/").last!)!)
        let copied = Set(try await store.messages(in: id, before: nil, limit: 100_000).messages.map(\.body))
        #expect(Set(before).isSubset(of: copied), "\(Set(before).subtracting(copied).count) acknowledged messages missing")
        #expect(copied.subtracting(all).isEmpty, "nothing that was not sent")
        #expect(all.count > before.count, "writes went on while it copied")
        let status = try await parlor.terminate()
        #expect(status == 0, "\(parlor.log.suffix(3000))")
    }

    @Test(.timeLimit(.minutes(1))) func theyExitWithTheReasonWhenTheyCannot() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parlor-maintenance-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = folder + "/parlor.sqlite"

        let missing = try await Self.run(["backup", folder + "/copy.sqlite", "--database", database])
        #expect(missing.status == 66 && missing.errors.contains("there is no database at"))
        #expect(!FileManager.default.fileExists(atPath: database), "a backup never creates the database it copies")

        #expect(try await Self.run(["migrate", "--database", database]).status == 0)
        #expect(FileManager.default.fileExists(atPath: database))
        #expect(try await Self.run(["migrate", "--database", database]).status == 0, "again: nothing to do, still 0")

        try Data("mine".utf8).write(to: URL(fileURLWithPath: folder + "/taken.sqlite"))
        let taken = try await Self.run(["backup", folder + "/taken.sqlite", "--database", database])
        #expect(taken.status == 73 && taken.errors.contains("exists already"))
        #expect(try String(contentsOfFile: folder + "/taken.sqlite", encoding: .utf8) == "mine", "never overwritten")

        try Data("not a database".utf8).write(to: URL(fileURLWithPath: folder + "/broken.sqlite"))
        let broken = try await Self.run(["migrate", "--database", folder + "/broken.sqlite"])
        #expect(broken.status == 74 && broken.errors.contains("migration failed"))
        #expect(try await Self.run(["backup", folder + "/copy.sqlite", "--database", database]).status == 0)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.contains(".part-") }
        #expect(leftovers.isEmpty)
    }
}
