import Foundation
import Prometheus

/// The server's Prometheus metrics, served at `GET /metrics`.
///
/// A registry of the server's own rather than the process-wide `MetricsSystem`: a library
/// must not bootstrap global state, and two servers in one process keep separate figures.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let promptTokens: Counter
    private let completionTokens: Counter
    private let queueDepth: Gauge
    private let activeGenerations: Gauge
    private let timeToFirstToken: DurationHistogram

    private static let latencyBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10),
        .seconds(30), .seconds(60),
    ]

    init() {
        promptTokens = registry.makeCounter(
            descriptor: Self.descriptor("prompt_tokens", unit: "total", "Prompt tokens evaluated"),
            labels: []
        )
        completionTokens = registry.makeCounter(
            descriptor: Self.descriptor("completion_tokens", unit: "total", "Tokens generated"),
            labels: []
        )
        queueDepth = registry.makeGauge(
            descriptor: Self.descriptor("queue", unit: "depth", "Generation requests waiting for a slot"),
            labels: []
        )
        activeGenerations = registry.makeGauge(
            descriptor: Self.descriptor("active_generations", unit: "count", "Generation requests holding a slot"),
            labels: []
        )
        timeToFirstToken = registry.makeDurationHistogram(
            descriptor: Self.descriptor("time_to_first_token", unit: "seconds", "Request to first generated token"),
            labels: [],
            buckets: Self.latencyBuckets
        )
    }

    private static func descriptor(_ name: String, unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "runanywhere", metricName: name, unitName: unit, helpText: help)
    }

    /// Counts a finished request and its latency.
    func recordRequest(route: String, status: Int, duration: Duration) {
        registry.makeCounter(
            descriptor: Self.descriptor("http_requests", unit: "total", "HTTP requests answered"),
            labels: [("route", route), ("status", String(status))]
        ).increment()
        registry.makeDurationHistogram(
            descriptor: Self.descriptor("http_request_duration", unit: "seconds", "Time to answer a request"),
            labels: [("route", route)],
            buckets: Self.latencyBuckets
        ).record(duration)
    }

    /// Counts the tokens of a finished generation.
    func recordTokens(prompt: Int, completion: Int) {
        promptTokens.increment(by: Int64(prompt))
        completionTokens.increment(by: Int64(completion))
    }

    /// Records the time from a request's arrival to its first token.
    func recordTimeToFirstToken(_ duration: Duration) {
        timeToFirstToken.record(duration)
    }

    /// Sets the generation gauges from the admitted count and the slots.
    func setGenerations(admitted: Int, slots: Int) {
        activeGenerations.set(to: Double(min(admitted, slots)))
        queueDepth.set(to: Double(max(0, admitted - slots)))
    }

    /// The exposition text.
    func render() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}
