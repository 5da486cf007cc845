import Foundation
import RunAnywhereRAG
import RunAnywhereTestSupport
import RunAnywhereTesting
import Testing

@_spi(Backend) @testable import RunAnywhere
@testable import RunAnywhereSolutions

/// The repository's `Examples/` folder.
private let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Examples")

/// Every event of a handle, once it has finished.
private func collect(_ handle: SolutionHandle) async -> [SolutionEvent] {
    var events: [SolutionEvent] = []
    for await event in handle.events { events.append(event) }
    return events
}

private func outputs(_ events: [SolutionEvent]) -> [String] {
    events.compactMap { if case .output(_, let text, _) = $0 { text } else { nil } }
}

@Suite("Solutions: YAML validation")
struct SolutionYAMLTests {
    private func error(_ yaml: String) -> SDKException? {
        do {
            _ = try SolutionYAMLParser().parse(yaml)
            return nil
        } catch {
            return error
        }
    }

    @Test("Every example in Examples/ is a valid solution")
    func examplesParse() throws {
        let files = try FileManager.default.contentsOfDirectory(at: examples, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "yaml" }
        #expect(files.count >= 3)
        var kinds: Set<String> = []
        for file in files {
            let config = try SolutionYAMLParser().parse(try String(contentsOf: file, encoding: .utf8))
            kinds.insert(config.pipeline.kind)
        }
        #expect(kinds == ["voice-agent", "rag-qa", "agent-loop"])
    }

    @Test("An unknown key is named with its line, and the keys that are allowed are listed")
    func unknownKey() throws {
        let error = try #require(self.error("solution: rag-qa\nindex: house\n\ntop_kk: 4\n"))
        #expect(error.code == .invalidConfiguration)
        #expect(error.message.contains("line 4"))
        #expect(error.message.contains("'top_kk'"))
        #expect(error.recoverySuggestion?.contains("top_k") == true)
    }

    @Test("A value of the wrong type, out of range, or missing names the key and the line")
    func wrongValues() throws {
        let wrongType = try #require(error("solution: rag-qa\nindex: house\ntop_k: four\n"))
        #expect(wrongType.message.contains("line 3") && wrongType.message.contains("'top_k' must be an integer"))
        let range = try #require(error("solution: agent-loop\nllm: m\nmax_iterations: 0\n"))
        #expect(range.message.contains("line 3") && range.message.contains("between 1 and 32"))
        let missing = try #require(error("solution: voice-agent\nllm: m\n"))
        #expect(missing.message.contains("needs 'stt'"))
        let kind = try #require(error("name: x\nsolution: chatbot\n"))
        #expect(kind.message.contains("line 2") && kind.message.contains("chatbot"))
        let list = try #require(error("solution: rag-qa\nindex: house\ninputs: what?\n"))
        #expect(list.message.contains("line 3") && list.message.contains("'inputs' must be a list"))
        let duplicate = try #require(error("solution: rag-qa\nindex: a\nindex: b\n"))
        // Yams itself refuses a repeated key, naming it and the line of its first use.
        #expect(duplicate.message.contains("'index'") && duplicate.message.contains("line 2"))
    }

    @Test("A declared tool is checked: its keys, its command, its schema, and tool_choice naming it")
    func toolDeclarations() throws {
        let base = "solution: agent-loop\nllm: m\ntools:\n"
        let unknown = try #require(error(base + "  - name: t\n    command: [date]\n    shell: bash\n"))
        #expect(unknown.message.contains("line 6") && unknown.message.contains("'shell'"))
        let noCommand = try #require(error(base + "  - name: t\n    description: d\n"))
        #expect(noCommand.message.contains("needs 'command'"))
        let badSchema = try #require(error(base + "  - name: t\n    command: [date]\n    parameters: [1, 2]\n"))
        #expect(badSchema.message.contains("line 6") && badSchema.message.contains("JSON Schema"))
        let choice = try #require(error(base + "  - get_weather\ntool_choice: get_time\n"))
        #expect(choice.message.contains("line 5") && choice.message.contains("get_time"))
        let config = try SolutionYAMLParser().parse(
            base + "  - get_weather\n  - name: now\n    command: [date, -u]\n    timeout_seconds: 5\ntool_choice: now\n"
        )
        guard case .agentLoop(let loop) = config.pipeline else {
            Issue.record("not an agent loop")
            return
        }
        #expect(loop.tools == ["get_weather"])
        #expect(loop.commandTools.map(\.command) == [["date", "-u"]])
        #expect(loop.toolChoice == .tool("now"))
    }

