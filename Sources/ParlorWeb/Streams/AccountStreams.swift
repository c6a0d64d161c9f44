import ServerSentEvents
import MicroHTTP
import ParlorDomain
import Synchronization

/// The event streams each account holds open, oldest first, and at most `limit` of them: one account
/// cannot tie up the server's memory by opening streams without end. A new stream past the limit closes
/// the account's oldest, after a `retry:` that tells that page to reconnect later (a page left open in a
/// forgotten tab comes back when it is looked at; a page in use reconnects and takes its place again).
public final class AccountStreams: Sendable {
    private struct Open {
        let id: ObjectIdentifier
        let stream: EventStream
        /// The session that opened it.
        let session: String
    }

    let limit: Int
    let evictedRetry: Duration
    private let open = Mutex<[UserID: [Open]]>([:])

    public init(limit: Int, evictedRetry: Duration) {
        self.limit = max(1, limit)
        self.evictedRetry = evictedRetry
    }

    /// Counts `stream` as one of `user`'s, closing the oldest past the limit; it stops counting when its
    /// connection ends.
    func add(_ stream: EventStream, for user: UserID, session: String) {
        let id = ObjectIdentifier(stream)
        let evicted = open.withLock { open -> ArraySlice<Open> in
            open[user, default: []].append(Open(id: id, stream: stream, session: session))
            let excess = open[user, default: []].count - limit
            guard excess > 0 else { return [] }
            defer { open[user]?.removeFirst(excess) }
            return open[user, default: []].prefix(excess)
        }
        let milliseconds = Int(evictedRetry.components.seconds) * 1000 + Int(evictedRetry.components.attoseconds / 1_000_000_000_000_000)
        for old in evicted {
            old.stream.send(ServerSentEvent.retry(milliseconds: milliseconds))
            old.stream.close()
        }
        stream.onClose { [weak self] in self?.remove(id, for: user) }
    }

    /// The sessions of `user`'s open streams.
    func sessions(of user: UserID) -> [String] {
        open.withLock { open in Array(Set(open[user, default: []].map(\.session))) }
    }

    /// The sessions of every open stream.
    func allSessions() -> [String] {
        open.withLock { open in Array(Set(open.values.joined().map(\.session))) }
    }

    /// Closes the streams of `sessions` (they ended): nothing more reaches a browser that was signed out. Its page
    /// finds out when it reconnects. Answers how many closed.
    @discardableResult
    func close(sessions: Set<String>) -> Int {
        let closing = open.withLock { open in open.values.joined().filter { sessions.contains($0.session) } }
        for stream in closing { stream.stream.close() }
        return closing.count
    }

    private func remove(_ id: ObjectIdentifier, for user: UserID) {
        open.withLock { open in
            open[user]?.removeAll { $0.id == id }
            if open[user]?.isEmpty == true { open[user] = nil }
        }
    }
}
