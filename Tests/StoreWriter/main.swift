// parlor-store-writer PATH WRITERS: opens the SQLite store at PATH and has WRITERS tasks send messages
// as fast as the store acknowledges them, printing "ack TOKEN ID" on stderr after each acknowledgement,
// until it is killed. The crash test kills it with SIGKILL and checks every acknowledged message is there.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ParlorDomain
import ParlorStorage

/// Writes one line to stderr in one call, so lines from concurrent writers never interleave.
func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    bytes.withUnsafeBytes { _ = write(2, $0.baseAddress, $0.count) }
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let writers = Int(arguments[2]) else {
    say("usage: parlor-store-writer PATH WRITERS")
    exit(64)
}
let store = try SQLiteChatStore(path: arguments[1])
let run = String(getpid())

func account(_ handle: String) async throws -> User {
    if let user = try await store.user(handle: handle) { return user }
    return try await store.createUser(NewUser(handle: handle, displayName: handle), at: Date())
}

let ana = try await account("ana")
let ben = try await account("ben")
let chat: ChatID
do {
    chat = try await store.createChat(between: ana.id, and: ben.id, at: Date()).id
} catch Refusal.chatExists(let existing) {
    chat = existing
}
say("ready")


await withTaskGroup(of: Void.self) { group in
    for writer in 0..<writers {
        group.addTask {
            var index = 0
            while true {
                let token = "r\(run)-w\(writer)-\(index)"
                guard let message = try? await store.send(OutgoingMessage(
                    chatID: chat, senderID: writer % 2 == 0 ? ana.id : ben.id, body: token, token: token, createdAt: Date()
                )) else { continue }
                say("ack \(token) \(message.id)")
                index += 1
            }
        }
    }
}
