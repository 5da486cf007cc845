import Foundation
import Testing

@testable import RunAnywhere

@Suite("Registry timestamps")
struct InternetTimestampTests {
    /// Seconds since 1970 around the edges the calendar arithmetic has: the epoch, leap days,
    /// century years, the end of a 400-year era, and seeded random instants.
    static let instants: [Int64] = {
        var generator = SplitMix(seed: 42)
        let fixed: [Int64] = [
            0, -1, 59, 86_399, 86_400, 951_782_400, 951_868_799, 951_868_800, 1_709_164_800, 4_107_542_399,
            4_107_542_400, 1_795_705_116, 253_402_300_799, -2_208_988_800,
        ]
        return fixed + (0..<2000).map { _ in Int64(generator.next() % 8_000_000_000) - 2_000_000_000 }
    }()

    @Test("Dates are written as Foundation's ISO 8601 formatter writes them, and read back to the second")
    func writesLikeFoundation() {
        let formatter = ISO8601DateFormatter()
        for seconds in Self.instants {
            let date = Date(timeIntervalSince1970: Double(seconds) + 0.75)
            let text = InternetTimestamp.string(from: date)
            #expect(text == formatter.string(from: date), "\(seconds)")
            #expect(InternetTimestamp.date(from: text) == Date(timeIntervalSince1970: Double(seconds)), "\(text)")
        }
    }

    @Test("Fractional seconds, offsets and lowercase separators are read as Foundation reads them")
    func readsVariants() throws {
        let cases: [(String, Double)] = [
            ("2026-11-26T14:18:36Z", 1_795_702_716),
            ("2026-11-26T14:18:36.250Z", 1_795_702_716.25),
            ("2026-11-26T15:18:36+01:00", 1_795_702_716),
            ("2026-11-26T09:48:36-04:30", 1_795_702_716),
            ("2026-11-26t14:18:36z", 1_795_702_716),
            ("2000-02-29T00:00:00Z", 951_782_400),
        ]
        for (text, seconds) in cases {
            let date = try #require(InternetTimestamp.date(from: text), "\(text)")
            #expect(abs(date.timeIntervalSince1970 - seconds) < 0.000_1, "\(text)")
        }
    }

    @Test(
        "Text that is not a whole RFC 3339 date is refused",
        arguments: [
            "", "2026-11-26", "2026-11-26T14:18Z", "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z",
            "2026-04-31T00:00:00Z", "2026-11-26T24:00:00Z", "2026-11-26T14:60:00Z", "2026-11-26T14:18:36",
            "2026-11-26T14:18:36.Z", "2026-11-26T14:18:36+0100", "2026-11-26T14:18:36Zjunk", "２０２６-11-26T14:18:36Z",
            "1795703916",
        ]
    )
    func refusesMalformed(text: String) {
        #expect(InternetTimestamp.date(from: text) == nil)
    }

    @Test("A registry written with Foundation's .iso8601 reads the same through the registry's decoder")
    func readsOldRegistries() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let dates = [Date(timeIntervalSince1970: 1_795_702_716), Date(timeIntervalSince1970: 0)]
        let data = try encoder.encode(dates)
        #expect(try ModelRegistry.decoder.decode([Date].self, from: data) == dates)
        #expect(try ModelRegistry.encoder.encode(dates).count > 0)
        let bad = Data(#"["yesterday"]"#.utf8)
        #expect(throws: DecodingError.self) { try ModelRegistry.decoder.decode([Date].self, from: bad) }
    }
}
