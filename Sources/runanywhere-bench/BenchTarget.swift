import RunAnywhereCommandLine

/// A budget a benchmark checks: `met` only when the value was measured and is within the limit,
/// so a missing figure fails it and never reads as 0.
struct BenchTarget: Encodable {
    var name: String
    var value: Double?
    var limit: Double
    var met: Bool

    init(_ name: String, _ value: Double?, limit: Double) {
        self.name = name
        self.value = value
        self.limit = limit
        met = value.map { $0 <= limit } ?? false
    }

    /// `✓ name: value (limit N)`, for people.
    var line: String {
        let shown = value.map { CLI.format($0, 1) } ?? "missing"
        return "\(met ? "✓" : "✗") \(name): \(shown) (limit \(CLI.format(limit, 0)))"
    }
}
