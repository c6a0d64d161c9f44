import Foundation
import ParlorDomain
import Synchronization

/// The in-memory image service, with processing held until the test lets it go: a photo can be seen
/// pending, then ready (or failed, when the test says so).
final class GatedImageService: ImageService {
    private let inner = InMemoryImageService()
    private struct Gate {
        var isOpen = false
        var fails = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }
    private let gate = Mutex(Gate())

    /// Lets every held and later photo through; `failing`, each is refused as unreadable.
    func open(failing: Bool = false) {
        let waiting = gate.withLock { gate in
            gate.isOpen = true
            gate.fails = failing
            defer { gate.waiting = [] }
            return gate.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    func inspect(file path: String) async throws(ImageRefusal) -> ImageHeader {
        try await inner.inspect(file: path)
    }

    /// Photos being processed and held now.
    var held: Int { gate.withLock { $0.waiting.count } }

    func process(file path: String, for purpose: ImagePurpose) async throws(ImageRefusal) -> ProcessedImage {
        // The file is read now, as the real service reads it before its turn ends.
        let result: Result<ProcessedImage, ImageRefusal>
        do { result = .success(try await inner.process(file: path, for: purpose)) } catch { result = .failure(error) }
        await withCheckedContinuation { continuation in
            let held = gate.withLock { gate in
                if gate.isOpen { return false }
                gate.waiting.append(continuation)
                return true
            }
            if !held { continuation.resume() }
        }
        if gate.withLock({ $0.fails }) { throw .unreadable }
        return try result.get()
    }
}
