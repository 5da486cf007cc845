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
        EngineInfo(name: "resemblyzer", version: "0.1.4 (GE2E), OpenBLAS", available: true)
    }
}

/// A loaded encoder. An actor: one batch at a time, each using every core through OpenBLAS.
actor ResemblyzerService: SpeakerEmbeddingService {
    nonisolated let model: ModelInfo
    nonisolated let sampleRate = ResemblyzerNetwork.sampleRate
    nonisolated let dimension = ResemblyzerNetwork.hidden
    nonisolated let windowDuration =
        Double(ResemblyzerNetwork.partialFrames * ResemblyzerNetwork.hop)
        / Double(ResemblyzerNetwork.sampleRate)
    private var network: ResemblyzerNetwork?

    init(model: ModelInfo) throws(SDKException) {
        guard let path = model.localPath else {
            throw SDKException(.modelFileNotFound, "Model '\(model.id)' has no local file")
        }
        self.model = model
        self.network = try ResemblyzerNetwork(file: Self.weightsFile(path))
    }

    /// The GGUF file: the path itself, or the one `.gguf` file in a model folder.
    static func weightsFile(_ path: URL) throws(SDKException) -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory) else {
            throw SDKException(.modelFileNotFound, "No file at \(path.path)")
        }
        guard isDirectory.boolValue else { return path }
        let files = (try? FileManager.default.contentsOfDirectory(at: path, includingPropertiesForKeys: nil)) ?? []
        guard let file = files.first(where: { $0.pathExtension == "gguf" }) else {
            throw SDKException(.modelFileNotFound, "No .gguf file in \(path.path)")
        }
        return file
    }

    func embed(_ clips: [[Float]]) async throws -> [[Float]] {
        guard let network else { throw SDKException(.modelNotLoaded, "The speaker encoder was unloaded") }
        for clip in clips where !clip.allSatisfy(\.isFinite) {
            throw SDKException(.invalidAudio, "The audio has samples that are not finite numbers")
        }
        return network.embed(clips)
    }

    func unload() async {
        network = nil
    }
}
