import Synchronization

/// Streamed uploads in progress, overall and per client address: past either limit a new one is refused
/// with 503 before its admission runs, so a crowd of slow uploads can hold neither the disk nor the
/// admission's store reads. A slot is taken at the head and given back when the request is over.
final class UploadSlots: Sendable {
    private let total: Int
    private let perAddress: Int
    private let state = Mutex<(count: Int, byAddress: [String: Int])>((0, [:]))

    init(total: Int, perAddress: Int) {
        self.total = total
        self.perAddress = perAddress
    }

    /// Takes a slot for `address`; nil when either limit is reached.
    func take(for address: String) -> Slot? {
        let taken = state.withLock { state -> Bool in
            let mine = state.byAddress[address, default: 0]
            guard state.count < total, mine < perAddress else { return false }
            state.count += 1
            state.byAddress[address] = mine + 1
            return true
        }
        return taken ? Slot(owner: self, address: address) : nil
    }

    /// Uploads in progress now.
    var count: Int { state.withLock { $0.count } }

    fileprivate func release(_ address: String) {
        state.withLock { state in
            state.count -= 1
            let mine = state.byAddress[address, default: 1] - 1
            state.byAddress[address] = mine > 0 ? mine : nil
        }
    }

    /// One upload's place; given back when the request's context goes.
    final class Slot {
        private let owner: UploadSlots
        private let address: String

        fileprivate init(owner: UploadSlots, address: String) {
            self.owner = owner
            self.address = address
        }

        deinit { owner.release(address) }
    }
}
