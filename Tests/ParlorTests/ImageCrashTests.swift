import Foundation
import HTTPTestSupport
import Synchronization
import Testing

/// `parlor serve` killed while people upload photos: every image it recorded has its files afterwards.
/// (Files are written, flushed and renamed into place before the row that names them is committed.)
@Suite struct ImageCrashTests {
    /// A 240x180 JPEG, processed by the real libvips in `parlor serve`.
    static let photo = Array(Data(base64Encoded: "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCUoKSj/2wBDAQcHBwoIChMKChMoGhYaKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCj/wAARCAC0APADASIAAhEBAxEB/8QAFwABAQEBAAAAAAAAAAAAAAAAAAMEBv/EABYQAQEBAAAAAAAAAAAAAAAAAAASEf/EABcBAQEBAQAAAAAAAAAAAAAAAAADBAX/xAAVEQEBAAAAAAAAAAAAAAAAAAAAEv/aAAwDAQACEQMRAD8A4iCF5Jd+nDlCCF5JKJQgheSSiUIIXkkolCCF5JKJQgheSSiUIIXkkolCCF5JKJQgheSSiUIIXkkolCCF5JKJQgheSSiUIIXkkolCCF5JKJQgheSSiV5JXklnpaUJJXkkolCSV5JKJQkleSSiUJJXkkolCSV5JKJQkleSSiUJJXkkolCSV5JKJQkleSSiUJJXkkolCSV5JKJQkleSSiUJJXkkolCSV5JKJXgheSUKWlCCF5JKJQgheSSiUIIXkkolCCF5JKJQgheSSiUIIXkkolCCF5JKJQgheSSiUIIXkkolCCF5JKJQgheSSiUIIXkkolCCF5JKJQgheSSiV5JWklnpaUZJWkkolGSVpJKJRklaSSiUZJWkkolGSVpJKJRklaSSiUZJWkkolGSVpJKJRklaSSiUZJWkkolGSVpJKJRklaSSiUZJWkkolGSVpJKJXkleCEKWlCSV4IKJQkleCCiUJJXggolCSV4IKJQkleCCiUJJXggolCSV4IKJQkleCCiUJJXggolCSV4IKJQkleCCiUJJXggolCSV4IKJQkleCCiV4IXklnpaUIIXkkolCCF5JKJQgheSSiUIIXkkolCCF5JKJQgheSSiUIIXkkolCCF5JKJQgheSSiUIIXkkolCCF5JKJQgheSSiUIIXkkolCCF5JKJXkloghnpaWeSWiCCiWeSWiCCiWeSWiCCiWeSWiCCiWeSWiCCiWeSWiCCiWeSWiCCiWeSWiCCiWeSWiCCiWeSWiCCiWeSWiCCiWeSWiCCiWeSWiCCiWeSWiCCiVoIXklClZQgheSSiUIIXkkolCCF5JKJQgheSSiUIIXkkolCCF5JKJQgheSSiUIIXkkolCCF5JKJQgheSSiUIIXkkolCCF5JKJQgheSSiUIIXkkoleSV5JZ6WlCSV5JKJQkleSSiUJJXkkolCSV5JKJQkleSSiUJJXkkolCSV5JKJQkleSSiUJJXkkolCSV5JKJQkleSSiUJJXkkolCSV5JKJQkleSSiV5JXghnpaUJJXggolCSV4IKJQkleCCiUJJXggolCSV4IKJQkleCCiUJJXggolCSV4IKJQkleCCiUJJXggolCSV4IKJQkleCCiUJJXggolCSV4IKJXghaSUKWlGCFpJKJRghaSSiUYIWkkolGCFpJKJRghaSSiUYIWkkolGCFpJKJRghaSSiUYIWkkolGCFpJKJRghaSSiUYIWkkolGCFpJKJRghaSSiV8MBJQwwAMMADDAAwwAMMADDAAwwAMMADDAAwwAMMADDAAwwAMMAH/2Q==")!)

