import Foundation
import GRDB
import Testing

@_spi(Backend) @testable import RunAnywhere
@testable import RunAnywhereControlPlane

@Suite("The telemetry queue and what its events may carry")
struct TelemetryQueueTests {
    private func withQueue<T>(capacity: Int = 100, _ body: (TelemetryQueue, URL) throws -> T) throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ra-tq-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("telemetry.sqlite")
        return try body(try TelemetryQueue(url: url, capacity: capacity), url)
    }

    @Test("Events come back oldest first, an id queued twice is kept once, and removal is by id")
    func order() throws {
        try withQueue { queue, url in
            let events = (0..<5).map { TelemetryEvent(kind: .modelLoaded, modelId: "m\($0)") }
            try queue.enqueue(events)
            try queue.enqueue(events[1])
            #expect(try queue.count() == 5)
            #expect(try queue.oldest(3).map(\.modelId) == ["m0", "m1", "m2"])
            try queue.remove([events[0].id, events[2].id])
            #expect(try queue.oldest(10).map(\.modelId) == ["m1", "m3", "m4"])
            // A second handle (another process) sees the same queue.
            #expect(try TelemetryQueue(url: url).count() == 3)
        }
    }

    @Test("Past its capacity the queue drops the oldest events")
    func capacity() throws {
        try withQueue(capacity: 3) { queue, _ in
            for n in 0..<5 { try queue.enqueue(TelemetryEvent(kind: .modelLoaded, modelId: "m\(n)")) }
            #expect(try queue.oldest(10).map(\.modelId) == ["m2", "m3", "m4"])
        }
    }

    @Test("A row that no longer decodes is dropped instead of blocking the queue")
    func brokenRow() throws {
        try withQueue { queue, url in
            try queue.enqueue(TelemetryEvent(kind: .modelLoaded, modelId: "good"))
            let database = try DatabaseQueue(path: url.path)
            try database.write { db in
                try db.execute(sql: "INSERT INTO events(id, body) VALUES ('broken', x'7b7d')")
            }
            #expect(try queue.oldest(10).map(\.modelId) == ["good"])
            #expect(try queue.count() == 1)
        }
    }

    @Test("One uploader at a time holds the queue's lock")
    func uploadLock() throws {
        try withQueue { queue, _ in
            let first = try #require(queue.uploadLock())
            #expect(queue.uploadLock() == nil)
            first.release()
            #expect(queue.uploadLock() != nil)
        }
    }

    @Test("Error messages lose keys, tokens, paths and quoted text before they are queued")
    func redaction() {
        let event = TelemetryEvent(
            kind: .error,
            errorCode: "model_load_failed",
            errorMessage: """
                Cannot open /home/ana/models/my-model.gguf with api_key=sk-live-abc123 and Bearer eyJhbGciOi.x.y; \
                prompt 'tell me about my diagnosis' failed, token ghp_a1b2c3d4e5f6g7h8i9j0k1l2
                """
        )
        let message = try! #require(event.errorMessage)
        for secret in ["/home/ana", "sk-live-abc123", "eyJhbGciOi", "diagnosis", "ghp_a1b2c3d4e5f6g7h8i9j0k1l2"] {
            #expect(!message.contains(secret), "\(secret) in \(message)")
        }
        #expect(message.contains("Cannot open [PATH]"))
        #expect(message.contains("failed"))
        #expect(
            TelemetryEvent.redact(String(repeating: "x ", count: 1000)).count <= TelemetryEvent.maximumMessageLength + 1
        )
    }

    @Test("Only completions, loads, downloads and failures become telemetry, with no text")
    func mapping() {
        let generation = UUID()
        let completed = TelemetryEvent(
            SDKEvent(
                .generationCompleted(
                    generationId: generation,
                    modelId: "llm",
                    tokens: 12,
                    durationMs: 340,
                    tokensPerSecond: 41
                )
            )
        )
        #expect(completed?.kind == .generationCompleted)
        #expect(completed?.metrics?.generatedTokens == 12)
        #expect(completed?.metrics?.tokensPerSecond == 41)
        #expect(TelemetryEvent(SDKEvent(.generationStarted(generationId: generation, modelId: "llm"))) == nil)
        // A token is the user's text: it never leaves the device.
        #expect(
            TelemetryEvent(SDKEvent(.generationToken(generationId: generation, text: "secret", isThinking: false)))
                == nil
        )
        #expect(
            TelemetryEvent(SDKEvent(.documentIngested(index: "i", documentId: "d", chunks: 1, durationMs: 1))) == nil
        )
        let failed = TelemetryEvent(
            SDKEvent(.downloadFailed(modelId: "m", error: SDKException(.downloadFailed, "HTTP 404 for /root/x/y.gguf")))
        )
        #expect(failed?.kind == .error)
        #expect(failed?.errorCode == "download_failed")
        #expect(failed?.errorMessage == "HTTP 404 for [PATH]")
    }
}
