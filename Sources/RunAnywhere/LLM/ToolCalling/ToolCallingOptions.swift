/// How ``RunAnywhereSDK/generateWithTools(_:tools:options:toolOptions:)`` runs its loop.
///
/// ```swift
/// let options = ToolCallingOptions(toolChoice: .required, maxIterations: 3, routing: .hybrid)
/// ```
public struct ToolCallingOptions: Sendable, Codable, Equatable {
    /// Whether and which tool the model must call first; later turns are `.auto`.
    public var toolChoice: ToolChoice
    /// Most model turns; the loop stops after this many even if the model keeps calling.
    public var maxIterations: Int
    /// How many calls one turn may hold (run concurrently); 1 disables parallel calls.
    public var maxParallelCalls: Int
    /// How the tool is chosen once a call is due.
    public var routing: ToolRouting
    /// Run the executors and feed results back. Off, the loop stops after the first turn
    /// and returns the calls the model made (as an API server does).
    public var executeTools: Bool
    /// Seconds an executor may take before its call fails with a timeout; `nil` waits.
    public var executorTimeout: Double?
    /// The call format; `nil` picks the model's native one from its chat template.
    public var format: ToolCallFormat?

    /// Creates options; the defaults suit a small on-device model.
    public init(
        toolChoice: ToolChoice = .auto,
        maxIterations: Int = 5,
        maxParallelCalls: Int = 4,
        routing: ToolRouting = .hybrid,
        executeTools: Bool = true,
        executorTimeout: Double? = 30,
        format: ToolCallFormat? = nil
    ) {
        self.toolChoice = toolChoice
        self.maxIterations = maxIterations
        self.maxParallelCalls = maxParallelCalls
        self.routing = routing
        self.executeTools = executeTools
        self.executorTimeout = executorTimeout
        self.format = format
    }

    /// Checks ranges; throws `.invalidInput` naming the first bad field.
    public func validate() throws(SDKException) {
        guard (1...100).contains(maxIterations) else {
            throw SDKException(.invalidInput, "maxIterations must be in 1…100 (got \(maxIterations))")
        }
        guard (1...32).contains(maxParallelCalls) else {
            throw SDKException(.invalidInput, "maxParallelCalls must be in 1…32 (got \(maxParallelCalls))")
        }
        if let executorTimeout {
            guard executorTimeout.isFinite, executorTimeout > 0 else {
                throw SDKException(.invalidInput, "executorTimeout must be a positive number of seconds")
            }
        }
    }
}

extension ToolCallingOptions {
    /// The default options (the original SDK's factory).
    public static func defaults() -> ToolCallingOptions { ToolCallingOptions() }
}
