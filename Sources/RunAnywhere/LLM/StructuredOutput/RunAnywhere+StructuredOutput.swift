#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RunAnywhereSDK {
    /// Generates JSON that is a valid instance of `schema`, or says why not.
    ///
    /// The schema is compiled to a grammar, so the model can only write JSON the schema
    /// allows; the output is then validated against the schema in Swift before it is
    /// returned. A schema keyword that cannot be enforced fails the call with
    /// `.unsupportedSchema` (naming the keyword and where it is), unless
    /// `structuredOptions.bestEffort` is set.
    ///
    /// ```swift
    /// let schema = JSONSchema.object(["city": .string(), "population": .integer(minimum: 0)])
    /// let result = try await sdk.generateStructured("The largest city in Japan", schema: schema)
    /// if result.isValid { print(result.value!["city"]!) }
    /// ```
    ///
    /// - Returns: The result; when the model ran out of tokens before the JSON was complete,
    ///   ``StructuredOutputResult/isValid`` is false, the partial text is kept and
    ///   ``LLMGenerationResult/finishReason`` says why.
    /// - Throws: `.invalidSchema`, `.unsupportedSchema`, and the errors of
    ///   ``generate(_:options:)``.
    public func generateStructured(
        _ prompt: String,
        schema: JSONSchema,
        options: LLMGenerationOptions = LLMGenerationOptions(),
        structuredOptions: StructuredOutputOptions = StructuredOutputOptions()
    ) async throws(SDKException) -> StructuredOutputResult {
        let plan = try StructuredOutputPlan(schema: schema, options: options, structured: structuredOptions)
        let generation = try await runtime().llm.generate(.prompt(prompt), options: plan.options)
        return plan.finish(generation)
    }

    /// ``generateStructured(_:schema:options:structuredOptions:)`` under the original SDK's labels.
    public func generateStructured(
        prompt: String,
        schema: JSONSchema,
        options: LLMGenerationOptions = LLMGenerationOptions()
    ) async throws(SDKException) -> StructuredOutputResult {
        try await generateStructured(prompt, schema: schema, options: options)
    }

    /// Generates the next assistant turn of a conversation as JSON valid against `schema`.
    ///
    /// The conversation counterpart of ``generateStructured(_:schema:options:structuredOptions:)``.
    public func generateStructured(
        messages: [ChatMessage],
        schema: JSONSchema,
        options: LLMGenerationOptions = LLMGenerationOptions(),
        structuredOptions: StructuredOutputOptions = StructuredOutputOptions()
    ) async throws(SDKException) -> StructuredOutputResult {
        let plan = try StructuredOutputPlan(schema: schema, options: options, structured: structuredOptions)
        let generation = try await runtime().llm.generate(.messages(messages), options: plan.options)
        return plan.finish(generation)
    }

    /// Streams the JSON as it is generated; the last event carries the validated result.
    ///
    /// ```swift
    /// for try await event in try await sdk.generateStructuredStream("A user profile", schema: schema) {
    ///     switch event {
    ///     case .partial(let text): print(text)
    ///     case .completed(let result): print(result.isValid)
    ///     }
    /// }
    /// ```
    ///
    /// Stopping the iteration early cancels the generation.
    public func generateStructuredStream(
        _ prompt: String,
        schema: JSONSchema,
        options: LLMGenerationOptions = LLMGenerationOptions(),
        structuredOptions: StructuredOutputOptions = StructuredOutputOptions()
    ) async throws(SDKException) -> AsyncThrowingStream<StructuredOutputStreamEvent, any Error> {
        let plan = try StructuredOutputPlan(schema: schema, options: options, structured: structuredOptions)
        return structuredEvents(try await generateStream(prompt, options: plan.options), plan: plan)
    }

    /// ``generateStructuredStream(_:schema:options:structuredOptions:)`` in the original SDK's
    /// shape: not `async`, and an error (a missing model included) ends the stream and is logged.
    public func generateStructuredStream(
        prompt: String,
        schema: JSONSchema,
        options: LLMGenerationOptions = LLMGenerationOptions()
    ) -> AsyncStream<StructuredOutputStreamEvent> {
        .endingOnError(category: "LLM") {
            try await self.generateStructuredStream(prompt, schema: schema, options: options)
        }
    }

    /// Streams the next assistant turn of a conversation as JSON valid against `schema`.
    ///
    /// The conversation counterpart of ``generateStructuredStream(_:schema:options:structuredOptions:)``.
    public func generateStructuredStream(
        messages: [ChatMessage],
        schema: JSONSchema,
        options: LLMGenerationOptions = LLMGenerationOptions(),
        structuredOptions: StructuredOutputOptions = StructuredOutputOptions()
    ) async throws(SDKException) -> AsyncThrowingStream<StructuredOutputStreamEvent, any Error> {
        let plan = try StructuredOutputPlan(schema: schema, options: options, structured: structuredOptions)
        return structuredEvents(try await chatStream(messages, options: plan.options), plan: plan)
    }

    private func structuredEvents(
        _ tokens: AsyncThrowingStream<LLMStreamEvent, any Error>,
        plan: StructuredOutputPlan
    ) -> AsyncThrowingStream<StructuredOutputStreamEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: StructuredOutputStreamEvent.self)
        let task = Task {
            var text = ""
            do {
                for try await event in tokens {
                    switch event {
                    case .token(let piece, let isThinking):
                        guard !isThinking else { continue }
                        text += piece
                        continuation.yield(.partial(text: text))
                    case .completed(let generation):
                        continuation.yield(.completed(plan.finish(generation)))
                    }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
        }
        return stream
    }

    /// Generates a value of a ``Generable`` type: JSON constrained by its schema, validated,
    /// then decoded.
    ///
    /// ```swift
    /// struct Answer: Generable {
    ///     var city: String
    ///     var confident: Bool
    ///     static var generationSchema: JSONSchema { .object(["city": .string(), "confident": .boolean]) }
    /// }
    /// let answer = try await sdk.generate("Where is the Eiffel Tower?", as: Answer.self)
    /// ```
    ///
    /// - Throws: `.invalidStructuredOutput` when the model's output is not a valid instance
    ///   (e.g. `maxTokens` ran out first: the message says so), and the errors of
    ///   ``generateStructured(_:schema:options:structuredOptions:)``.
    public func generate<T: Generable>(
        _ prompt: String,
        as type: T.Type,
        options: LLMGenerationOptions = LLMGenerationOptions(),
        structuredOptions: StructuredOutputOptions = StructuredOutputOptions()
    ) async throws(SDKException) -> T {
        let result = try await generateStructured(
            prompt,
            schema: T.generationSchema,
            options: options,
            structuredOptions: structuredOptions
        )
        guard result.isValid, let value = result.value else {
            throw SDKException(
                .invalidStructuredOutput,
                result.validation.errorMessage ?? "The output is not a valid \(T.self)",
                recovery: result.generation.finishReason == .length ? "Raise maxTokens" : nil
            )
        }
        return try value.decode(as: T.self)
    }

    /// The original SDK's call: ``generateStructured(_:schema:options:structuredOptions:)``
    /// with the schema and its options in one value, returning the generation itself (its
    /// text is the JSON).
    public func generateWithStructuredOutput(
        prompt: String,
        structuredOutput: StructuredOutputConfig,
        options: LLMGenerationOptions? = nil
    ) async throws(SDKException) -> LLMGenerationResult {
        try await generateStructured(
            prompt,
            schema: structuredOutput.schema,
            options: options ?? LLMGenerationOptions(),
            structuredOptions: structuredOutput.options
        )
        .generation
    }
}

