import Foundation
import RunAnywhere

/// Measures how well a model picks tools and fills their arguments, on a set of requests
/// with known answers: the set `runanywhere bench tools` and our tests use, or your own.
///
/// The set is a JSON file: `{"tools": [OpenAI-style function definitions], "requests":
/// [{"prompt": …, "tool": "<right tool>", "arguments": {<values that must appear>}}]}`.
/// Expected strings match case-insensitively as substrings of the model's value; numbers
/// and other values must be equal.
///
/// ```swift
/// let evaluation = try ToolCallingEvaluation(contentsOf: URL(fileURLWithPath: "requests.json"))
/// let report = try await evaluation.run(on: sdk, routing: .hybrid)
/// print(report.toolAccuracy, report.argumentAccuracy)
/// ```
public struct ToolCallingEvaluation: Sendable {
    /// One request and its right answer.
    public struct Case: Sendable, Codable, Equatable {
        /// What the user asks.
        public var prompt: String
        /// The tool that should be called.
        public var tool: String
        /// Argument values that must appear in the call.
        public var arguments: JSONValue
    }

    /// How a model did on the set under one routing method.
    public struct Report: Sendable, Codable, Equatable {
        /// The routing method used.
        public var routing: ToolRouting
        /// Requests run.
        public var requests: Int
        /// Share of requests whose call named the right tool.
        public var toolAccuracy: Double
        /// Share of right-tool calls whose arguments hold every expected value.
        public var argumentAccuracy: Double
        /// Share of requests whose arguments were valid against the tool's schema.
        public var validArguments: Double
        /// Mean time per request, in milliseconds.
        public var meanMs: Double
        /// The requests that went wrong, one line each.
        public var misses: [String]

        enum CodingKeys: String, CodingKey {
            case routing
            case requests
            case toolAccuracy = "tool_accuracy"
            case argumentAccuracy = "argument_accuracy"
            case validArguments = "valid_arguments"
            case meanMs = "mean_ms"
            case misses
        }
    }

    /// The tools offered with every request.
    public let tools: [ToolDefinition]
    /// The requests.
    public let cases: [Case]

    /// Reads a set from a JSON file.
    ///
    /// - Throws: `.fileSystemError` when unreadable, `.invalidInput` or `.invalidTool` when malformed.
    public init(contentsOf url: URL) throws(SDKException) {
        let text: String
        do {
            text = try String(contentsOf: url, encoding: .utf8)
        } catch {
            throw SDKException(.fileSystemError, "Cannot read \(url.path): \(error.readableDescription)")
        }
        let value = try JSONValue(parsing: text)
        guard let toolList = value["tools"], let requests = value["requests"]?.arrayValue else {
            throw SDKException(.invalidInput, "\(url.lastPathComponent) needs \"tools\" and \"requests\" arrays")
        }
        tools = try ToolDefinition.list(openAI: toolList.jsonText())
        cases = try requests.map { entry throws(SDKException) in
            guard let prompt = entry["prompt"]?.stringValue, let tool = entry["tool"]?.stringValue else {
                throw SDKException(.invalidInput, "A request needs \"prompt\" and \"tool\" strings")
            }
            return Case(prompt: prompt, tool: tool, arguments: entry["arguments"] ?? .object([:]))
        }
    }

    /// Greedy decoding with the sampling the published figures were measured with (a
    /// repetition penalty of 1.1; the SDK's default, as in the original SDK, is none).
    public static let defaultOptions = LLMGenerationOptions(
        maxTokens: 128,
        temperature: 0,
        topP: 0.95,
        topK: 40,
        repetitionPenalty: 1.1
    )

    /// Runs every request with `toolChoice: .required` (a call is due in each) and scores
    /// the first call. With `concurrency` above 1 that many requests run at once, for a model
    /// loaded with as many slots (greedy replies are the same batched or alone); ``Report/meanMs``
    /// is then the wall time per request, not one request's latency.
    public func run(
        on sdk: RunAnywhereSDK,
        routing: ToolRouting,
        options: LLMGenerationOptions = Self.defaultOptions,
        concurrency: Int = 1
    ) async throws(SDKException) -> Report {
        let start = ContinuousClock.now
        var outcomes = [Outcome?](repeating: nil, count: cases.count)
        var next = 0
        do {
            try await withThrowingTaskGroup(of: (Int, Outcome).self) { group in
                func startNext() {
                    guard next < cases.count else { return }
                    let index = next
                    let item = cases[index]
                    next += 1
                    group.addTask { (index, try await score(item, on: sdk, routing: routing, options: options)) }
                }
                for _ in 0..<max(1, concurrency) { startNext() }
                while let (index, outcome) = try await group.next() {
                    outcomes[index] = outcome
                    startNext()
                }
            }
        } catch {
            throw SDKException.wrap(error, as: .internalError, "The tool-calling evaluation failed")
        }
        var rightTool = 0
        var rightArguments = 0
        var valid = 0
        var misses: [String] = []
        for outcome in outcomes.compactMap({ $0 }) {
            if outcome.validArguments { valid += 1 }
            if outcome.rightTool { rightTool += 1 }
            if outcome.rightArguments { rightArguments += 1 }
            if let miss = outcome.miss { misses.append(miss) }
        }
        let count = Double(max(cases.count, 1))
        return Report(
            routing: routing,
            requests: cases.count,
            toolAccuracy: Double(rightTool) / count,
            argumentAccuracy: rightTool == 0 ? 0 : Double(rightArguments) / Double(rightTool),
            validArguments: Double(valid) / count,
            meanMs: start.duration(to: .now).milliseconds / count,
            misses: misses
        )
    }

