import Foundation
@_spi(Backend) import RunAnywhere
import RunAnywhereRAG
import Yams

/// Reads a solution's YAML into a ``SolutionConfig``, checking every key and value: an
/// unknown key, a missing one or a value of the wrong type is an `.invalidConfiguration`
/// error that names the key and its line.
struct SolutionYAMLParser {
    /// Longer YAML is refused: a solution is a page or two.
    static let maximumLength = 1 << 20
    /// Values a tool's `parameters` may expand into. YAML aliases share one node however often
    /// they are used, so ten levels of ten aliases are a hundred lines that mean 10^10 values
    /// (the "billion laughs"); real parameter schemas have tens.
    static let maximumParameterNodes = 100_000

    func parse(_ yaml: String) throws(SDKException) -> SolutionConfig {
        guard yaml.utf8.count <= Self.maximumLength else {
            throw SDKException(
                .invalidConfiguration,
                "The solution YAML has \(yaml.utf8.count) bytes; the limit is \(Self.maximumLength)"
            )
        }
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: yaml) else {
                throw SDKException(.invalidConfiguration, "The solution YAML is empty")
            }
            root = node
        } catch let error as SDKException {
            throw error
        } catch let error as YamlError {
            throw SDKException(.invalidConfiguration, "The solution YAML does not parse: \(error)")
        } catch {
            throw SDKException(.invalidConfiguration, "The solution YAML does not parse: \(error)")
        }
        let top = try Fields(root, path: "the solution")
        let kind = try top.string("solution", required: true) ?? ""
        let common = ["solution", "name", "inputs"]
        let pipeline: SolutionConfig.Pipeline
        switch kind {
        case "rag-qa":
            try top.allow(common + ["index", "llm", "top_k", "max_tokens", "temperature", "instructions"])
            pipeline = .ragQuestionAnswering(
                RAGSolution(
                    index: try top.string("index", required: true) ?? "",
                    llm: try top.string("llm"),
                    topK: try top.int("top_k", in: 1...100) ?? 4,
                    maxTokens: try top.int("max_tokens", in: 1...32_768) ?? 256,
                    temperature: Float(try top.double("temperature", in: 0...2) ?? 0),
                    instructions: try top.string("instructions") ?? RAGQueryOptions.defaultInstructions
                )
            )
        case "agent-loop":
            try top.allow(
                common + [
                    "llm", "system_prompt", "tools", "tool_choice", "max_iterations", "max_tokens", "temperature",
                ]
            )
            var registered: [String] = []
            var commands: [CommandTool] = []
            for (index, node) in try top.sequence("tools").enumerated() {
                if case .scalar(let scalar) = node {
                    registered.append(scalar.string)
                } else {
                    commands.append(try Self.commandTool(node, path: "tools[\(index)]"))
                }
            }
            var solution = AgentLoopSolution(
                llm: try top.string("llm", required: true) ?? "",
                tools: registered,
                commandTools: commands,
                maxIterations: try top.int("max_iterations", in: 1...32) ?? 4,
                maxTokens: try top.int("max_tokens", in: 1...32_768) ?? 256,
                temperature: Float(try top.double("temperature", in: 0...2) ?? 0)
            )
            if let prompt = try top.string("system_prompt") { solution.systemPrompt = prompt }
            if let choice = try top.string("tool_choice") {
                solution.toolChoice = ToolChoice(parsing: choice)
                let names = registered + commands.map(\.definition.name)
                if case .tool(let name) = solution.toolChoice, !names.contains(name) {
                    throw top.error(
                        at: "tool_choice",
                        "'tool_choice' must be auto, required, none or one of the tools, got '\(name)'"
                    )
                }
            }
            pipeline = .agentLoop(solution)
        case "voice-agent":
            try top.allow(common + ["stt", "llm", "tts", "vad", "system_prompt", "max_tokens", "output_dir"])
            pipeline = .voiceAgent(
                VoiceAgentSolution(
                    stt: try top.string("stt", required: true) ?? "",
                    llm: try top.string("llm", required: true) ?? "",
                    tts: try top.string("tts"),
                    vad: try top.string("vad"),
                    systemPrompt: try top.string("system_prompt") ?? VoiceAgentConfiguration.defaultSystemPrompt,
                    maxTokens: try top.int("max_tokens", in: 1...4096) ?? 96,
                    outputDirectory: try top.string("output_dir").map { URL(fileURLWithPath: $0, isDirectory: true) }
                )
            )
        default:
            throw top.error(
                at: "solution",
                "'solution' must be voice-agent, rag-qa or agent-loop, got '\(kind)'"
            )
        }
        let inputs = try top.sequence("inputs").enumerated().map { (index, node) throws(SDKException) -> String in
            guard case .scalar(let scalar) = node, !scalar.string.trimmedSpaces().isEmpty,
                !(scalar.style == .plain && node.null != nil)
            else {
                throw SDKException(
                    .invalidConfiguration,
                    "\(Fields.line(node.mark))inputs[\(index)] must be a non-empty string"
                )
            }
            return scalar.string
        }
        return SolutionConfig(name: try top.string("name") ?? kind, pipeline: pipeline, inputs: inputs)
    }

    /// A tool declared in the YAML: name, description, parameters (a JSON Schema) and command.
    private static func commandTool(_ node: Node, path: String) throws(SDKException) -> CommandTool {
        let fields = try Fields(node, path: path)
        try fields.allow(["name", "description", "parameters", "command", "timeout_seconds"])
        let name = try fields.string("name", required: true) ?? ""
        let command = try fields.strings("command", required: true)
        guard !command.isEmpty, !command[0].isEmpty else {
            throw fields.error(at: "command", "\(path).command must name a program")
        }
        var function: [(String, JSONValue)] = [
            ("name", .string(name)),
            ("description", .string(try fields.string("description") ?? "")),
        ]
        if let parameters = fields.value("parameters") {
            guard case .mapping = parameters else {
                throw fields.error(at: "parameters", "\(path).parameters must be a JSON Schema object")
            }
            var budget = Self.maximumParameterNodes
            guard let schema = json(parameters, budget: &budget) else {
                throw fields.error(
                    at: "parameters",
                    "\(path).parameters expands into more than \(Self.maximumParameterNodes) values (YAML aliases "
                        + "used again and again)"
                )
            }
            function.append(("parameters", schema))
        }
        let definition: ToolDefinition
        do throws(SDKException) {
            definition = try ToolDefinition(openAI: .object(JSONObject(function)))
            try definition.validate()
        } catch {
            throw SDKException(.invalidConfiguration, "\(Fields.line(node.mark))\(path): \(error.message)")
        }
        return CommandTool(
            definition: definition,
            command: command,
            timeoutSeconds: try fields.double("timeout_seconds", in: 0.1...3600) ?? 30
        )
    }

    /// A YAML value as JSON, scalars typed by YAML's own resolution (`3` a number, `yes` a bool);
    /// `nil` once it has taken more than `budget` values.
    static func json(_ node: Node, budget: inout Int) -> JSONValue? {
        budget -= 1
        guard budget >= 0 else { return nil }
        switch node {
        case .mapping(let mapping):
            var members: [(String, JSONValue)] = []
            for (key, value) in mapping {
                guard let member = json(value, budget: &budget) else { return nil }
                members.append((key.string ?? "", member))
            }
            return .object(JSONObject(members))
        case .sequence(let sequence):
            var items: [JSONValue] = []
            for item in sequence {
                guard let value = json(item, budget: &budget) else { return nil }
                items.append(value)
            }
            return .array(items)
        case .scalar(let scalar):
            if node.null != nil, scalar.style == .plain { return .null }
            if scalar.style == .plain {
                if let bool = node.bool { return .bool(bool) }
                if let int = node.int { return .integer(Int64(int)) }
                if let double = node.float { return .number(double) }
            }
            return .string(scalar.string)
        case .alias:
            return .null
        }
    }
}

