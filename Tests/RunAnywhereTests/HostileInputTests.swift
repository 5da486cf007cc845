import Foundation
import RunAnywhereTestSupport
import RunAnywhereTesting
import Synchronization
import Testing

@_spi(Backend) @testable import RunAnywhere
@testable import RunAnywhereRAG
@testable import RunAnywhereSolutions

#if canImport(Glibc)
import Glibc
#endif

/// The process's resident memory in bytes (`VmRSS`, or `VmHWM` for the peak).
private func residentBytes(_ field: String = "VmRSS") -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
    return 0
}

/// Runs `body` and returns its result; measures how far the process's peak resident memory rose
/// above what it held before, and prints it. The whole process is measured and other tests run
/// beside this one, so the figure is for the record (run one test alone for a clean one), never
/// a pass mark: each test checks the behaviour that bounds the memory instead.
private func peakGrowth<T>(
    _ name: String,
    input: Int,
    _ body: () throws -> T
) rethrows -> T {
    let before = resetPeak()
    let result = try body()
    reportPeak(name, input: input, since: before)
    return result
}

/// `peakGrowth` for work that suspends.
private func peakGrowth<T>(
    _ name: String,
    input: Int,
    _ body: () async throws -> T
) async rethrows -> T {
    let before = resetPeak()
    let result = try await body()
    reportPeak(name, input: input, since: before)
    return result
}

/// Resets the peak to the present (proc(5), clear_refs) and returns the resident size.
private func resetPeak() -> Int {
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    return residentBytes()
}

/// Prints how far the peak rose above `before`, for the record (run one test alone for a
/// figure no other test disturbs).
private func reportPeak(_ name: String, input: Int, since before: Int) {
    let growth = max(0, residentBytes("VmHWM") - before)
    print("peak growth: \(name): \(input) bytes in, \(growth / 1024) KiB")
}

/// A sparse file: `prefix`, then zeros (holes, no disk) up to `size` bytes.
private func sparseFile(_ prefix: [UInt8], size: Int, name: String) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ra-hostile-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let file = folder.appendingPathComponent(name)
    try Data(prefix).write(to: file)
    #expect(truncate(file.path, off_t(size)) == 0)
    return file
}

private func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.littleEndian) { Array($0) }
}

/// `SDKException`'s code and message from `body`, or `nil` when it succeeds.
private func failure<T>(_ body: () throws -> T) -> SDKException? {
    do {
        _ = try body()
        return nil
    } catch let error as SDKException {
        return error
    } catch {
        Issue.record("not an SDKException: \(error)")
        return nil
    }
}

