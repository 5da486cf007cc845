import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sampling options shared by `generate` and `chat`.
struct SamplingOptions: ParsableArguments {
    @Option(name: .customLong("max-tokens"), help: "Most tokens to generate.") var maxTokens = 256
    @Option(help: "Sampling temperature; 0 is greedy.") var temperature: Float = 0.7
    @Option(name: .customLong("top-p")) var topP: Float = 0.95
    @Option(name: .customLong("top-k")) var topK = 40
    @Option(name: .customLong("repeat-penalty")) var repetitionPenalty: Float = 1.1
    @Option(help: "Random seed.") var seed: UInt32?
    @Option(name: .customLong("stop"), help: "A stop sequence (repeatable).") var stop: [String] = []
    @Option(help: "System prompt.") var system: String?
    @Option(help: "Decoding threads.") var threads: Int?

    var options: LLMGenerationOptions {
        LLMGenerationOptions(
            maxTokens: maxTokens,
            temperature: temperature,
            topP: topP,
            topK: topK,
            repetitionPenalty: repetitionPenalty,
            seed: seed,
            stopSequences: stop,
            systemPrompt: system,
            threads: threads
        )
    }
}

/// One generation: free text, JSON valid against a schema, text under a GBNF grammar, or tool calls.
struct GenerateCommand: SDKCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Generate text from a prompt (or JSON for a schema, or tool calls).",
        discussion: """
            --json-schema FILE prints only the JSON instance on stdout (with --json: \
            {"output": <instance>, "valid": true, ...metrics}). --tools FILE holds an array of OpenAI-style \
            function definitions; the calls are printed, not executed.
            """
    )

    @OptionGroup var global: GlobalOptions
    @Option(help: "Model id.") var model: String
    @Option(help: "The prompt.") var prompt: String
    @OptionGroup var sampling: SamplingOptions
    @Option(name: .customLong("context-length"), help: "Context size in tokens.") var contextLength: Int?
    @Flag(name: .customLong("raw"), help: "Send the prompt verbatim, without the chat template.") var raw = false
    @Flag(name: .long, help: "Print one JSON object with the text and metrics.") var json = false
    @Option(name: .customLong("json-schema"), help: "A JSON Schema file; the output is a valid instance of it.")
    var jsonSchema: String?
    @Flag(help: "With --json-schema: objects without additionalProperties allow no other members.")
    var strict = false
    @Flag(name: .customLong("best-effort"), help: "With --json-schema: skip keywords that cannot be enforced.")
    var bestEffort = false
    @Option(name: .customLong("schema-prompt"), help: "What the model is told of the schema: none, compact, full.")
    var schemaPrompt: String = "none"
    @Option(help: "A GBNF grammar file the output must follow (root rule 'root').") var grammar: String?
    @Option(help: "A JSON file with an array of OpenAI-style function definitions.") var tools: String?
    @Option(name: .customLong("tool-choice"), help: "auto, required, none, or a tool name.")
    var toolChoice: String = "auto"
    @Option(name: .customLong("tool-routing"), help: "How the tool is chosen: model, likelihood, lexical, hybrid.")
    var toolRouting: String = "hybrid"
    @Option(
        help:
            "A LoRA adapter for this generation: a registered id or a GGUF file, with an optional :SCALE (repeatable; they stack)."
    )
    var lora: [LoRAArgument] = []

    func validate() throws {
        let modes = [jsonSchema != nil, grammar != nil, tools != nil].filter { $0 }.count
        guard modes <= 1 else { throw ValidationError("Use at most one of --json-schema, --grammar and --tools") }
        guard StructuredOutputOptions.SchemaPrompt(rawValue: schemaPrompt) != nil else {
            throw ValidationError("--schema-prompt must be none, compact or full")
        }
        guard ToolRouting(rawValue: toolRouting) != nil else {
            throw ValidationError("--tool-routing must be model, likelihood, lexical or hybrid")
        }
    }

    func execute() async throws {
        // Files are read and checked before the model loads: a bad schema fails at once.
        var options = sampling.options
        options.applyChatTemplate = !raw
        if let grammar { options.grammar = LLMGrammar(try CLI.readText(grammar, what: "grammar")) }
        let schema = try jsonSchema.map { try JSONSchema(parsing: try CLI.readText($0, what: "schema")) }
        let toolList = try tools.map { try ToolDefinition.list(openAI: try CLI.readText($0, what: "tool list")) }
        let structured = StructuredOutputOptions(
            schemaInPrompt: StructuredOutputOptions.SchemaPrompt(rawValue: schemaPrompt) ?? .none,
            strict: strict,
            bestEffort: bestEffort
        )
        if let schema {
            // Compiling first names an unsupported keyword before the model is loaded.
            _ = try JSONSchemaGrammar(
                schema,
                options: JSONSchemaGrammar.Options(strictObjects: strict, bestEffort: bestEffort)
            )
        }
        try await CLI.start(global)
        let adapters = try LoRAArgument.resolve(lora)
        do {
            if !lora.isEmpty { options.loraAdapters = adapters.selections }
            try await generate(options: options, schema: schema, tools: toolList, structured: structured)
        } catch {
            await adapters.cleanup()
            throw error
        }
        await adapters.cleanup()
    }

    private func generate(
        options: LLMGenerationOptions,
        schema: JSONSchema?,
        tools toolList: [ToolDefinition]?,
        structured: StructuredOutputOptions
    ) async throws {
        let loadStart = ContinuousClock.now
        try await RunAnywhere.loadModel(model, contextLength: contextLength, threads: sampling.threads)
        let loadMs = loadStart.duration(to: .now).milliseconds
        if let schema {
            return try await generateStructured(schema, options: options, structured: structured)
        }
        if let toolList {
            return try await generateToolCalls(toolList, options: options)
        }
        if json {
            return try CLI.printJSON(await RunAnywhere.generate(prompt, options: options))
        }
        for try await event in try await RunAnywhere.generateStream(prompt, options: options) {
            switch event {
            case .token(let text, let isThinking):
                if !isThinking { CLI.write(text) }
            case .completed(let r):
                CLI.write("\n")
                // `bench startup` reads the load time here: a first load in a fresh process.
                CLI.printError(
                    "[\(r.generatedTokens) tokens, \(CLI.format(r.tokensPerSecond)) tok/s, "
                        + "first token \(CLI.format(r.timeToFirstTokenMs)) ms, \(r.finishReason.rawValue), "
                        + "\(r.executedOn.rawValue), model load \(CLI.format(loadMs)) ms]"
                )
            }
        }
    }

    private func generateStructured(
        _ schema: JSONSchema,
        options: LLMGenerationOptions,
        structured: StructuredOutputOptions
    ) async throws {
        let result = try await RunAnywhere.generateStructured(
            prompt,
            schema: schema,
            options: options,
            structuredOptions: structured
        )
        if json {
            let g = result.generation
            var object: JSONObject = [
                "output": result.value ?? .null,
                "valid": .bool(result.isValid),
                "text": .string(result.text),
                "finish_reason": .string(g.finishReason.rawValue),
                "tokens_generated": .integer(Int64(g.generatedTokens)),
                "tokens_per_second": .number(g.tokensPerSecond),
                "time_to_first_token_ms": .number(g.timeToFirstTokenMs),
                "total_ms": .number(g.totalMs),
                "executed_on": .string(g.executedOn.rawValue),
            ]
            object["errors"] = .array(result.validation.violations.map { .string($0.description) })
            object["error"] = result.validation.errorMessage.map { .string($0) }
            object["unenforced_keywords"] = .array(result.unenforced.map { .string($0.description) })
            CLI.write(JSONValue.object(object).jsonText() + "\n")
            if !result.isValid { throw ExitCode(1) }
            return
        }
        guard result.isValid, let value = result.value else {
            CLI.printError("error: \(result.validation.errorMessage ?? "the output is not valid")")
            if !result.text.isEmpty { CLI.printError("partial output: \(result.text)") }
            throw ExitCode(1)
        }
        CLI.write(value.jsonText() + "\n")
    }

    private func generateToolCalls(_ tools: [ToolDefinition], options: LLMGenerationOptions) async throws {
        let result = try await RunAnywhere.generateWithTools(
            prompt,
            tools: tools,
            options: options,
            toolOptions: ToolCallingOptions(
                toolChoice: ToolChoice(parsing: toolChoice),
                maxIterations: 1,
                routing: ToolRouting(rawValue: toolRouting) ?? .hybrid,
                executeTools: false
            )
        )
        let calls = JSONValue.array(
            result.toolCalls.map { ["name": .string($0.name), "arguments": $0.arguments] }
        )
        if json {
            var object: JSONObject = [
                "tool_calls": calls,
                "text": .string(result.text),
                "executed_on": .string(result.generation.executedOn.rawValue),
            ]
            object["selections"] = .array(
                result.selections.map { selection in
                    ["tool": .string(selection.tool), "method": .string(selection.method.rawValue)]
                }
            )
            CLI.write(JSONValue.object(object).jsonText() + "\n")
            return
        }
        if !result.text.isEmpty { CLI.write(result.text + "\n") }
        for call in result.toolCalls { CLI.write("call \(call.name) \(call.arguments.jsonText())\n") }
    }
}
