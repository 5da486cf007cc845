import Foundation
@_spi(Backend) import RunAnywhere

/// A loaded Resemblyzer encoder.
///
/// An actor, one batch at a time; the matrix products block for as long as they take, so
/// they run on a thread of their own rather than on Swift's cooperative pool, and OpenBLAS
/// spreads each one over the cores.
actor ResemblyzerService: SpeakerEmbeddingService {
    nonisolated let model: ModelInfo
    nonisolated let sampleRate = ResemblyzerNetwork.sampleRate
    nonisolated let dimension = ResemblyzerNetwork.hidden
    nonisolated let windowDuration =
        Double(ResemblyzerNetwork.partialFrames * ResemblyzerNetwork.hop) / Double(ResemblyzerNetwork.sampleRate)
    private var network: ResemblyzerNetwork?
    private let worker: WorkerThread

    init(model: ModelInfo) throws(SDKException) {
        guard let path = model.localPath else {
            throw SDKException(.modelFileNotFound, "Model '\(model.id)' has no local file")
        }
        self.model = model
        self.network = try ResemblyzerNetwork(file: Self.weightsFile(path))
        self.worker = WorkerThread(name: "resemblyzer.\(model.id)")
    }

    /// The GGUF file: the path itself, or the first `.gguf` file (by name) in a model folder.
    static func weightsFile(_ path: URL) throws(SDKException) -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory) else {
            throw SDKException(.modelFileNotFound, "No file at \(path.path)")
        }
        guard isDirectory.boolValue else { return path }
        let files = (try? FileManager.default.contentsOfDirectory(at: path, includingPropertiesForKeys: nil)) ?? []
        guard let file = files.filter({ $0.pathExtension == "gguf" }).min(by: { $0.path < $1.path }) else {
            throw SDKException(.modelFileNotFound, "No .gguf file in \(path.path)")
        }
        return file
    }

    func embed(_ clips: [[Float]]) async throws -> [[Float]] {
        guard let network else { throw SDKException(.modelNotLoaded, "The speaker encoder was unloaded") }
        // Beyond ±1000 the squares of a frame's spectrum overflow Float: that is no audio.
        for clip in clips where !clip.allSatisfy({ $0.isFinite && abs($0) <= 1_000 }) {
            throw SDKException(
                .invalidAudio,
                "The audio has samples that are not finite numbers or are far out of range"
            )
        }
        return try await worker.run { network.embed(clips) }
    }

    func unload() async {
        network = nil
        worker.stop()
    }
}
