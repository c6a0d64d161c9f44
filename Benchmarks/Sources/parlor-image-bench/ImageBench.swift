import Foundation
import ParlorDomain
import ParlorImages

/// Photos per second through Parlor's image service (display version and thumbnail of one upload, as a
/// message needs them), one at a time and four at once, and the process's peak memory.
///   parlor-image-bench PHOTO [--rounds N]
@main
struct ImageBench {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2 else {
            FileHandle.standardError.write(Data("usage: parlor-image-bench PHOTO [--rounds N]\n".utf8))
            exit(2)
        }
        let photo = arguments[1]
        let asked = arguments.firstIndex(of: "--rounds").flatMap { $0 + 1 < arguments.count ? Int(arguments[$0 + 1]) : nil }
        let rounds = asked.map { min(max($0, 1), 10_000) } ?? 20
        guard let service = VipsImageService(concurrency: 4, queueLimit: 64) else {
            FileHandle.standardError.write(Data("libvips did not start\n".utf8))
            exit(1)
        }
        let rssAtStart = peakRSSMegabytes()
        // One to warm up (libvips loads its codecs on first use).
        let first = try await service.process(file: photo, for: .message)
        let rssAfterFirst = peakRSSMegabytes()
        let sizes = first.versions.map { "\($0.role.rawValue) \($0.width)x\($0.height) \($0.format.rawValue) \($0.bytes.count / 1024) KB" }

        let serialStart = ContinuousClock.now
        for _ in 0..<rounds { _ = try await service.process(file: photo, for: .message) }
        let serial = Double(rounds) / seconds(ContinuousClock.now - serialStart)
        let rssAfterSerial = peakRSSMegabytes()

        let parallelStart = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { for _ in 0..<rounds { _ = try await service.process(file: photo, for: .message) } }
            }
            try await group.waitForAll()
        }
        let parallel = Double(rounds * 4) / seconds(ContinuousClock.now - parallelStart)
        print("versions: " + sizes.joined(separator: ", "))
        print(String(format: "parlor serial: %.2f images/s", serial))
        print(String(format: "parlor 4 at once: %.2f images/s", parallel))
        print("parlor peak RSS: started \(rssAtStart) MB, after one image \(rssAfterFirst) MB, one at a time \(rssAfterSerial) MB, four at once \(peakRSSMegabytes()) MB")
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The process's peak resident memory so far (VmHWM), in MB.
    static func peakRSSMegabytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "")
        else { return -1 }
        return kilobytes / 1024
    }
}