    @Test(.timeLimit(.minutes(2))) func aParlorKilledDuringUploadsLeavesNoImageWithoutItsFiles() async throws {
        let first = try ServeCommandTests.RunningParlor(arguments: [])
        try await first.waitUntilListening()
        // Three people signed in: what each browser keeps (its cookies and the page's token).
        var people: [(cookies: [String: String], csrf: String)] = []
        for index in 0..<3 {
            let person = Visitor(port: first.port)
            #expect(try await person.signUp("crash\(index)").status == 303)
            try await person.get("/settings")
            people.append((person.cookies, person.csrf))
        }
        // Each uploads again and again until the server is gone.
        let port = first.port
        let browsers = people
        // Counted as they are answered, so the kill comes once several are stored, with more on the way.
        let storedSoFar = StoredCount()
        let uploads = Task {
            await withTaskGroup(of: Int.self) { group in
                for (cookies, csrf) in browsers {
                    group.addTask {
                        let browser = Visitor(port: port)
                        browser.cookies = cookies
                        browser.csrf = csrf
                        var stored = 0
                        for _ in 0..<500 {
                            guard let response = try? await browser.postFile(
                                "/settings/avatar", field: "avatar", filename: "face.jpg", contentType: "image/jpeg", bytes: Self.photo
                            ) else { break }
                            if response.status == 303 {
                                stored += 1
                                storedSoFar.value.add(1, ordering: .relaxed)
                            }
                        }
                        return stored
                    }
                }
                return await group.reduce(0, +)
            }
        }
        #expect(await eventually(within: 60) { storedSoFar.value.load(ordering: .relaxed) >= 6 }, "several stored before the kill")
        _ = try await first.terminate(with: SIGKILL)
        let stored = await uploads.value
        #expect(stored > 0, "photos were stored before the kill")

        let second = try ServeCommandTests.RunningParlor(arguments: [], database: first.database)
        try await second.waitUntilListening()
        var checked = 0
        for person in people {
            let visitor = Visitor(port: second.port)
            visitor.cookies = person.cookies
            let settings = try await visitor.get("/settings").text
            guard let small = settings.firstMatch(of: /src="(\/images\/\d+\/avatarSmall)"/).map({ String($0.1) }) else { continue }
            for url in [small, small.replacingOccurrences(of: "avatarSmall", with: "avatar")] {
                let image = try await visitor.get(url)
                #expect(image.status == 200, "\(url) after the kill: \(image.status)")
                #expect(image.header("Content-Type")?.hasPrefix("image/") == true && !image.body.isEmpty)
            }
            checked += 1
        }
        #expect(checked > 0, "at least one person's photo was recorded before the kill")
        _ = try await second.terminate()
    }

    /// Photos in messages, sent by two people to each other until the kill: after the restart every photo
    /// the store names is finished (the pending ones resumed from their kept uploads), each thumbnail is
    /// there, none failed, and no upload is left over.
    @Test(.timeLimit(.minutes(2))) func aParlorKilledWhilePhotosAreSentFinishesEveryPhotoItRecorded() async throws {
        let first = try ServeCommandTests.RunningParlor(arguments: [])
        try await first.waitUntilListening()
        let ana = Visitor(port: first.port)
        #expect(try await ana.signUp("crashana").status == 303)
        let ben = Visitor(port: first.port)
        #expect(try await ben.signUp("crashben").status == 303)
        let chat = try await ana.startChat(with: "crashben")
        try await ana.get(chat)
        try await ben.get(chat)
        let port = first.port
        let senders = [(ana.cookies, ana.csrf), (ben.cookies, ben.csrf)]
        // Counted as they are answered, so the kill comes once several are stored, with more on the way.
        let storedSoFar = StoredCount()
        let uploads = Task {
            await withTaskGroup(of: Int.self) { group in
                for (index, (cookies, csrf)) in senders.enumerated() {
                    group.addTask {
                        let browser = Visitor(port: port)
                        browser.cookies = cookies
                        browser.csrf = csrf
                        var stored = 0
                        for number in 0..<500 {
                            guard let response = try? await browser.postFile(
                                chat + "/messages", field: "photo", filename: "trip.jpg", contentType: "image/jpeg", bytes: Self.photo,
                                fields: [("body", "Photo \(number)"), ("token", "crash-\(index)-\(number)")]
                            ) else { break }
                            if response.status == 303 {
                                stored += 1
                                storedSoFar.value.add(1, ordering: .relaxed)
                            }
                        }
                        return stored
                    }
                }
                return await group.reduce(0, +)
            }
        }
        #expect(await eventually(within: 60) { storedSoFar.value.load(ordering: .relaxed) >= 6 }, "several stored before the kill")
        _ = try await first.terminate(with: SIGKILL)
        #expect(await uploads.value > 0, "photos were sent before the kill")

        let second = try ServeCommandTests.RunningParlor(arguments: [], database: first.database)
        try await second.waitUntilListening()
        let reader = Visitor(port: second.port)
        reader.cookies = ana.cookies
        // The pending ones are resumed in the background: a bounded wait until none is left.
        var page = ""
        for _ in 0..<200 {
            page = try await reader.get(chat).text
            if !page.contains("Processing photo…") { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(!page.contains("Processing photo…"), "every photo recorded before the kill is finished")
        #expect(!page.contains("could not be processed"), "none failed: each kept its upload until it was done")
        let thumbnails = page.matches(of: /src="(\/images\/\d+\/thumbnail)"/).map { String($0.1) }
        #expect(!thumbnails.isEmpty)
        for url in thumbnails {
            let image = try await reader.get(url)
            #expect(image.status == 200 && image.header("Content-Type")?.hasPrefix("image/") == true, "\(url): \(image.status)")
        }
        let originals = URL(fileURLWithPath: first.database).deletingLastPathComponent().appendingPathComponent("media/originals").path
        let left = (try? FileManager.default.contentsOfDirectory(atPath: originals)) ?? []
        // Uploads moved in just before the kill, whose message was never stored, wait for the sweep's ten minutes.
        #expect(left.count <= 2, "at most one upload per sender left without its message: \(left)")
        _ = try await second.terminate()
    }
}

/// How many uploads the server has answered as stored, across the uploading tasks.
final class StoredCount: Sendable {
    let value = Atomic<Int>(0)
}