/// Each parser of outside input given the worst its format allows: it either refuses it with a
/// typed error or keeps its memory near the input's size, never a multiple of it far beyond.
@Suite("Hostile inputs cannot make a parser allocate far beyond their size", .serialized)
struct HostileInputTests {
    @Test("A GGUF header claiming a billion-item array in a 1 GiB file keeps the array's bytes in the file")
    func ggufHugeArray() throws {
        let size = 1 << 30
        let key = Array("tokenizer.ggml.scores".utf8)
        var header: [UInt8] = Array("GGUF".utf8) + littleEndian(UInt32(3)) + littleEndian(UInt64(0))
        header += littleEndian(UInt64(1)) + littleEndian(UInt64(key.count)) + key
        header += littleEndian(UInt32(9)) + littleEndian(UInt32(0))  // an array of uint8
        let count = UInt64(size - header.count - 8)
        header += littleEndian(count)
        let file = try sparseFile(header, size: size, name: "huge.gguf")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        // As values this array would be 24 GiB.
        let gguf = try peakGrowth("GGUF uint8 array", input: size) { try GGUFFile(contentsOf: file) }
        guard case .list(let array) = try #require(gguf.metadata["tokenizer.ggml.scores"]) else {
            Issue.record("not an array")
            return
        }
        #expect(array.count == Int(count))
        #expect(array.elementType == .uint8)
        #expect(array.encodedItems?.count == Int(count), "kept as the file's bytes")
        // Claiming one item more than the file holds is refused before anything is read.
        var lying = header
        lying.replaceSubrange((lying.count - 8)..., with: littleEndian(count + 1))
        let liar = try sparseFile(lying, size: size, name: "liar.gguf")
        defer { try? FileManager.default.removeItem(at: liar.deletingLastPathComponent()) }
        #expect(failure { try GGUFFile(contentsOf: liar) }?.code == .modelCorrupted)
    }

    @Test("Nested GGUF arrays decode on demand, and read and written again give the same bytes")
    func ggufNestedArraysStayEncoded() throws {
        var writer = GGUFWriter()
        let inner = (0..<1000).map { GGUFValue.array(elementType: .string, [.string("t\($0)"), .string("")]) }
        writer.set("general.architecture", .string("llama"))
        writer.set("test.nested", .array(elementType: .array, inner))
        writer.set("test.many", .array(elementType: .int32, (0..<5000).map { .int32(Int32($0)) }))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ra-hostile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("nested.gguf")
        try writer.write(to: url)
        let file = try GGUFFile(contentsOf: url)
        #expect(file.metadata["test.nested"] == .array(elementType: .array, inner))
        #expect(file.metadata["test.many"]?.arrayValue?.last == .int32(4999))
        var again = GGUFWriter()
        for key in file.metadataKeys { again.set(key, try #require(file.metadata[key])) }
        #expect(again.data() == (try Data(contentsOf: url)))
        // A header with more keys than any model has is refused before they are read.
        var many: [UInt8] = Array("GGUF".utf8) + littleEndian(UInt32(3)) + littleEndian(UInt64(0))
        many += littleEndian(UInt64(1 << 20))
        let liar = folder.appendingPathComponent("keys.gguf")
        try Data(many + [UInt8](repeating: 0, count: 64)).write(to: liar)
        #expect(failure { try GGUFFile(contentsOf: liar) }?.message.contains("metadata keys") == true)
    }

    @Test("A 1 GiB registry file is refused as damaged without being read")
    func hugeRegistry() throws {
        let paths = SDKPaths(
            home: FileManager.default.temporaryDirectory.appendingPathComponent("ra-hostile-\(UUID().uuidString)")
        )
        defer { try? FileManager.default.removeItem(at: paths.home) }
        try FileManager.default.createDirectory(at: paths.home, withIntermediateDirectories: true)
        try Data(#"{"version":1,"models":["#.utf8).write(to: paths.registryFile)
        #expect(truncate(paths.registryFile.path, off_t(1 << 30)) == 0)
        let error = peakGrowth("registry.json", input: 1 << 30) {
            failure { try ModelRegistry(paths: paths, inspectors: ModelFileInspectors([])).load() }
        }
        #expect(error?.code == .registryCorrupted)
        #expect(error?.message.contains("more than") == true, "\(String(describing: error))")
    }

    /// An agent-loop solution whose one command tool has `parameters` of type object with these
    /// YAML lines as its other members.
    private static func agentLoop(parameters: [String]) -> String {
        """
        solution: agent-loop
        llm: x
        tools:
          - name: t
            command: [echo]
            parameters:
              type: object

        """ + parameters.map { "      \($0)\n" }.joined()
    }

    @Test("YAML aliases that would expand into a billion values are refused, and deep nesting does not crash")
    func yamlBillionLaughs() throws {
        var yaml = Self.agentLoop(parameters: ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"])
        for level in 1..<9 {
            let items = Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
            yaml += "      a\(level): &a\(level) [\(items)]\n"
        }
        let error = peakGrowth("YAML aliases", input: yaml.utf8.count) {
            failure { try SolutionYAMLParser().parse(yaml) }
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.message.contains("expands into more than") == true, "\(String(describing: error))")
        // As deep as the YAML parser nests (it stops at 1000 levels), then deeper: an error or a
        // result, never a crash.
        for depth in [900, 5000] {
            let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let deep = Self.agentLoop(parameters: ["x: \(nested)"])
            _ = failure { try SolutionYAMLParser().parse(deep) }
        }
        let huge = "solution: rag-qa\n# " + String(repeating: "x", count: 2 << 20) + "\n"
        #expect(failure { try SolutionYAMLParser().parse(huge) }?.message.contains("the limit is") == true)
    }

    /// `#/$defs/a0` is `allOf` of two `$ref`s to `a1`, which is the same of `a2`, and so on:
    /// 2 KB of schema, 2^`levels` paths.
    private static func ladder(levels: Int) -> String {
        var defs: [String] = []
        for level in 0..<levels {
            let next = "#/$defs/a\(level + 1)"
            defs.append("\"a\(level)\":{\"allOf\":[{\"$ref\":\"\(next)\"},{\"$ref\":\"\(next)\"}]}")
        }
        defs.append("\"a\(levels)\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"integer\"}}}")
        return "{\"$ref\":\"#/$defs/a0\",\"$defs\":{" + defs.joined(separator: ",") + "}}"
    }

    @Test("A schema whose shared parts combine into 2^40 paths is refused for grammars and stops validation")
    func schemaCombinationLadder() throws {
        let schema = try JSONSchema(parsing: Self.ladder(levels: 40))
        let text = Self.ladder(levels: 40)
        let error = peakGrowth("schema to grammar", input: text.utf8.count) {
            failure { try JSONSchemaGrammar(schema) }
        }
        #expect(error?.code == .unsupportedSchema, "\(String(describing: error))")
        let violations = peakGrowth("schema validation", input: text.utf8.count) {
            schema.validate(try! JSONValue(parsing: #"{"x": 1}"#))
        }
        #expect(violations.count == 1)
        #expect(violations.first?.message.contains("validation stopped") == true, "\(violations)")
        // The same shape a few levels deep is an ordinary schema.
        let small = try JSONSchema(parsing: Self.ladder(levels: 4))
        #expect(throws: Never.self) { try JSONSchemaGrammar(small) }
        #expect(small.validate(try JSONValue(parsing: #"{"x": 1}"#)).isEmpty)
        #expect(!small.validate(try JSONValue(parsing: #"{"x": "one"}"#)).isEmpty)
    }

    @Test("SSML asking for hours of pauses is refused before any audio is made")
    func ssmlPauses() throws {
        let document = String(repeating: #"a<break time="10s"/>"#, count: 100_000)
        let error = peakGrowth("SSML pauses", input: document.utf8.count) {
            failure { try SSMLDocument(parsing: document) }
        }
        #expect(error?.code == .invalidSSML)
        #expect(error?.message.contains("pauses in all") == true, "\(String(describing: error))")
        #expect(throws: Never.self) {
            try SSMLDocument(parsing: String(repeating: #"a<break time="10s"/>"#, count: 60))
        }
    }

    @Test("SSML of the most segments per byte parses near its size, and nesting past the limit is refused")
    func ssmlSegmentsAndDepth() throws {
        // Every element closes into a segment of its own: the most output per byte of markup.
        let element = #"<prosody rate="fast">a</prosody>"#
        let document = String(repeating: element, count: 60_000)
        let parsed = try peakGrowth("SSML segments", input: document.utf8.count) {
            try SSMLDocument(parsing: document)
        }
        #expect(parsed.segments.count == 60_000)
        #expect(parsed.segments.first == .text("a", rate: 1.3, pitch: 1, volume: 1))

        let deep = String(repeating: "<p>", count: 100_000) + "a" + String(repeating: "</p>", count: 100_000)
        let error = failure { try SSMLDocument(parsing: deep) }
        #expect(error?.code == .invalidSSML)
        #expect(error?.message.contains("nest more than 64 deep") == true, "\(String(describing: error))")
        #expect(throws: Never.self) {
            try SSMLDocument(parsing: String(repeating: "<p>", count: 64) + "a" + String(repeating: "</p>", count: 64))
        }
    }

    @Test("A document of the shortest sentences is chunked a batch at a time, within the token budget")
    func chunkerCountsInBatches() async throws {
        // Three bytes a sentence: the most units, and so the most bookkeeping, per byte.
        let text = String(repeating: "a.\n", count: 1_000_000)
        let widest = Mutex(0)
        let chunker = RAGChunker(options: RAGChunkingOptions(chunkTokens: 128, overlapTokens: 24)) {
            texts throws(SDKException) in
            widest.withLock { $0 = max($0, texts.count) }
            return texts.map { $0.split(separator: " ").count }
        }
        let chunks = try await peakGrowth("RAG chunks", input: text.utf8.count) {
            try await chunker.chunks(of: text)
        }
        #expect(widest.withLock { $0 } == RAGChunker.batchSize)
        #expect(chunks.allSatisfy { $0.tokens <= 128 })
        #expect(chunks.first?.start == 0)
        #expect(chunks.last?.end == text.utf8.count - 1)
        // Consecutive chunks overlap by whole sentences and leave no gap.
        #expect(zip(chunks, chunks.dropFirst()).allSatisfy { $1.start <= $0.end && $1.start > $0.start })

        // One sentence of a million one-letter words is cut into runs the same way.
        let words = String(repeating: "a ", count: 1_000_000) + "end."
        let runs = try await chunker.chunks(of: words)
        #expect(widest.withLock { $0 } == RAGChunker.batchSize)
        #expect(runs.allSatisfy { $0.tokens <= 128 })
        #expect(runs.last?.end == words.utf8.count)
    }

    @Test("Finding JSON in text nested hundreds of times, or fenced thousands of times, ends with a typed answer")
    func extractionBoundsItsWork() throws {
        // Every opening bracket starts a candidate that holds the whole inner array; they are
        // parsed and checked one at a time, and at most 512 of them.
        let inner = "[" + Array(repeating: "0", count: 2_000).joined(separator: ",") + "]"
        let text = String(repeating: "[", count: 600) + inner + String(repeating: "]", count: 600)
        let schema = try JSONSchema(parsing: #"{"type":"object","required":["answer"]}"#)
        #expect(
            failure { try ExtractedStructuredOutput.extract(from: text, schema: schema) }?.code
                == .invalidStructuredOutput
        )
        // Each fenced block is parsed from a copy of the text before it: at most 64 are.
        let fences = String(repeating: "```json\nnull\n```\n", count: 20_000) + #"{"answer": 42}"#
        #expect(try ExtractedStructuredOutput.extract(from: fences, schema: schema).value == ["answer": 42])
    }

    @Test("A WAV file of 8-bit samples at 8 kHz, the cheapest speech, grows a small multiple on its way to 16 kHz")
    func wavToSpeechInput() throws {
        let frames = 4 << 20
        var header: [UInt8] = Array("RIFF".utf8) + littleEndian(UInt32(36 + frames)) + Array("WAVEfmt ".utf8)
        header += littleEndian(UInt32(16)) + littleEndian(UInt16(1)) + littleEndian(UInt16(1))
        header += littleEndian(UInt32(8000)) + littleEndian(UInt32(8000)) + littleEndian(UInt16(1))
        header += littleEndian(UInt16(8)) + Array("data".utf8) + littleEndian(UInt32(frames))
        let file = try sparseFile(header, size: header.count + frames, name: "speech.wav")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let samples = try peakGrowth("WAV 8-bit 8 kHz to 16 kHz floats", input: header.count + frames) {
            try WAVFile.read(contentsOf: file).speechInput().frameCount
        }
        #expect(samples == 2 * frames)
    }

    @Test("JSON of the smallest objects, the parser's costliest shape, parses in full")
    func jsonSmallObjects() throws {
        let text = "[" + Array(repeating: #"{"a":0}"#, count: 1 << 20).joined(separator: ",") + "]"
        let value = try peakGrowth("JSON of {\"a\":0} objects", input: text.utf8.count) {
            try JSONValue(parsing: text)
        }
        #expect(value.arrayValue?.count == 1 << 20)
        // From a server (a remote engine's answer), the same text is refused before it is built,
        // while an answer of numbers as large, such as a batch of embeddings, parses.
        let refused = peakGrowth("untrusted JSON of {\"a\":0} objects", input: text.utf8.count) {
            failure { try JSONValue(parsingUntrusted: text) }
        }
        #expect(refused?.code == .invalidInput && refused?.message.contains("objects and arrays") == true)
        let vector = "[" + Array(repeating: "-0.0123456", count: 384).joined(separator: ",") + "]"
        let embeddings =
            #"{"object":"list","data":["#
            + (0..<2048).map { #"{"object":"embedding","index":\#($0),"embedding":\#(vector)}"# }
            .joined(separator: ",") + "]}"
        let parsed = try JSONValue(parsingUntrusted: embeddings)
        #expect(parsed["data"]?.arrayValue?.count == 2048)
    }

    @Test("Audio sampled below 8 kHz is not speech: refused before it is resampled to 16 kHz")
    func lowRateSpeech() async throws {
        try await withDeterministicSDK { sdk in
            try await sdk.loadSTTModel(DeterministicModels.stt)
            // 8-bit samples at 1 kHz would grow 64-fold on their way to 16 kHz floats.
            let low = PCMAudio(samples: [Float](repeating: 0.1, count: 4000), sampleRate: 1000)
            do {
                _ = try await sdk.transcribe(low)
                Issue.record("transcribed 1 kHz audio")
            } catch let error as SDKException {
                #expect(error.code == .invalidAudio)
                #expect(error.message.contains("8000 Hz"), "\(error.message)")
            } catch {
                Issue.record("\(error)")
            }
            let telephone = PCMAudio(samples: [Float](repeating: 0, count: 8000), sampleRate: 8000)
            _ = try await sdk.transcribe(telephone)
        }
    }
}
