/// The LoRA adapters applied to the loaded language model.
public struct LoRAState: Sendable, Codable, Equatable {
    /// The language model they apply to; `nil` when none is loaded.
    public var modelId: String?
    /// The adapters every generation uses unless its options name others, in the order
    /// they were applied.
    public var adapters: [LoRAAdapterSelection]

    /// Creates a state.
    public init(modelId: String?, adapters: [LoRAAdapterSelection]) {
        self.modelId = modelId
        self.adapters = adapters
    }
}
