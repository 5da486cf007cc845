import RunAnywhereJSON
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Runs a tool: takes the validated arguments object, returns any JSON. (The original SDK's
/// ``ToolExecutor`` maps member dictionaries instead.)
public typealias JSONToolExecutor = @Sendable (_ arguments: JSONValue) async throws -> JSONValue

/// The tools an SDK instance can call, with their executors.
///
/// ```swift
/// try sdk.tools.register(weather) { arguments in
///     ["city": arguments["city"] ?? nil, "temperature_c": 21]
/// }
/// let result = try await sdk.generateWithTools("What's the weather in Paris?")
/// ```
///
/// Arguments are validated against the tool's schema before an executor runs; an executor
/// that throws or exceeds its timeout becomes a failed ``ToolResult``, never a crash.
public final class ToolRegistry: Sendable {
    private struct Entry: Sendable {
        var definition: ToolDefinition
        var executor: JSONToolExecutor
    }

    private let entries = Mutex<[Entry]>([])

    /// An empty registry; every ``RunAnywhereSDK`` has its own as ``RunAnywhereSDK/tools``.
    public init() {}

    /// Adds a tool.
    ///
    /// - Throws: `.invalidTool` for a malformed definition or a name already registered.
    public func register(_ definition: ToolDefinition, executor: @escaping JSONToolExecutor) throws(SDKException) {
        try definition.validate()
        try entries.withLock { entries throws(SDKException) in
            guard !entries.contains(where: { $0.definition.name == definition.name }) else {
                throw SDKException(.invalidTool, "A tool named '\(definition.name)' is already registered")
            }
            entries.append(Entry(definition: definition, executor: executor))
        }
    }

    /// Adds a tool whose executor takes and returns `Codable` values.
    ///
    /// - Throws: `.invalidTool` for a malformed definition or a name already registered.
    public func register<Arguments: Decodable & Sendable, Output: Encodable & Sendable>(
        _ definition: ToolDefinition,
        as arguments: Arguments.Type,
        executor: @escaping @Sendable (Arguments) async throws -> Output
    ) throws(SDKException) {
        try register(definition) { value in
            let decoded = try value.decode(as: Arguments.self)
            return try JSONValue(encoding: try await executor(decoded))
        }
    }

    /// Adds a tool, or replaces the one of the same name in its place (definition and executor).
    ///
    /// - Throws: `.invalidTool` for a malformed definition; the registry is then unchanged.
    public func replace(_ definition: ToolDefinition, executor: @escaping JSONToolExecutor) throws(SDKException) {
        try definition.validate()
        entries.withLock { entries in
            let entry = Entry(definition: definition, executor: executor)
            if let index = entries.firstIndex(where: { $0.definition.name == definition.name }) {
                entries[index] = entry
            } else {
                entries.append(entry)
            }
        }
    }

    /// Removes a tool; returns whether it was registered.
    @discardableResult
    public func unregister(_ name: String) -> Bool {
        entries.withLock { entries in
            let before = entries.count
            entries.removeAll { $0.definition.name == name }
            return entries.count < before
        }
    }

    /// The registered tools, in registration order.
    public var definitions: [ToolDefinition] {
        entries.withLock { $0.map(\.definition) }
    }

    /// Removes every tool.
    public func clear() {
        entries.withLock { $0.removeAll() }
    }

    /// Runs one call: unknown tools and invalid arguments are refused without running
    /// anything; a throwing or slow executor gives a failed result.
    ///
    /// - Parameters:
    ///   - call: The tool's name and arguments.
    ///   - timeout: Seconds before the call fails; `nil` waits for the executor.
    public func execute(_ call: ToolCall, timeout: Double? = 30) async -> ToolResult {
        guard let entry = entries.withLock({ entries in entries.first { $0.definition.name == call.name } }) else {
            return ToolResult(callId: call.id, name: call.name, error: "Unknown tool '\(call.name)'")
        }
        let violations = entry.definition.parameters.validate(call.arguments, strictObjects: false)
        guard violations.isEmpty else {
            let list = violations.prefix(3).map(\.description).joined(separator: "; ")
            return ToolResult(callId: call.id, name: call.name, error: "Invalid arguments: \(list)")
        }
        do {
            let output = try await Self.run(entry.executor, call.arguments, timeout: timeout)
            return ToolResult(callId: call.id, name: call.name, output: output)
        } catch let error as SDKException {
            return ToolResult(callId: call.id, name: call.name, error: error.message)
        } catch {
            return ToolResult(callId: call.id, name: call.name, error: "\(error)")
        }
    }

    /// Races the executor against the timeout without waiting for an executor that ignores
    /// cancellation: it is cancelled and left to finish on its own.
    private static func run(
        _ executor: @escaping JSONToolExecutor,
        _ arguments: JSONValue,
        timeout: Double?
    ) async throws
        -> JSONValue
    {
        guard let timeout else { return try await executor(arguments) }
        let once = Once()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<JSONValue, any Error>) in
            let work = Task {
                let result: Result<JSONValue, any Error>
                do {
                    result = .success(try await executor(arguments))
                } catch {
                    result = .failure(error)
                }
                if once.claim() { continuation.resume(with: result) }
            }
            Task {
                try? await Task.sleep(for: .seconds(timeout))
                guard once.claim() else { return }
                work.cancel()
                continuation.resume(
                    throwing: SDKException(.toolExecutionFailed, "The tool did not answer within \(timeout) s")
                )
            }
        }
    }

    /// True for the first caller only: whichever of the executor and the timer ends first
    /// resumes the continuation.
    private final class Once: Sendable {
        private let claimed = Mutex(false)

        func claim() -> Bool {
            claimed.withLock { claimed in
                defer { claimed = true }
                return !claimed
            }
        }
    }
}