extension RunAnywhere {
    /// Generates JSON that is a valid instance of `schema`, or says why not.
    ///
    /// Calls ``RunAnywhereSDK/generateStructured(_:schema:options:structuredOptions:)`` on the shared instance.
    public static func generateStructured(
        _ prompt: String,
        schema: JSONSchema,
        options: LLMGenerationOptions = LLMGenerationOptions(),
        structuredOptions: StructuredOutputOptions = StructuredOutputOptions()
    ) async throws(SDKException) -> StructuredOutputResult {
        try await sdk().generateStructured(
            prompt,
            schema: schema,
            options: options,
            structuredOptions: structuredOptions
        )
    }

    /// ``generateStructured(_:schema:options:structuredOptions:)`` under the original SDK's labels.
    public static func generateStructured(
        prompt: String,
        schema: JSONSchema,
        options: LLMGenerationOptions = LLMGenerationOptions()
    ) async throws(SDKException) -> StructuredOutputResult {
        try await sdk().generateStructured(prompt, schema: schema, options: options)
    }

    /// Generates the next assistant turn of a conversation as JSON valid against `schema`.
    ///
    /// Calls ``RunAnywhereSDK/generateStructured(messages:schema:options:structuredOptions:)`` on the shared
    /// instance.
    public static func generateStructured(
        messages: [ChatMessage],
        schema: JSONSchema,
        options: LLMGenerationOptions = LLMGenerationOptions(),
        structuredOptions: StructuredOutputOptions = StructuredOutputOptions()
    ) async throws(SDKException) -> StructuredOutputResult {
        try await sdk().generateStructured(
            messages: messages,
            schema: schema,
            options: options,
            structuredOptions: structuredOptions
        )
    }

