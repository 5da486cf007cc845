/// The tags around a model's reasoning block in its output (``LLMService/reasoningTags``).
@_spi(Backend) public struct ReasoningTags: Sendable, Equatable {
    /// The text that opens the block, e.g. `<think>` or `[THINK]`.
    public var open: String
    /// Each text that closes it, e.g. `</think>`.
    public var close: [String]

    /// Tags; `close` must hold at least one non-empty text (else `<think>`'s are used).
    public init(open: String, close: [String]) {
        let close = close.filter { !$0.isEmpty }
        if open.isEmpty || close.isEmpty {
            self = .think
        } else {
            self.open = open
            self.close = close
        }
    }

    private init(unchecked open: String, _ close: [String]) {
        self.open = open
        self.close = close
    }

    /// `<think>` and `</think>`: most reasoning models, and the default.
    public static let think = ReasoningTags(unchecked: "<think>", ["</think>"])

    /// Whether a prompt leaves the model inside an opened block (only blank space after the
    /// last opening tag), as templates that open reasoning for the model do.
    func opensBlock(_ prompt: String) -> Bool {
        guard let last = prompt.ranges(of: open).last else { return false }
        return prompt[last.upperBound...].allSatisfy(\.isWhitespace)
    }
}
