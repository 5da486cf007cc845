import ArgumentParser
@_spi(Backend) import RunAnywhere
import RunAnywhereCommandLine
import RunAnywhereMCP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An interactive (or scripted) conversation: one user turn per line of stdin.
struct ChatCommand: SDKCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat",
        abstract: "Chat with a model; each line of stdin is a user turn (`/reset` clears history)."
    )

    @OptionGroup var global: GlobalOptions
    @Option(help: "Model id.") var model: String
    @OptionGroup var sampling: SamplingOptions
    @Option(help: "A JSON file with an array of OpenAI-style function definitions (no executors).")
    var tools: String?
    @Option(name: .customLong("mcp"), help: "An MCP server's command line, run over stdio (repeatable).")
    var mcp: [String] = []
    @Option(name: .customLong("tool-choice"), help: "auto, required, none, or a tool name.")
    var toolChoice: String = "auto"
    @Option(name: .customLong("tool-routing"), help: "How the tool is chosen: model, likelihood, lexical, hybrid.")
    var toolRouting: String = "hybrid"

    func validate() throws {
        guard ToolRouting(rawValue: toolRouting) != nil else {
            throw ValidationError("--tool-routing must be model, likelihood, lexical or hybrid")
        }
    }

    func execute() async throws {
        let fileTools = try tools.map { try ToolDefinition.list(openAI: try CLI.readText($0, what: "tool list")) } ?? []
        try await CLI.start(global)
        guard let sdk = RunAnywhere.shared else { throw SDKException(.notInitialized, "The SDK did not start") }
        var sources: [MCPToolSource] = []
        for commandLine in mcp {
            let source = try await MCPToolSource(commandLine: commandLine)
            try source.register(in: sdk.tools, prefix: nil)
            sources.append(source)
            CLI.printError("[mcp: \(source.name): \(source.tools.map(\.name).joined(separator: ", "))]")
        }
        try await RunAnywhere.loadModel(model)
        if !fileTools.isEmpty || !sources.isEmpty {
            return try await toolLoop(sdk, tools: fileTools + sources.flatMap(\.tools), sources: sources)
        }
        let interactive = isatty(STDIN_FILENO) != 0
        var history: [ChatMessage] = sampling.system.map { [.system($0)] } ?? []
        let base = history
        var options = sampling.options
        options.systemPrompt = nil
        while true {
            if interactive { CLI.write("you> ") }
            guard let line = readLine() else { break }
            let text = line.trimmedSpaces()
            if text.isEmpty { continue }
            if text == "/reset" {
                history = base
                continue
            }
            history.append(.user(text))
            if interactive { CLI.write("assistant> ") }
            var answer = ""
            for try await event in try await RunAnywhere.chatStream(history, options: options) {
                switch event {
                case .token(let piece, let isThinking):
                    if !isThinking { CLI.write(piece) }
                case .completed(let result):
                    answer = result.text
                }
            }
            CLI.write("\n")
            history.append(.assistant(answer))
        }
    }

    /// Each line is a user turn answered through the tool loop; calls and results are shown
    /// on stderr, the answer on stdout.
    private func toolLoop(
        _ sdk: RunAnywhereSDK,
        tools: [ToolDefinition],
        sources: [MCPToolSource]
    ) async throws {
        var history: [ChatMessage] = sampling.system.map { [.system($0)] } ?? []
        var options = sampling.options
        options.systemPrompt = nil
        let toolOptions = ToolCallingOptions(
            toolChoice: ToolChoice(parsing: toolChoice),
            routing: ToolRouting(rawValue: toolRouting) ?? .hybrid
        )
        let interactive = isatty(STDIN_FILENO) != 0
        while true {
            if interactive { CLI.write("you> ") }
            guard let line = readLine() else { break }
            let text = line.trimmedSpaces()
            if text.isEmpty { continue }
            history.append(.user(text))
            if interactive { CLI.write("assistant> ") }
            var answer = ""
            let events = try sdk.generateWithToolsStream(
                messages: history,
                tools: tools,
                options: options,
                toolOptions: toolOptions
            )
            for try await event in events {
                switch event {
                case .token(let piece): CLI.write(piece)
                case .toolCallStarted, .toolCallDelta: break
                case .toolCall(let call): CLI.printError("[call \(call.name) \(call.arguments.jsonText())]")
                case .toolResult(let result): CLI.printError("[result \(result.name): \(result.messageContent)]")
                case .completed(let result): answer = result.text
                }
            }
            CLI.write("\n")
            history.append(.assistant(answer))
        }
        for source in sources { await source.close() }
    }
}
