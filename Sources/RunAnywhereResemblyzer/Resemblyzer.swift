import Foundation
@_spi(Backend) import RunAnywhere

/// Speaker diarization with Resemblyzer's GE2E speaker encoder (Apache-2.0, from its PyPI
/// wheel, converted to GGUF by `scripts/convert_resemblyzer_gguf.py`), run in Swift on
/// OpenBLAS.
///
/// ```swift
/// Resemblyzer.register()
/// try RunAnywhere.initialize()
/// try await RunAnywhere.loadDiarizationModel("resemblyzer-ge2e")
/// let segments = try await RunAnywhere.diarize(recording)
/// ```
public enum Resemblyzer {
    /// The framework id its models are registered with.
    public static let framework = InferenceFramework("resemblyzer")

    /// Adds the module to the shared SDK (`RunAnywhere`).
    public static func register() {
        RunAnywhere.register(ResemblyzerModule())
    }
}

/// The `BackendModule` that offers the Resemblyzer speaker encoder.
public struct ResemblyzerModule: BackendModule {
    /// The module's name, `resemblyzer`.
    public let name = "resemblyzer"

    /// Creates the module.
    public init() {}

    /// Offers the encoder for speaker-embedding models of the `resemblyzer` framework.
    public func register(with registry: ServiceRegistry) {
        registry.registerSpeakerEmbedding(
            name: name,
            canHandle: { $0.framework == Resemblyzer.framework && $0.category == .speakerEmbedding },
            factory: { model in try ResemblyzerService(model: model) }
        )
    }

    /// Describes the encoder for diagnostics.
    public func engineInfo() -> EngineInfo {
        var details: [String: String] = [:]
        if case .failure(let error) = OpenBLASLibrary.shared { details["error"] = error.message }
        return EngineInfo(
            name: "resemblyzer",
            version: "0.1.4 (GE2E), OpenBLAS",
            available: details.isEmpty,
            details: details
        )
    }
}