    @Test("YAML that does not parse, or is not a mapping, is a typed error")
    func malformed() throws {
        #expect(error("solution: [rag-qa\n")?.code == .invalidConfiguration)
        #expect(error("- just\n- a list\n")?.message.contains("mapping") == true)
        #expect(error("")?.code == .invalidConfiguration)
    }
}

@Suite("Solutions: running pipelines on the deterministic backend")
struct SolutionRunTests {
    @Test("A RAG question-answering solution answers each input from its index, citing sources")
    func ragQuestionAnswering() async throws {
        try await withDeterministicSDK { sdk in
            let index = try await sdk.createRAGIndex("notes", embeddingModel: DeterministicModels.embedding)
            _ = try await index.ingest(documentId: "boiler", text: "The boiler is serviced every March by Ana.")
            _ = try await index.ingest(documentId: "garden", text: "The garden is watered on Sundays.")
            let handle = try await sdk.solutions.run(
                yaml:
                    "solution: rag-qa\nindex: notes\nllm: \(DeterministicModels.llm)\ninputs: [When is the boiler serviced?]\n"
            )
            handle.start()
            try handle.feed("When is the garden watered?")
            handle.closeInput()
            let events = await collect(handle)
            #expect(outputs(events).count == 2)
            let details = events.compactMap { if case .output(_, _, let details) = $0 { details } else { nil } }
            #expect(details.allSatisfy { $0["sources"]?.isEmpty == false })
            guard case .finished(let summary) = events.last else {
                Issue.record("no finished event")
                return
            }
            #expect(summary == SolutionSummary(processed: 2, failed: 0, reason: .inputClosed))
        }
    }

    @Test("An agent loop runs a declared command tool and the conversation carries over; the tool leaves with it")
    func agentLoop() async throws {
        try await withDeterministicSDK { sdk in
            let yaml = """
                solution: agent-loop
                llm: \(DeterministicModels.llm)
                tool_choice: required
                tools:
                  - name: count_words
                    description: Count the words in a text.
                    parameters: {type: object, properties: {text: {type: string}}, required: [text]}
                    command: [python3, -c, "import json, sys; print(json.dumps({'words': len(json.load(sys.stdin)['text'].split())}))"]
                inputs: [Count the words of 'a b c'., And again?]
                """
            let handle = try await sdk.solutions.run(yaml: yaml)
            #expect(sdk.tools.definitions.contains { $0.name == "count_words" })
            handle.start()
            handle.closeInput()
            let events = await collect(handle)
            let results = events.compactMap { event -> (String, Bool)? in
                if case .toolResult(_, let name, let output, let isError) = event {
                    (output, isError && name != "")
                } else {
                    nil
                }
            }
            #expect(results.count == 2)
            for (output, isError) in results {
                #expect(!isError, "\(output)")
                #expect(output.contains("\"words\""), "\(output)")
            }
            #expect(outputs(events).count == 2)
            // The tool the solution declared is gone once it finished.
            #expect(!sdk.tools.definitions.contains { $0.name == "count_words" })
        }
    }

    @Test("An agent loop naming a tool nobody registered fails to start, with nothing left registered")
    func unknownTool() async throws {
        try await withDeterministicSDK { sdk in
            let yaml = """
                solution: agent-loop
                llm: \(DeterministicModels.llm)
                tools:
                  - name: now
                    command: [date]
                  - get_weather
                """
            let error = await #expect(throws: SDKException.self) { try await sdk.solutions.run(yaml: yaml) }
            #expect(error?.code == .invalidConfiguration)
            #expect(error?.message.contains("get_weather") == true)
            #expect(sdk.tools.definitions.isEmpty)
        }
    }