/// The keys of one YAML mapping, read with their lines for error messages.
private struct Fields {
    let path: String
    let mark: Mark?
    let entries: [(key: String, mark: Mark?, value: Node)]

    init(_ node: Node, path: String) throws(SDKException) {
        guard case .mapping(let mapping) = node else {
            throw SDKException(
                .invalidConfiguration,
                "\(Self.line(node.mark))\(path) must be a mapping of keys to values"
            )
        }
        var entries: [(key: String, mark: Mark?, value: Node)] = []
        for (key, value) in mapping {
            guard case .scalar(let scalar) = key else {
                throw SDKException(.invalidConfiguration, "\(Self.line(key.mark))keys of \(path) must be plain names")
            }
            entries.append((scalar.string, key.mark, value))
        }
        self.path = path
        self.mark = node.mark
        self.entries = entries
    }

    static func line(_ mark: Mark?) -> String {
        mark.map { "line \($0.line): " } ?? ""
    }

    func error(at key: String, _ message: String) -> SDKException {
        let mark = entries.first { $0.key == key }?.mark ?? self.mark
        return SDKException(.invalidConfiguration, "\(Self.line(mark))\(message)")
    }

    /// Fails on the first key not in `allowed`.
    func allow(_ allowed: [String]) throws(SDKException) {
        for entry in entries where !allowed.contains(entry.key) {
            throw SDKException(
                .invalidConfiguration,
                "\(Self.line(entry.mark))unknown key '\(entry.key)' in \(path)",
                recovery: "Expected one of: \(allowed.joined(separator: ", "))"
            )
        }
    }

