import Foundation
import Testing

@testable import RunAnywhere

@Suite("Byte counts for people")
struct ByteCountTests {
    /// The edges of every unit in both bases (a unit, half of one, the rounding points of one
    /// and two decimals, a step either side) and seeded random counts spread over every unit.
    static let counts: [Int64] = {
        var counts: Set<Int64> = [1, 2, 999, 1000, 1023, 1024, 1500, 999_500, 1_050_000, 98_450_000, 999_950_000]
        for base in [1000.0, 1024.0] {
            for exponent in 1...6 {
                let unit = pow(base, Double(exponent))
                for multiple in [1.0, 1.05, 1.15, 1.25, 1.005, 1.015, 2.5, 9.995, 99.95, 999.5, 1023.5] {
                    let count = unit * multiple
                    guard count < 9e18 else { continue }
                    for step in -1...1 { counts.insert(Int64(count) + Int64(step)) }
                }
            }
        }
        var generator = SplitMix(seed: 7)
        while counts.count < 20_000 {
            // Log-uniform over 1 byte … 9 EB, so every unit gets its share.
            let exponent = Double(generator.next() % 63_000) / 1000
            counts.insert(Int64(pow(2, exponent)))
        }
        return counts.sorted()
    }()

    @Test("Counts read as ByteCountFormatter writes them in both bases, without its locale machinery")
    func readsLikeFoundation() {
        for (style, foundation) in [(ByteCountStyle.file, ByteCountFormatter.CountStyle.file), (.binary, .binary)] {
            for count in Self.counts {
                let expected = ByteCountFormatter.string(fromByteCount: count, countStyle: foundation)
                #expect(count.formattedBytes(style) == expected, "\(count) \(style == .file ? "file" : "binary")")
            }
        }
    }

    @Test("Zero is 0 bytes, one is 1 byte, and negative counts keep their sign")
    func smallAndNegativeCounts() {
        #expect(Int64(0).formattedBytes(.binary) == "0 bytes")
        #expect(Int64(1).formattedBytes() == "1 byte")
        #expect(Int64(-5).formattedBytes() == "-5 bytes")
        #expect(Int64(-2_300_000).formattedBytes() == "-2.3 MB")
        #expect(Int64(10 << 20).formattedBytes(.binary) == "10 MB")
        #expect(Int64.max.formattedBytes() == "9.22 EB")
        #expect(Int64.min.formattedBytes() == "-9.22 EB")
    }
}
