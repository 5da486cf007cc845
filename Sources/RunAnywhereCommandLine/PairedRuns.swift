/// The middle and the extremes of repeated measurements.
package struct Spread: Encodable, Sendable, Equatable {
    /// The median.
    package var median: Double
    /// The smallest value.
    package var min: Double
    /// The largest value.
    package var max: Double
    /// How many values there were.
    package var count: Int

    /// The spread of `values`; `nil` when there are none, so a missing figure can never read as 0.
    package init?(_ values: [Double]) {
        guard let low = values.min(), let high = values.max() else { return nil }
        median = CLI.median(values)
        min = low
        max = high
        count = values.count
    }

    /// `12.3 (10.1–15.0)`.
    package func formatted(_ digits: Int = 1) -> String {
        "\(CLI.format(median, digits)) (\(CLI.format(min, digits))–\(CLI.format(max, digits)))"
    }
}

/// The two sides of a benchmark measured in the same repetitions, interleaved: each side's
/// spread, and the spread of their difference taken repetition by repetition, which cancels the
/// drift of a machine's speed that both sides saw alike.
package struct PairedRuns: Encodable, Sendable, Equatable {
    /// The SDK's values.
    package var sdk: Spread
    /// The raw engine's values.
    package var raw: Spread
    /// SDK minus raw, repetition by repetition.
    package var difference: Spread
    /// Whether the differences range over zero: the runs do not tell the two sides apart.
    package var withinNoise: Bool

    /// The pairs of `sdk[i]` and `raw[i]`; `nil` when either side is missing a value.
    package init?(sdk: [Double], raw: [Double]) {
        guard sdk.count == raw.count, let sdkSpread = Spread(sdk), let rawSpread = Spread(raw),
            let difference = Spread(zip(sdk, raw).map { $0 - $1 })
        else { return nil }
        self.sdk = sdkSpread
        self.raw = rawSpread
        self.difference = difference
        withinNoise = difference.min <= 0 && difference.max >= 0
    }

    /// `raw + 12.3 ms (runs −5.1 to +20.0: within noise)`.
    package func summary(unit: String, digits: Int = 1) -> String {
        func signed(_ value: Double) -> String { (value < 0 ? "−" : "+") + CLI.format(abs(value), digits) }
        let verdict = withinNoise ? "within noise" : difference.median > 0 ? "SDK higher" : "SDK lower"
        return "raw \(signed(difference.median)) \(unit) (runs \(signed(difference.min)) to "
            + "\(signed(difference.max)): \(verdict))"
    }
}
