import HTTPTestSupport
import Logging
import ParlorWeb
import Testing
@testable import parlor

/// Every worker whose queue may turn work away has its count on /metrics, the feed checks and DNS lookups included.
@Suite struct WorkerRefusalMetricsTests {
    @Test func eachWorkersRefusalsAreCountedOnMetrics() async throws {
        try await RunningParlor.with(configure: { $0.metricsAddresses = ["127.0.0.1"] }, metrics: .prometheus()) { parlor in
            #expect(ParlorMetrics.workers.contains("feed_checks") && ParlorMetrics.workers.contains("dns_lookups"))
            let quiet = Logger(label: "parlor-test") { _ in SwiftLogNoOpLogHandler() }
            for (index, worker) in ParlorMetrics.workers.enumerated() {
                for total in 1...(index + 1) { parlor.app.metrics.workerRefused(worker, total: total, logger: quiet) }
            }
            let metrics = try await parlor.visitor().get("/metrics").text
            for (index, worker) in ParlorMetrics.workers.enumerated() {
                #expect(metrics.contains("parlor_worker_jobs_refused_total{worker=\"\(worker)\"} \(index + 1)"), "\(worker)")
            }
        }
    }
}