    func value(_ key: String) -> Node? {
        entries.first { $0.key == key }?.value
    }

    func string(_ key: String, required: Bool = false) throws(SDKException) -> String? {
        guard let node = value(key) else {
            if required { throw SDKException(.invalidConfiguration, "\(Self.line(mark))\(path) needs '\(key)'") }
            return nil
        }
        guard case .scalar(let scalar) = node, !(scalar.style == .plain && node.null != nil) else {
            throw error(at: key, "'\(key)' must be a string")
        }
        if required, scalar.string.trimmedSpaces().isEmpty {
            throw error(at: key, "'\(key)' must not be empty")
        }
        return scalar.string
    }

    func int(_ key: String, in range: ClosedRange<Int>) throws(SDKException) -> Int? {
        guard let node = value(key) else { return nil }
        guard case .scalar(let scalar) = node, let number = node.int else {
            throw error(at: key, "'\(key)' must be an integer, got '\(Self.text(node))'")
        }
        guard range.contains(number) else {
            throw error(
                at: key,
                "'\(key)' must be between \(range.lowerBound) and \(range.upperBound), got \(scalar.string)"
            )
        }
        return number
    }

    func double(_ key: String, in range: ClosedRange<Double>) throws(SDKException) -> Double? {
        guard let node = value(key) else { return nil }
        guard case .scalar(let scalar) = node, let number = node.float ?? node.int.map(Double.init) else {
            throw error(at: key, "'\(key)' must be a number, got '\(Self.text(node))'")
        }
        guard range.contains(number) else {
            throw error(
                at: key,
                "'\(key)' must be between \(range.lowerBound) and \(range.upperBound), got \(scalar.string)"
            )
        }
        return number
    }

    func sequence(_ key: String) throws(SDKException) -> [Node] {
        guard let node = value(key) else { return [] }
        guard case .sequence(let sequence) = node else {
            throw error(at: key, "'\(key)' must be a list")
        }
        return Array(sequence)
    }

    func strings(_ key: String, required: Bool = false) throws(SDKException) -> [String] {
        if value(key) == nil, required {
            throw SDKException(.invalidConfiguration, "\(Self.line(mark))\(path) needs '\(key)'")
        }
        return try sequence(key).map { (node) throws(SDKException) -> String in
            guard case .scalar(let scalar) = node else { throw error(at: key, "'\(key)' must be a list of strings") }
            return scalar.string
        }
    }

    private static func text(_ node: Node) -> String {
        switch node {
        case .scalar(let scalar): scalar.string
        case .mapping: "a mapping"
        case .sequence: "a list"
        case .alias: "an alias"
        }
    }
}
