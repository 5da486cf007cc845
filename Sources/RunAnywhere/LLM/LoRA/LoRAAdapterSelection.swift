/// A LoRA adapter and the scale it is applied at.
///
/// The scale multiplies the adapter's change to the weights (after its own `alpha / rank`):
/// 1 applies it as trained, 0 turns it off, 0.5 halfway, a negative scale pushes the other
/// way. Several selections stack: their changes add up.
public struct LoRAAdapterSelection: Sendable, Codable, Equatable, Hashable {
    /// The adapter's id in the model registry.
    public var id: String
    /// How strongly it applies; any finite value, 1 as trained.
    public var scale: Float

    /// Selects adapter `id` at `scale`.
    public init(id: String, scale: Float = 1) {
        self.id = id
        self.scale = scale
    }

    /// Checks a list of selections: finite scales, no adapter twice.
    static func validate(_ selections: [LoRAAdapterSelection]) throws(SDKException) {
        var seen: Set<String> = []
        for selection in selections {
            guard selection.scale.isFinite else {
                throw SDKException(
                    .invalidInput,
                    "LoRA adapter '\(selection.id)' has scale \(selection.scale); it must be finite"
                )
            }
            guard seen.insert(selection.id).inserted else {
                throw SDKException(
                    .invalidInput,
                    "LoRA adapter '\(selection.id)' is selected twice",
                    recovery: "Give each adapter once, with the sum of the scales"
                )
            }
        }
    }
}
