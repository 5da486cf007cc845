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

    @Test("Log levels are the original SDK's five, ordered from debug to fault, with its raw values and names")
    func levelsOrdered() throws {
        #expect(LogLevel.debug < .info)
        #expect(LogLevel.warning < .error)
        #expect(LogLevel.allCases.sorted() == LogLevel.allCases)
        #expect(LogLevel.allCases.map(\.rawValue) == [0, 1, 2, 3, 4])
        #expect(LogLevel(rawValue: 2) == .warning)
        #expect(LogLevel(rawValue: -1) == nil)
        #expect(LogLevel.critical == .fault)
        #expect(LogLevel.allCases.map(\.description) == ["debug", "info", "warning", "error", "fault"])
        // Encoded as the original's numbers.
        #expect(String(decoding: try JSONEncoder().encode([LogLevel.fault]), as: UTF8.self) == "[4]")
        // Decoded from the number, or from the names earlier releases wrote.
        let decoded = try JSONDecoder().decode(
            [LogLevel].self,
            from: Data(#"[4, -1, "trace", "debug", "notice", "critical"]"#.utf8)
        )
        #expect(decoded == [.fault, .debug, .debug, .debug, .info, .fault])
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

    @Test(
        "An engine's log line is trimmed, and dropped when empty, below the level or unasked-for progress, unless kept"
    )
    func engineLines() {
        func line(_ text: String, _ level: LogLevel, progress: Bool = false, keep: Bool = false) -> String? {
            text.withCString { SDKLogger.engineLine($0, at: level, progress: progress, keep: keep) }
        }
        #expect(line("  sched_reserve: done \n", .critical) == "sched_reserve: done")
        #expect(line(" \n", .critical) == nil)
        #expect(SDKLogger.engineLine(nil, at: .critical) == nil)
        #expect(line("error: bad file\n", .debug, progress: true, keep: true) == "error: bad file")

        // The switches themselves are process-wide and other suites set them; the rule is pure.
        func logs(_ level: LogLevel, progress: Bool, at minimum: LogLevel, includingProgress: Bool) -> Bool {
            SDKLogger.logsEngineLine(
                at: level,
                progress: progress,
                levelEnabled: { $0 >= minimum },
                includesProgress: includingProgress
            )
        }
        #expect(logs(.debug, progress: false, at: .debug, includingProgress: false), "an engine warning at debug")
        #expect(!logs(.debug, progress: true, at: .debug, includingProgress: false), "progress, not asked for")
        #expect(logs(.debug, progress: true, at: .debug, includingProgress: true))
        #expect(!logs(.debug, progress: true, at: .info, includingProgress: true), "asked for, but below the level")
        #expect(logs(.warning, progress: false, at: .info, includingProgress: false))
    }
}
