internal import CPocketSphinx
@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Wake words with CMU pocketsphinx's keyword spotting, from Debian (`libpocketsphinx-dev`
/// and the `pocketsphinx-en-us` acoustic model): small, fast and offline.
///
/// ```swift
/// PocketSphinx.register()
/// try RunAnywhere.initialize()
/// let wake = WakeWordConfiguration(phrases: ["hey computer"])
/// for try await detection in RunAnywhere.startWakeWord(input: microphone, configuration: wake) {
///     print(detection.phrase)
/// }
/// ```
///
/// A phrase may only use words of the model's pronouncing dictionary (CMUdict, 134,000
/// English words); another word is a typed error when listening starts.
public enum PocketSphinx {
    /// Where Debian's `pocketsphinx-en-us` puts the US English model.
    public static let defaultModelDirectory = URL(fileURLWithPath: "/usr/share/pocketsphinx/model/en-us")

    /// Adds the module to the shared SDK (`RunAnywhere`).
    public static func register(modelDirectory: URL = defaultModelDirectory) {
        RunAnywhere.register(PocketSphinxModule(modelDirectory: modelDirectory))
    }
}

/// The `BackendModule` that offers pocketsphinx's keyword spotter for wake words.
public struct PocketSphinxModule: BackendModule {
    /// The module's name, `pocketsphinx`.
    public let name = "pocketsphinx"
    /// The folder of the acoustic model (`en-us/`) and the dictionary (`cmudict-en-us.dict`).
    public let modelDirectory: URL

    /// Creates the module over the model in `modelDirectory`.
    public init(modelDirectory: URL = PocketSphinx.defaultModelDirectory) {
        self.modelDirectory = modelDirectory
    }

    var model: PocketSphinxModel { PocketSphinxModel(directory: modelDirectory) }

    /// Offers the keyword spotter when the model is installed; without it, wake words fall
    /// back to transcripts.
    public func register(with registry: ServiceRegistry) {
        let model = self.model
        guard model.isInstalled else { return }
        registry.registerWakeWord(name: name, priority: 100) { configuration in
            try await PocketSphinxSpotter(model: model, configuration: configuration)
        }
    }

    /// Describes pocketsphinx for diagnostics.
    public func engineInfo() -> EngineInfo {
        var details: [String: String] = [:]
        if case .failure(let error) = PocketSphinxLibrary.shared { details["error"] = error.message }
        return EngineInfo(
            name: "pocketsphinx",
            version: "0.8+5prealpha",
            available: model.isInstalled && details.isEmpty,
            details: details
        )
    }
}

/// The files pocketsphinx needs.
struct PocketSphinxModel: Sendable {
    let directory: URL
    var acousticModel: URL { directory.appendingPathComponent("en-us") }
    var dictionary: URL { directory.appendingPathComponent("cmudict-en-us.dict") }

    var isInstalled: Bool {
        FileManager.default.fileExists(atPath: acousticModel.appendingPathComponent("mdef").path)
            && FileManager.default.fileExists(atPath: dictionary.path)
    }
}
