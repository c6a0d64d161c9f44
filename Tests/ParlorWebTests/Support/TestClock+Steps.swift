import Clocks
import HTTPTestSupport

extension TestClock where Duration == Swift.Duration {
    /// Moves the clock on `step` at a time until `condition` holds, at most `steps` times; answers how far it moved
    /// (nil when the condition never held). After each step the loops it woke have a moment of real time to act
    /// (``eventually(within:every:_:)``, bounded), so a slow machine only costs more real time, never a wrong answer:
    /// what ages is judged by this clock alone.
    func advance(by step: Duration, until condition: () async throws -> Bool, atMost steps: Int = 400) async rethrows -> Duration? {
        var moved = Duration.zero
        for _ in 0..<steps {
            if try await eventually(within: 0.05, every: .milliseconds(5), condition) { return moved }
            await advance(by: step)
            moved += step
        }
        return try await condition() ? moved : nil
    }
}
