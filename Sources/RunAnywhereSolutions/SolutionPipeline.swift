@_spi(Backend) import RunAnywhere

/// One pipeline of a solution, prepared (models loaded, index opened) and ready for inputs.
protocol SolutionPipeline: Sendable {
    /// Answers one input; `emit` reports what happens on the way.
    func process(
        _ input: String,
        index: Int,
        emit: @Sendable (SolutionEvent) -> Void
    ) async throws(SDKException) -> (text: String, details: [String: String])

    /// Releases what ``Solutions`` set up for it (tools it registered).
    func close() async
}
