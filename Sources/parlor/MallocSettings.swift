import CMalloc
import Foundation

/// glibc's allocator, set for a server that makes photos. By default every thread that allocates may get
/// an arena of its own (up to eight per core), and each keeps what its thread freed; large blocks stop
/// being mapped on their own once one of them is freed (the threshold climbs to 32 MB). Image workers
/// allocate tens of megabytes per photo, so each arena ended up holding its last photo's worth:
/// measured with four 12 MP photos sent at once (Benchmarks/composed.py photos), the server peaked at
/// 155 MB; with `arenas` 2 and a fixed 256 KiB threshold (blocks above it mapped alone, and returned to
/// the system as soon as they are freed) at 121 MB, at the same photos per second.
enum MallocSettings {
    /// Applied before any other thread starts. Environment settings (MALLOC_ARENA_MAX,
    /// MALLOC_MMAP_THRESHOLD_) win: an operator who set them meant it. `arenas` 0 keeps glibc's default.
    static func apply(arenas: Int) {
        let environment = ProcessInfo.processInfo.environment
        if arenas > 0, environment["MALLOC_ARENA_MAX"] == nil {
            _ = parlor_malloc_set_arena_max(Int32(arenas))
        }
        if environment["MALLOC_MMAP_THRESHOLD_"] == nil {
            _ = parlor_malloc_set_mmap_threshold(256 * 1024)
        }
    }
}