    /// How one request went.
    private struct Outcome: Sendable {
        var validArguments = false
        var rightTool = false
        var rightArguments = false
        var miss: String?
    }

    private func score(
        _ item: Case,
        on sdk: RunAnywhereSDK,
        routing: ToolRouting,
        options: LLMGenerationOptions
    ) async throws(SDKException) -> Outcome {
        let result: ToolCallingResult
        do {
            result = try await sdk.generateWithTools(
                item.prompt,
                tools: tools,
                options: options,
                toolOptions: ToolCallingOptions(
                    toolChoice: .required,
                    maxIterations: 1,
                    maxParallelCalls: 1,
                    routing: routing,
                    executeTools: false
                )
            )
        } catch  where error.code == .invalidStructuredOutput {
            // maxTokens ran out inside the call (a string the model never closed): a miss.
            return Outcome(miss: "\(item.prompt) → incomplete call: \(error.message)")
        }
        guard let call = result.toolCalls.first else {
            return Outcome(miss: "\(item.prompt) → no call")
        }
        var outcome = Outcome()
        if let tool = tools.first(where: { $0.name == call.name }), tool.parameters.validate(call.arguments).isEmpty {
            outcome.validArguments = true
        }
        guard call.name == item.tool else {
            outcome.miss = "\(item.prompt) → \(call.name) (expected \(item.tool))"
            return outcome
        }
        outcome.rightTool = true
        if Self.argumentsMatch(expected: item.arguments, actual: call.arguments) {
            outcome.rightArguments = true
        } else {
            outcome.miss = "\(item.prompt) → \(call.arguments.jsonText()) (expected \(item.arguments.jsonText()))"
        }
        return outcome
    }

    /// Whether every expected value appears in `actual`: strings as case-insensitive
    /// substrings, other values equal (numbers across integer and decimal forms).
    public static func argumentsMatch(expected: JSONValue, actual: JSONValue) -> Bool {
        guard let expectedObject = expected.objectValue else { return expected == actual }
        for (key, value) in expectedObject {
            guard let got = actual[key] else { return false }
            switch (value, got) {
            case (.string(let want), .string(let have)):
                guard have.lowercased().contains(want.lowercased()) else { return false }
            case _ where value.doubleValue != nil:
                guard value.doubleValue == got.doubleValue else { return false }
            default:
                guard value == got else { return false }
            }
        }
        return true
    }
}

extension ToolCallingEvaluation {
    /// How well structured output fills the right tool's arguments when the tool is given:
    /// each request's arguments generated with `generateStructured` against that tool's
    /// parameter schema, telling the model `schemaInPrompt` of it. The share of requests
    /// whose values hold every expected value; it measures which prompt style gives better
    /// values (every output is valid either way).
    public func structuredArgumentAccuracy(
        on sdk: RunAnywhereSDK,
        schemaInPrompt: StructuredOutputOptions.SchemaPrompt,
        options: LLMGenerationOptions = Self.defaultOptions
    ) async throws(SDKException) -> Double {
        var right = 0
        for item in cases {
            guard let tool = tools.first(where: { $0.name == item.tool }) else { continue }
            var request = options
            request.systemPrompt = "Fill in the arguments of the tool \(tool.name): \(tool.description)"
            let result = try await sdk.generateStructured(
                item.prompt,
                schema: tool.parameters,
                options: request,
                structuredOptions: StructuredOutputOptions(schemaInPrompt: schemaInPrompt, strict: true)
            )
            if let value = result.value, Self.argumentsMatch(expected: item.arguments, actual: value) { right += 1 }
        }
        return Double(right) / Double(max(cases.count, 1))
    }
}
