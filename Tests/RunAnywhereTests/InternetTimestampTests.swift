import Foundation
import Testing

@testable import RunAnywhere

@Suite("Registry timestamps")
struct InternetTimestampTests {
    /// Seconds since 1970 around the calendar's edges: the epoch, leap days, century years, the
    /// end of a 400-year era, and seeded random instants.
    static let instants: [Int64] = {
        var generator = SplitMix(seed: 42)
        let fixed: [Int64] = [
            0, -1, 59, 86_399, 86_400, 951_782_400, 951_868_799, 951_868_800, 1_709_164_800, 4_107_542_399,
            4_107_542_400, 1_795_705_116, 253_402_300_799, -2_208_988_800,
        ]
        return fixed + (0..<2000).map { _ in Int64(generator.next() % 8_000_000_000) - 2_000_000_000 }
    }()

    @Test("Dates are written as RFC 3339 in UTC to the second, and read back to the second")
    func roundTrip() throws {
        let formatter = ISO8601DateFormatter()
        let dates = Self.instants.map { Date(timeIntervalSince1970: Double($0)) }
        let data = try ModelRegistry.encoder.encode(dates)
        let texts = try JSONDecoder().decode([String].self, from: data)
        #expect(texts == dates.map { formatter.string(from: $0) })
        #expect(try ModelRegistry.decoder.decode([Date].self, from: data) == dates)
    }

    @Test("Fractional seconds and offsets, as an edited registry may hold, are read")
    func readsVariants() throws {
        let cases: [(String, Double)] = [
            ("2026-11-26T14:18:36Z", 1_795_702_716),
            ("2026-11-26T14:18:36.250Z", 1_795_702_716.25),
            ("2026-11-26T15:18:36+01:00", 1_795_702_716),
            ("2026-11-26T09:48:36-04:30", 1_795_702_716),
            ("2000-02-29T00:00:00Z", 951_782_400),
        ]
        for (text, seconds) in cases {
            let data = Data("[\"\(text)\"]".utf8)
            let date = try #require(try ModelRegistry.decoder.decode([Date].self, from: data).first, "\(text)")
            #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_1, "\(text)")
        }
    }

    @Test("Text that is not a date is a decoding error", arguments: ["", "yesterday", "2026-11-26", "1795703916"])
    func refusesMalformed(text: String) {
        let data = Data("[\"\(text)\"]".utf8)
        #expect(throws: DecodingError.self) { try ModelRegistry.decoder.decode([Date].self, from: data) }
    }
}
