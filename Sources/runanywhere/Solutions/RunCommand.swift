import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine
import RunAnywhereSolutions

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `runanywhere run FILE.yaml`: a solution from YAML, on the inputs it lists and the ones given here.
struct RunCommand: SDKCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a solution (voice-agent, rag-qa or agent-loop) described in a YAML file.",
        discussion: """
            The YAML's `inputs`, then each --input, then (with --stdin) each line of standard input are \
            processed in order: questions for rag-qa, user turns for agent-loop, WAV paths for voice-agent. \
            See Examples/*.yaml. --check only validates the file.
            """
    )
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The solution's YAML file.") var file: String
    @Option(name: .customLong("input"), help: "An input to process after the YAML's own (repeatable).")
    var inputs: [String] = []
    @Flag(name: .long, help: "Also read inputs from standard input, one per line.") var stdin = false
    @Flag(name: .long, help: "Only check the YAML.") var check = false
    @Flag(name: .long, help: "Print each event as one JSON line.") var json = false

    func execute() async throws {
        let yaml = try CLI.readText(file, what: "solution")
        try await CLI.start(global, keywordSpotter: false)
        let solutions = RunAnywhere.solutions
        if check {
            let config = try solutions.parse(yaml: yaml)
            print("\(file): a valid \(config.pipeline.kind) solution with \(config.inputs.count) inputs")
            return
        }
        let handle = try await solutions.run(yaml: yaml)
        handle.start()
        for input in inputs { try handle.feed(input) }
        if stdin {
            while let line = readLine() {
                if !line.trimmedSpaces().isEmpty { try handle.feed(line) }
            }
        }
        handle.closeInput()
        var failed = 0
        for await event in handle.events {
            if case .failed = event { failed += 1 }
            if json {
                try CLI.printJSON(Line(event))
            } else {
                print(Self.describe(event))
            }
        }
        if failed > 0 { throw ExitCode(1) }
    }

    private static func describe(_ event: SolutionEvent) -> String {
        switch event {
        case .started(let name): "── \(name)"
        case .input(let index, let text): "» [\(index + 1)] \(text)"
        case .transcript(_, let text): "  heard: \(text)"
        case .toolCall(_, let name, let arguments): "  tool call: \(name)(\(arguments.jsonText()))"
        case .toolResult(_, let name, let output, let isError): "  \(name) \(isError ? "failed" : "→") \(output)"
        case .output(_, let text, let details):
            (["  \(text)"]
                + details.sorted { $0.key < $1.key }.filter { !$0.value.isEmpty }.map { "    \($0.key): \($0.value)" })
                .joined(separator: "\n")
        case .failed(let index, let error): "  input \(index + 1) failed: \(error)"
        case .finished(let summary):
            "── \(summary.processed) answered, \(summary.failed) failed (\(summary.reason.rawValue))"
        }
    }

    /// One event as JSON.
    struct Line: Encodable {
        var event: String
        var index: Int?
        var text: String?
        var name: String?
        var arguments: String?
        var isError: Bool?
        var details: [String: String]?
        var error: String?
        var errorCode: String?
        var processed: Int?
        var failed: Int?
        var reason: String?

        init(_ event: SolutionEvent) {
            switch event {
            case .started(let name):
                self.event = "started"
                self.name = name
            case .input(let index, let text):
                self.event = "input"
                self.index = index
                self.text = text
            case .transcript(let index, let text):
                self.event = "transcript"
                self.index = index
                self.text = text
            case .toolCall(let index, let name, let arguments):
                self.event = "tool_call"
                self.index = index
                self.name = name
                self.arguments = arguments.jsonText()
            case .toolResult(let index, let name, let output, let isError):
                self.event = "tool_result"
                self.index = index
                self.name = name
                self.text = output
                self.isError = isError
            case .output(let index, let text, let details):
                self.event = "output"
                self.index = index
                self.text = text
                self.details = details
            case .failed(let index, let error):
                self.event = "failed"
                self.index = index
                self.error = error.message
                self.errorCode = error.code.rawValue
            case .finished(let summary):
                self.event = "finished"
                self.processed = summary.processed
                self.failed = summary.failed
                self.reason = summary.reason.rawValue
            }
        }
    }
}
