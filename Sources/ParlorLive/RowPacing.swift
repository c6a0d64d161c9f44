/// How one page's chat list keeps pace with a busy room. A room of thousands moves its row on every member's
/// page at each message; on a page showing another chat, only the row's newest state matters. So the row of a
/// chat that is not open, and the unread badge, go out at most once per `interval`: the first change at once,
/// those that follow within the interval held, and the newest of them sent when it ends. Nothing is lost or
/// reordered that a person could see:
/// - a held move goes out before any later row moves (the list keeps its order), and a replacement of the
///   whole list drops what was held (it is newer);
/// - the open chat's row and everything else (cells, headers, toasts, leaving) pass at once.
/// A value: the page's listener keeps it under its lock, with the time read from one clock.
struct RowPacing {
    let interval: Double
    /// The open chat's row ("chat-item-7"): never held.
    let openRow: String?

    /// When each row (and the badge) last went out.
    private var sentAt: [String: Double] = [:]
    /// Held updates of each row, oldest row first.
    private var held: [String: [ScreenUpdate]] = [:]
    private var order: [String] = []
    /// When what is held is due; nil when nothing is.
    private(set) var dueAt: Double?

    static let badgeKey = "unread-badge"

    init(interval: Double, openChat: String?) {
        self.interval = interval
        openRow = openChat.map { "chat-item-\($0)" }
    }

    var isHolding: Bool { !order.isEmpty }

    /// What of `updates` the page gets now, in order; the rest is held until ``dueAt``.
    mutating func admit(_ updates: [ScreenUpdate], now: Double) -> [ScreenUpdate] {
        var out: [ScreenUpdate] = []
        var index = 0
        while index < updates.count {
            let update = updates[index]
            if let row = Self.row(of: update) {
                // A move is a removal and a prepend of the same row, kept together.
                if update.action == .remove, index + 1 < updates.count, updates[index + 1].action == .prepend,
                   Self.row(of: updates[index + 1]) == row {
                    admit(row: row, [update, updates[index + 1]], moves: true, supersedes: true, now: now, into: &out)
                    index += 2
                    continue
                }
                let moves = update.action != .replace
                admit(row: row, [update], moves: moves, supersedes: moves, now: now, into: &out)
            } else if update.action == .badge {
                admit(row: Self.badgeKey, [update], moves: false, supersedes: true, now: now, into: &out)
            } else {
                if update.action == .replace, update.target == "chat-list" { dropRows() }
                out.append(update)
            }
            index += 1
        }
        return out
    }

    /// Everything held, when it is due at `now`; nothing otherwise.
    mutating func due(now: Double) -> [ScreenUpdate] {
        guard let dueAt, dueAt <= now else { return [] }
        var out: [ScreenUpdate] = []
        release(now: now, into: &out)
        return out
    }

    /// `moves`: the row changes place (or comes or goes); `supersedes`: `parts` make whatever of the row is
    /// held pointless (a move, a badge); a row's replacement supersedes only the replacement held before it.
    private mutating func admit(
        row: String, _ parts: [ScreenUpdate], moves: Bool, supersedes: Bool, now: Double, into out: inout [ScreenUpdate]
    ) {
        if let kept = held[row] {
            held[row] = supersedes ? parts : kept.filter { $0.action != .replace } + parts
            return
        }
        if row != openRow, let last = sentAt[row], now - last < interval {
            held[row] = parts
            order.append(row)
            dueAt = min(dueAt ?? .infinity, last + interval)
            return
        }
        // Older held moves first, so that the list's order is the order things happened in.
        if moves { release(now: now, into: &out) }
        out += parts
        sentAt[row] = now
    }

    private mutating func release(now: Double, into out: inout [ScreenUpdate]) {
        for row in order {
            out += held[row] ?? []
            sentAt[row] = now
        }
        held.removeAll(keepingCapacity: true)
        order.removeAll(keepingCapacity: true)
        dueAt = nil
    }

    /// The whole list is being replaced: its rows are newer than any held, the badge is not part of it.
    private mutating func dropRows() {
        order.removeAll { $0 != Self.badgeKey }
        held = held.filter { $0.key == Self.badgeKey }
        if order.isEmpty { dueAt = nil }
    }

    /// The list row an update changes ("chat-item-7"), if it changes one.
    static func row(of update: ScreenUpdate) -> String? {
        if update.target.hasPrefix("chat-item-") { return update.target }
        if update.action == .prepend, case .chatListItem(let item)? = update.fragment { return item.domID }
        return nil
    }
}
