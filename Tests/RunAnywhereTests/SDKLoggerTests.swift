import Foundation
import Logging
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("Logging")
struct SDKLoggerTests {
    @Test("Values of credential-like keys are redacted, others kept")
    func redaction() {
        let metadata: Logger.Metadata = [
            "apiKey": "sk-live-123", "Authorization": "Bearer abc", "refresh_token": "t",
            "password": "hunter2", "client_secret": "s", "model": "smollm2",
            "nested": .dictionary(["token": "x", "count": "3"]),
        ]
        let redacted = SDKLogger.redact(metadata)
        for key in ["apiKey", "Authorization", "refresh_token", "password", "client_secret"] {
            #expect(redacted[key] == "[REDACTED]", "\(key) leaked")
        }
        #expect(redacted["model"] == "smollm2")
        #expect(redacted["nested"] == .dictionary(["token": "[REDACTED]", "count": "3"]))
    }

    @Test("Log levels are ordered from trace to fault, with the original SDK's raw values and names")
    func levelsOrdered() throws {
        #expect(LogLevel.trace < .debug)
        #expect(LogLevel.warning < .error)
        #expect(LogLevel.allCases.sorted() == LogLevel.allCases)
        #expect(LogLevel.allCases.map(\.rawValue) == [-1, 0, 1, 2, 3, 4])
        #expect(LogLevel(rawValue: 2) == .warning)
        #expect(LogLevel.critical == .fault)
        #expect(LogLevel.allCases.map(\.description) == ["trace", "debug", "info", "warning", "error", "fault"])
        // Encoded as the original's numbers.
        #expect(String(decoding: try JSONEncoder().encode([LogLevel.fault]), as: UTF8.self) == "[4]")
        // Decoded from the number, or from the names earlier releases wrote.
        let decoded = try JSONDecoder().decode([LogLevel].self, from: Data(#"[4, "debug", "notice", "critical"]"#.utf8))
        #expect(decoded == [.fault, .debug, .info, .fault])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([LogLevel].self, from: Data("[9]".utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([LogLevel].self, from: Data(#"["loud"]"#.utf8)) }
    }

    @Test("A level is enabled exactly when it is at or above the SDK-wide level")
    func isEnabledFollowsTheLevel() {
        let current = SDKLogger.currentLevel
        for level in LogLevel.allCases {
            #expect(SDKLogger.isEnabled(level) == (level >= current), "\(level) against \(current)")
        }
        #expect(SDKLogger.isEnabled(.critical))
    }

    @Test("An engine's log line is trimmed, and dropped when empty or below the level unless kept")
    func engineLines() {
        func line(_ text: String, _ level: LogLevel, keep: Bool = false) -> String? {
            text.withCString { SDKLogger.engineLine($0, at: level, keep: keep) }
        }
        #expect(line("  sched_reserve: done \n", .critical) == "sched_reserve: done")
        #expect(line(" \n", .critical) == nil)
        #expect(SDKLogger.engineLine(nil, at: .critical) == nil)
        #expect(line("error: bad file\n", .trace, keep: true) == "error: bad file")
        #expect(line("detail", .trace) == (SDKLogger.isEnabled(.trace) ? "detail" : nil))
    }
}