    /// Streams the JSON as it is generated; the last event carries the validated result.
    ///
    /// Calls ``RunAnywhereSDK/generateStructuredStream(_:schema:options:structuredOptions:)`` on the shared
    /// instance.
    public static func generateStructuredStream(
        _ prompt: String,
        schema: JSONSchema,
        options: LLMGenerationOptions = LLMGenerationOptions(),
        structuredOptions: StructuredOutputOptions = StructuredOutputOptions()
    ) async throws(SDKException) -> AsyncThrowingStream<StructuredOutputStreamEvent, any Error> {
        try await sdk().generateStructuredStream(
            prompt,
            schema: schema,
            options: options,
            structuredOptions: structuredOptions
        )
    }

    /// Generates a value of a ``Generable`` type.
    ///
    /// Calls ``RunAnywhereSDK/generate(_:as:options:structuredOptions:)`` on the shared instance.
    public static func generate<T: Generable>(
        _ prompt: String,
        as type: T.Type,
        options: LLMGenerationOptions = LLMGenerationOptions(),
        structuredOptions: StructuredOutputOptions = StructuredOutputOptions()
    ) async throws(SDKException) -> T {
        try await sdk().generate(prompt, as: type, options: options, structuredOptions: structuredOptions)
    }

    /// The original SDK's structured stream: not `async`, and an error (including a missing
    /// SDK or model) ends the stream and is logged.
    ///
    /// Calls ``RunAnywhereSDK/generateStructuredStream(_:schema:options:structuredOptions:)`` on
    /// the shared instance.
    public static func generateStructuredStream(
        prompt: String,
        schema: JSONSchema,
        options: LLMGenerationOptions = LLMGenerationOptions()
    ) -> AsyncStream<StructuredOutputStreamEvent> {
        .endingOnError(category: "LLM") {
            try await sdk().generateStructuredStream(prompt, schema: schema, options: options)
        }
    }

    /// The original SDK's structured generation, returning the generation itself.
    ///
    /// Calls ``RunAnywhereSDK/generateWithStructuredOutput(prompt:structuredOutput:options:)`` on
    /// the shared instance.
    public static func generateWithStructuredOutput(
        prompt: String,
        structuredOutput: StructuredOutputConfig,
        options: LLMGenerationOptions? = nil
    ) async throws(SDKException) -> LLMGenerationResult {
        try await sdk().generateWithStructuredOutput(
            prompt: prompt,
            structuredOutput: structuredOutput,
            options: options
        )
    }
}
