@_spi(Backend) import RunAnywhere
import RunAnywhereRAG

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A solution: one of the SDK's pipelines, configured, ready for ``Solutions/run(config:)``.
///
/// Written in YAML for ``Solutions/run(yaml:)`` (see `Examples/*.yaml`), or built here:
///
/// ```swift
/// let config = SolutionConfig(name: "notes", pipeline: .ragQuestionAnswering(
///     RAGSolution(index: "house", llm: "smollm2-135m-instruct")))
/// let handle = try await sdk.solutions.run(config: config)
/// ```
public struct SolutionConfig: Sendable, Equatable {
    /// The pipelines a solution can run.
    public enum Pipeline: Sendable, Equatable {
        /// Spoken turns: each input is a WAV file, answered with text and speech.
        case voiceAgent(VoiceAgentSolution)
        /// Questions answered from a RAG index, citing its sources.
        case ragQuestionAnswering(RAGSolution)
        /// A conversation in which the model calls tools until it can answer.
        case agentLoop(AgentLoopSolution)

        /// The name YAML gives it: `voice-agent`, `rag-qa` or `agent-loop`.
        public var kind: String {
            switch self {
            case .voiceAgent: "voice-agent"
            case .ragQuestionAnswering: "rag-qa"
            case .agentLoop: "agent-loop"
            }
        }
    }

    /// A name for logs and events.
    public var name: String
    /// What it runs.
    public var pipeline: Pipeline
    /// Inputs fed when it starts, before any ``SolutionHandle/feed(_:)``.
    public var inputs: [String]

    /// Creates a configuration.
    public init(name: String, pipeline: Pipeline, inputs: [String] = []) {
        self.name = name
        self.pipeline = pipeline
        self.inputs = inputs
    }
}

/// The voice agent as a solution: each input is the path of a WAV file holding one spoken turn.
public struct VoiceAgentSolution: Sendable, Equatable {
    /// The speech-to-text model.
    public var stt: String
    /// The language model.
    public var llm: String
    /// The voice, if replies are spoken.
    public var tts: String?
    /// The voice-activity model, if any.
    public var vad: String?
    /// The system prompt.
    public var systemPrompt: String
    /// The longest reply, in tokens.
    public var maxTokens: Int
    /// Where each spoken reply is written as `reply-N.wav`, if anywhere.
    public var outputDirectory: URL?

    /// Creates the configuration.
    public init(
        stt: String,
        llm: String,
        tts: String? = nil,
        vad: String? = nil,
        systemPrompt: String = VoiceAgentConfiguration.defaultSystemPrompt,
        maxTokens: Int = 96,
        outputDirectory: URL? = nil
    ) {
        self.stt = stt
        self.llm = llm
        self.tts = tts
        self.vad = vad
        self.systemPrompt = systemPrompt
        self.maxTokens = maxTokens
        self.outputDirectory = outputDirectory
    }
}

/// Question answering from a RAG index as a solution: each input is a question.
public struct RAGSolution: Sendable, Equatable {
    /// The index to answer from.
    public var index: String
    /// The language model; the loaded one when `nil`.
    public var llm: String?
    /// Sources retrieved per question.
    public var topK: Int
    /// The longest answer, in tokens.
    public var maxTokens: Int
    /// The sampling temperature.
    public var temperature: Float
    /// How the model is told to use the sources.
    public var instructions: String

    /// Creates the configuration.
    public init(
        index: String,
        llm: String? = nil,
        topK: Int = 4,
        maxTokens: Int = 256,
        temperature: Float = 0,
        instructions: String = RAGQueryOptions.defaultInstructions
    ) {
        self.index = index
        self.llm = llm
        self.topK = topK
        self.maxTokens = maxTokens
        self.temperature = temperature
        self.instructions = instructions
    }
}

/// An agent loop as a solution: each input is a user turn of one conversation, answered by
/// the model with the tools it calls.
public struct AgentLoopSolution: Sendable, Equatable {
    /// The language model.
    public var llm: String
    /// The system prompt.
    public var systemPrompt: String
    /// Tools already in the SDK's `ToolRegistry`, by name.
    public var tools: [String]
    /// Tools that run a program, declared with the solution.
    public var commandTools: [CommandTool]
    /// Whether the model's first turn for each input may, must or must not call a tool;
    /// later turns are free to answer.
    public var toolChoice: ToolChoice
    /// The most model turns per input.
    public var maxIterations: Int
    /// The longest model turn, in tokens.
    public var maxTokens: Int
    /// The sampling temperature.
    public var temperature: Float

    /// Creates the configuration.
    public init(
        llm: String,
        systemPrompt: String = "You are a helpful assistant. Use the tools when they help.",
        tools: [String] = [],
        commandTools: [CommandTool] = [],
        toolChoice: ToolChoice = .auto,
        maxIterations: Int = 4,
        maxTokens: Int = 256,
        temperature: Float = 0
    ) {
        self.llm = llm
        self.systemPrompt = systemPrompt
        self.tools = tools
        self.commandTools = commandTools
        self.toolChoice = toolChoice
        self.maxIterations = maxIterations
        self.maxTokens = maxTokens
        self.temperature = temperature
    }
}

/// A tool that runs a program: the call's arguments go to its standard input as JSON, and
/// its standard output (JSON, or else text) is the result. A non-zero exit is a tool error.
public struct CommandTool: Sendable, Equatable {
    /// What the model sees.
    public var definition: ToolDefinition
    /// The program and its arguments; the program is looked up on `PATH` unless it is a path.
    public var command: [String]
    /// The longest run, in seconds.
    public var timeoutSeconds: Double

    /// Creates a command tool.
    public init(definition: ToolDefinition, command: [String], timeoutSeconds: Double = 30) {
        self.definition = definition
        self.command = command
        self.timeoutSeconds = timeoutSeconds
    }
}
