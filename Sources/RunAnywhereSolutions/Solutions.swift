@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Runs solutions: the SDK's pipelines (voice agent, RAG question answering, an agent loop
/// with tools) configured in YAML or in Swift. Reach it as `RunAnywhereSDK.solutions` or
/// `RunAnywhere.solutions`; the latter runs each solution on the shared instance of the
/// moment, so a value taken before `RunAnywhere.initialize` (or kept across a reset) works once
/// the SDK is initialized.
///
/// ```swift
/// let handle = try await RunAnywhere.solutions.run(yaml: """
///     solution: agent-loop
///     llm: smollm2-135m-instruct
///     tools: [get_weather]
///     inputs: ["What's the weather in Lisbon?"]
///     """)
/// handle.start()
/// handle.closeInput()
/// for await event in handle.events { print(event) }
/// ```
public struct Solutions: Sendable {
    /// The instance the solutions run on, found when one runs: the shared facade's instance
    /// may be initialized after an app took `RunAnywhere.solutions`.
    private let instance: @Sendable () throws(SDKException) -> RunAnywhereSDK

    /// Solutions on the instance `instance` returns when a solution runs.
    init(_ instance: @escaping @Sendable () throws(SDKException) -> RunAnywhereSDK) {
        self.instance = instance
    }

    /// Checks a solution's YAML and returns its configuration, without running anything.
    ///
    /// - Throws: `.invalidConfiguration` naming the line and the key at fault: YAML that
    ///   does not parse, an unknown key, a missing one, a value of the wrong type or out of range.
    public func parse(yaml: String) throws(SDKException) -> SolutionConfig {
        try SolutionYAMLParser().parse(yaml)
    }

    /// Parses `yaml` and prepares the solution (see ``run(config:)``).
    public func run(yaml: String) async throws(SDKException) -> SolutionHandle {
        try await run(config: parse(yaml: yaml))
    }

    /// Runs a solution whose configuration arrives as bytes (the original SDK's canonical
    /// call): UTF-8 YAML, or JSON, which is YAML too (see ``run(yaml:)``).
    ///
    /// - Throws: `.invalidConfiguration` when the bytes are not UTF-8 text, and what
    ///   ``run(yaml:)`` throws.
    public func run(configBytes: Data) async throws(SDKException) -> SolutionHandle {
        guard let text = String(data: configBytes, encoding: .utf8) else {
            throw SDKException(.invalidConfiguration, "The solution configuration is not UTF-8 text")
        }
        return try await run(yaml: text)
    }

    /// Prepares a solution: loads its models, opens its index, registers its command tools;
    /// returns a handle that processes inputs once ``SolutionHandle/start()`` is called.
    ///
    /// - Throws: the preparation's errors: `.modelNotFound`, `.indexNotFound`,
    ///   `.invalidConfiguration` for a tool that is not registered, and so on; `.notInitialized`
    ///   for `RunAnywhere.solutions` before `RunAnywhere.initialize`.
    public func run(config: SolutionConfig) async throws(SDKException) -> SolutionHandle {
        let sdk = try instance()
        _ = try sdk.runtime()
        let pipeline: any SolutionPipeline
        switch config.pipeline {
        case .ragQuestionAnswering(let solution):
            pipeline = try await RAGQuestionAnsweringPipeline.prepare(solution, sdk: sdk)
        case .agentLoop(let solution):
            pipeline = try await AgentLoopPipeline.prepare(solution, sdk: sdk)
        case .voiceAgent(let solution):
            pipeline = try await VoiceAgentPipeline.prepare(solution, sdk: sdk)
        }
        return SolutionHandle(config: config, pipeline: pipeline)
    }
}

extension RunAnywhereSDK {
    /// This instance's solutions.
    public var solutions: Solutions { Solutions { self } }
}

extension RunAnywhere {
    /// The shared instance's solutions. Running one before
    /// `initialize(apiKey:baseURL:environment:storageDirectory:)` throws `.notInitialized`.
    public static var solutions: Solutions { Solutions { () throws(SDKException) in try sdk() } }
}
