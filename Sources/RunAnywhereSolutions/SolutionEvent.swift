@_spi(Backend) import RunAnywhere

/// What a running solution reports on ``SolutionHandle/events``.
public enum SolutionEvent: Sendable {
    /// The solution started taking inputs.
    case started(name: String)
    /// Input number `index` (from 0) is being processed.
    case input(index: Int, text: String)
    /// A spoken input was transcribed.
    case transcript(index: Int, text: String)
    /// The model called a tool.
    case toolCall(index: Int, name: String, arguments: JSONValue)
    /// A tool answered (or failed, with `isError`).
    case toolResult(index: Int, name: String, output: String, isError: Bool)
    /// The answer to input `index`; `details` holds what the pipeline adds (sources, audio file).
    case output(index: Int, text: String, details: [String: String])
    /// Input `index` failed; the solution goes on with the next.
    case failed(index: Int, error: SDKException)
    /// The solution ended: every input processed after ``SolutionHandle/closeInput()``,
    /// or stopped, or cancelled.
    case finished(SolutionSummary)
}

/// How a solution ended.
public struct SolutionSummary: Sendable, Equatable {
    /// Why it ended.
    public enum Reason: String, Sendable, Equatable {
        /// Its input was closed and every input processed.
        case inputClosed = "input_closed"
        /// ``SolutionHandle/stop()`` was called.
        case stopped
        /// ``SolutionHandle/cancel()`` was called.
        case cancelled
    }

    /// Inputs answered.
    public var processed: Int
    /// Inputs that failed.
    public var failed: Int
    /// Why it ended.
    public var reason: Reason

    /// Creates a summary.
    public init(processed: Int, failed: Int, reason: Reason) {
        self.processed = processed
        self.failed = failed
        self.reason = reason
    }
}
