import Synchronization

/// Work from many callers done in batches: while one batch is being done, the items that arrive wait and
/// go together in the next (at most `batchLimit` at a time). What the stores' group commits share: one
/// transaction, one disk flush, for every send that arrived meanwhile.
public final class BatchingQueue<Item: Sendable, Output: Sendable>: Sendable {
    public typealias Process = @Sendable ([Item]) async -> [Result<Output, any Error>]

    private struct Job {
        let item: Item
        let continuation: CheckedContinuation<Result<Output, any Error>, Never>
    }

    private struct Queue {
        var jobs: [Job] = []
        var isDraining = false
    }

    private let queue = Mutex(Queue())
    private let batchLimit: Int
    private let process: Process

    /// `process` answers one result per item, in order.
    public init(batchLimit: Int, process: @escaping Process) {
        self.batchLimit = max(1, batchLimit)
        self.process = process
    }

    /// Queues `item` and answers its result once its batch is done.
    public func submit(_ item: Item) async throws -> Output {
        let result = await withCheckedContinuation { continuation in
            let startsDraining = queue.withLock { queue in
                queue.jobs.append(Job(item: item, continuation: continuation))
                guard !queue.isDraining else { return false }
                queue.isDraining = true
                return true
            }
            if startsDraining { Task { await self.drain() } }
        }
        return try result.get()
    }

    private func drain() async {
        while true {
            let jobs: [Job] = queue.withLock { queue in
                let taken = Array(queue.jobs.prefix(batchLimit))
                queue.jobs.removeFirst(taken.count)
                if taken.isEmpty { queue.isDraining = false }
                return taken
            }
            if jobs.isEmpty { return }
            let results = await process(jobs.map(\.item))
            for (index, job) in jobs.enumerated() {
                job.continuation.resume(returning: index < results.count ? results[index] : .failure(BatchingQueueError.noResult))
            }
        }
    }
}

/// `process` answered fewer results than items: a mistake in the caller, reported to the items left over.
public struct BatchingQueueError: Error {
    static let noResult = BatchingQueueError()
}