    @Test("A failing input is reported and the next one runs; feeding after closing is a typed error")
    func failingInput() async throws {
        try await withDeterministicSDK { sdk in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ra-voice-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let recording = folder.appendingPathComponent("turn.wav")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try WAVFile.write(DeterministicBackend.speech(for: "turn on the lights"), to: recording)
            let handle = try await sdk.solutions.run(
                config: SolutionConfig(
                    name: "voice",
                    pipeline: .voiceAgent(
                        VoiceAgentSolution(
                            stt: DeterministicModels.stt,
                            llm: DeterministicModels.llm,
                            tts: DeterministicModels.tts,
                            outputDirectory: folder
                        )
                    ),
                    inputs: [folder.appendingPathComponent("missing.wav").path, recording.path]
                )
            )
            handle.start()
            handle.closeInput()
            #expect(throws: SDKException.self) { try handle.feed("more") }
            let events = await collect(handle)
            let failures = events.compactMap {
                if case .failed(let index, let error) = $0 { (index, error.code) } else { nil }
            }
            #expect(failures.count == 1)
            #expect(failures.first?.0 == 0)
            #expect(failures.first?.1 == .invalidInput)
            let transcripts = events.compactMap { if case .transcript(_, let text) = $0 { text } else { nil } }
            #expect(transcripts == ["turn on the lights"])
            let audio = events.compactMap { if case .output(_, _, let details) = $0 { details["audio"] } else { nil } }
            #expect(audio.count == 1)
            #expect(audio.allSatisfy { FileManager.default.fileExists(atPath: $0) })
            #expect(!handle.isAlive)
        }
    }

    @Test("Stopping drops the queued inputs; cancelling ends at once; a never-started handle finishes empty")
    func stopAndCancel() async throws {
        try await withDeterministicSDK { sdk in
            let config = SolutionConfig(
                name: "loop",
                pipeline: .agentLoop(AgentLoopSolution(llm: DeterministicModels.llm, maxTokens: 8)),
                inputs: ["one", "two", "three"]
            )
            let stopped = try await sdk.solutions.run(config: config)
            stopped.stop()
            #expect(throws: SDKException.self) { try stopped.feed("four") }
            // Never started, it still ends by itself: its events close without anyone waiting.
            var kinds: [String] = []
            for await event in stopped.events { kinds.append("\(event)") }
            #expect(kinds.last?.hasPrefix("finished") == true, "\(kinds)")
            let summary = await stopped.finished()
            #expect(summary.reason == .stopped)
            #expect(summary.processed == 0)
            #expect(!stopped.isAlive)

            let cancelled = try await sdk.solutions.run(config: config)
            cancelled.start()
            cancelled.cancel()
            let end = await cancelled.finished()
            #expect(end.reason == .cancelled)
            #expect(end.processed < 3)

            // The original SDK's destroy(): at once, from synchronous code; the worker then ends.
            let destroyed = try await sdk.solutions.run(config: config)
            destroyed.start()
            destroyed.destroy()
            #expect(throws: SDKException.self) { try destroyed.feed("four") }
            #expect(await destroyed.finished().reason == .cancelled)
            #expect(!destroyed.isAlive)

            let finished = try await sdk.solutions.run(config: config)
            finished.start()
            finished.closeInput()
            let all = await finished.finished()
            #expect(all == SolutionSummary(processed: 3, failed: 0, reason: .inputClosed))
        }
    }
}

@Suite("Solutions: command tools")
struct CommandToolTests {
    private func run(_ command: [String], timeout: Double = 10) async throws -> JSONValue {
        let tool = CommandTool(
            definition: ToolDefinition(name: "t", description: "a test tool"),
            command: command,
            timeoutSeconds: timeout
        )
        return try await CommandToolExecutor(tool: tool).run(["text": "a b c"])
    }

    @Test("A tool gets its arguments as JSON on standard input and answers JSON or text")
    func answers() async throws {
        #expect(
            try await run(["python3", "-c", "import json, sys; print(json.dumps(json.load(sys.stdin)))"]) == [
                "text": "a b c"
            ]
        )
        #expect(try await run(["echo", "plain words"]) == .string("plain words"))
        // A program that never reads its input is no problem.
        #expect(try await run(["true"]) == .string(""))
    }

    @Test("A failing, missing or slow program is a tool error, and a slow one is stopped")
    func failures() async throws {
        let failed = await #expect(throws: SDKException.self) {
            try await run(["sh", "-c", "echo broken >&2; exit 3"])
        }
        #expect(failed?.code == .toolExecutionFailed)
        #expect(failed?.message.contains("status 3") == true && failed?.message.contains("broken") == true)
        let missing = await #expect(throws: (any Error).self) { try await run(["/nonexistent/tool"]) }
        #expect(missing != nil)
        // A child of the tool holding its output open is stopped with it.
        let slow = await #expect(throws: SDKException.self) {
            try await run(["sh", "-c", "sleep 30 & sleep 30"], timeout: 0.5)
        }
        #expect(slow?.message.contains("stopped") == true)
    }
}
