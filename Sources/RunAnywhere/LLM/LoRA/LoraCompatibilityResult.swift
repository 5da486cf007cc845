/// Whether a LoRA adapter fits a language model, checked from both GGUF headers before
/// anything is loaded.
///
/// An adapter fits when it is a LoRA adapter file, made for the model's architecture, and
/// every one of its tensor pairs changes a tensor the model has, with matching shapes; an
/// adapter that would change no tensor at all does not fit.
public struct LoraCompatibilityResult: Sendable, Codable, Equatable {
    /// Whether the adapter can be applied to the model.
    public var isCompatible: Bool
    /// Why not, when it cannot.
    public var reason: String?
    /// The architecture the adapter was made for (`general.architecture`), when readable.
    public var adapterArchitecture: String?
    /// The model's architecture, when readable.
    public var modelArchitecture: String?
    /// Model tensors the adapter changes.
    public var matchedTensors: Int
    /// The adapter's rank (the largest, if its tensors differ), when readable.
    public var rank: Int?
    /// The adapter's `alpha`: its changes are scaled by `alpha / rank`; `nil` means 1.
    public var alpha: Float?

    /// Creates a result.
    public init(
        isCompatible: Bool,
        reason: String? = nil,
        adapterArchitecture: String? = nil,
        modelArchitecture: String? = nil,
        matchedTensors: Int = 0,
        rank: Int? = nil,
        alpha: Float? = nil
    ) {
        self.isCompatible = isCompatible
        self.reason = reason
        self.adapterArchitecture = adapterArchitecture
        self.modelArchitecture = modelArchitecture
        self.matchedTensors = matchedTensors
        self.rank = rank
        self.alpha = alpha
    }
}
