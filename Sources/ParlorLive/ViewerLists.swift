import ParlorDomain
import Synchronization

/// The chat lists of the people with pages open here, one ``ViewerList`` each, kept from their first page's
/// registration until their last page closes. Each has a lock of its own: the lanes update different
/// people at once, and what one person's pages receive (their rows and badge) is changed and sent under
/// that person's lock, so two lanes never hand them an older total after a newer one.
///
/// A list is read from the store once, by the registration that finds none. Events that come while it is
/// being read are not lost: a stored message is applied after the read (a message the read saw already is
/// not counted twice); any other change makes the read start again.
final class ViewerLists: Sendable {
    /// One person's list and who is waiting for it.
    final class Entry: Sendable {
        fileprivate struct State {
            /// Pages registered or registering.
            var pages = 0
            var phase = Phase.empty
            /// Messages stored while the list was being read, applied after it.
            var sentWhileLoading: [(message: Message, senderName: String?)] = []
            var changedWhileLoading = false
            var waiters: [CheckedContinuation<Bool, Never>] = []
        }

        fileprivate enum Phase {
            /// Nobody is reading the list: the next registration reads it.
            case empty
            case loading
            case ready(ViewerList)
        }

        fileprivate let state = Mutex(State())

        /// What a change that came while loading does to the load.
        enum Pending {
            /// Stored messages: applied once the list is read.
            case sent([(message: Message, senderName: String?)])
            /// Anything else: the list is read again.
            case other
        }

        /// Runs `body` with the list under this person's lock; while the list is being read, notes `pending`
        /// instead and returns nil.
        func update<T>(_ pending: Pending, _ body: (inout ViewerList) -> T) -> T? {
            state.withLock { state in
                switch state.phase {
                case .ready(var list):
                    state.phase = .empty
                    defer { state.phase = .ready(list) }
                    return body(&list)
                case .loading:
                    switch pending {
                    case .sent(let messages): state.sentWhileLoading += messages
                    case .other: state.changedWhileLoading = true
                    }
                    return nil
                case .empty:
                    return nil
                }
            }
        }

        /// Runs `body` with the list (nil when there is none) under this person's lock.
        func withList<T>(_ body: (ViewerList?) -> T) -> T {
            state.withLock { state in
                if case .ready(let list) = state.phase { return body(list) }
                return body(nil)
            }
        }

        /// The registration that reads the list hands it over. False when a change other than a stored message
        /// came meanwhile and `accept` is false: read it again. Otherwise the messages stored meanwhile are
        /// applied, the list is kept, and the pages waiting for it go on.
        func loaded(_ read: ViewerList, accept: Bool) -> Bool {
            let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>]? in
                guard accept || !state.changedWhileLoading else {
                    state.changedWhileLoading = false
                    state.sentWhileLoading = []
                    return nil
                }
                var list = read
                for sent in state.sentWhileLoading { _ = list.sent(sent.message, senderName: sent.senderName) }
                state.sentWhileLoading = []
                state.changedWhileLoading = false
                state.phase = .ready(list)
                defer { state.waiters = [] }
                return state.waiters
            }
            guard let waiters else { return false }
            for waiter in waiters { waiter.resume(returning: true) }
            return true
        }

        /// The read failed: the next registration reads it again; those waiting are refused.
        func failedLoading() {
            let waiters = state.withLock { state in
                state.phase = .empty
                state.sentWhileLoading = []
                state.changedWhileLoading = false
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: false) }
        }

        /// Events were missed: the list is read again by the next registration (every page reloads).
        func forget() {
            state.withLock { state in
                switch state.phase {
                case .ready: state.phase = .empty
                case .loading: state.changedWhileLoading = true
                case .empty: break
                }
            }
        }

        /// One more page; how its registration gets the list (reading it when nobody does).
        fileprivate func take() -> Joined {
            state.withLock { state in
                state.pages += 1
                switch state.phase {
                case .ready: return .ready
                case .loading: return .loading
                case .empty:
                    state.phase = .loading
                    return .mustLoad
                }
            }
        }

        /// Waits until the registration reading the list has handed it over; false when it failed.
        func ready() async -> Bool {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = state.withLock { state -> Bool? in
                    switch state.phase {
                    case .ready: return true
                    case .empty: return false
                    case .loading:
                        state.waiters.append(continuation)
                        return nil
                    }
                }
                if let now { continuation.resume(returning: now) }
            }
        }
    }

    /// How a registration finds its person's list.
    enum Joined {
        /// The list is kept already.
        case ready
        /// Another registration is reading it: wait with ``Entry/ready()``.
        case loading
        /// This registration reads it and hands it over with ``Entry/loaded(_:accept:)``.
        case mustLoad
    }

    private let entries = Mutex<[UserID: Entry]>([:])

    /// A page of `viewer` is being registered: their entry (made if needed), and how to get the list.
    /// Every join is matched by one ``leave(_:_:)``.
    func join(_ viewer: UserID) -> (Entry, Joined) {
        entries.withLock { entries in
            let entry = entries[viewer] ?? Entry()
            entries[viewer] = entry
            return (entry, entry.take())
        }
    }

    /// A page of `viewer` closed (or failed to register): the list goes with their last page.
    func leave(_ viewer: UserID, _ entry: Entry) {
        entries.withLock { entries in
            let last = entry.state.withLock { state in
                state.pages -= 1
                return state.pages <= 0
            }
            if last, entries[viewer] === entry { entries[viewer] = nil }
        }
    }

    /// The list of `viewer`, when they have a page open here.
    func entry(_ viewer: UserID) -> Entry? { entries.withLock { $0[viewer] } }

    /// Everyone with a page open here.
    var all: [(UserID, Entry)] { entries.withLock { $0.map { ($0.key, $0.value) } } }

    /// How many people have a list kept.
    var count: Int { entries.withLock { $0.count } }
}
