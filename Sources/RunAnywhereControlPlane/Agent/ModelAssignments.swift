@_spi(Backend) public import RunAnywhere

#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// The models the control plane assigned to this device, and the etag that names this set.
public struct ModelAssignments: Sendable, Codable, Equatable {
    /// Names this set; sent back so an unchanged set costs one 304.
    public var etag: String
    /// The assigned models.
    public var models: [ModelAssignment]

    /// Creates a set.
    public init(etag: String, models: [ModelAssignment]) {
        self.etag = etag
        self.models = models
    }
}

/// One model the control plane assigned to the device: where its files are and what they
/// hash to. Phase 2 registers it and, when ``required``, downloads it.
public struct ModelAssignment: Sendable, Codable, Equatable {
    /// The model's id in the registry.
    public var modelId: String
    /// Its display name.
    public var name: String
    /// The category's raw value, e.g. `llm` (see `ModelCategory`).
    public var category: String
    /// The framework's raw value, e.g. `llamacpp` (see `InferenceFramework`).
    public var framework: String
    /// The context length, when the control plane sets one.
    public var contextLength: Int?
    /// Download without waiting for the app to ask.
    public var required: Bool
    /// The files; the first is the one engines open.
    public var files: [RemoteFile]

    /// Creates an assignment.
    public init(
        modelId: String,
        name: String,
        category: String,
        framework: String,
        contextLength: Int? = nil,
        required: Bool = false,
        files: [RemoteFile]
    ) {
        self.modelId = modelId
        self.name = name
        self.category = category
        self.framework = framework
        self.contextLength = contextLength
        self.required = required
        self.files = files
    }
}
