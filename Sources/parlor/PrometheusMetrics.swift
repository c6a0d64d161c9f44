import ParlorWeb
import Prometheus

extension ParlorMetrics {
    /// Prometheus through swift-metrics: every metric made once, in ParlorMetrics, on a registry of its own that
    /// `/metrics` writes out. What `parlor serve` counts with, and the web tests that read `/metrics`.
    static func prometheus() -> ParlorMetrics {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
            .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
        ]
        return ParlorMetrics(factory: factory, exposition: {
            var buffer: [UInt8] = []
            registry.emit(into: &buffer)
            return buffer
        })
    }
}
