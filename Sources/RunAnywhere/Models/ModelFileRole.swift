#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a file of a model is for (the original SDK's `ModelFileRole`).
public enum ModelFileRole: String, Sendable, Codable, CaseIterable {
    /// The file engines open: weights, or the model's folder for folder-based engines.
    case primaryModel
    /// A vision-language model's projector (`mmproj`).
    case visionProjector
    /// The tokenizer (`tokenizer.json`, `tokenizer.model` or `tokens.txt`).
    case tokenizer
    /// The model's configuration (`config.json`).
    case config
    /// The vocabulary (`vocab.txt` or `vocab.json`).
    case vocabulary

    /// The file names a file of this role goes by beside the primary file, in preference order.
    var sideFileNames: [String] {
        switch self {
        case .primaryModel, .visionProjector: []
        case .tokenizer: ["tokenizer.json", "tokenizer.model", "tokens.txt"]
        case .config: ["config.json"]
        case .vocabulary: ["vocab.txt", "vocab.json"]
        }
    }

    /// The role a file's name says it plays, whatever its case: a side file by its usual
    /// names, a projector by `mmproj` in its name, else the primary model.
    static func role(ofFileNamed name: String) -> ModelFileRole {
        let lowered = name.lowercased()
        if lowered.contains("mmproj") { return .visionProjector }
        return allCases.first { $0.sideFileNames.contains(lowered) } ?? .primaryModel
    }
}

extension ModelInfo {
    /// The path of the model's file of `role` on this machine, or `nil` when the model is not
    /// downloaded or has no such file: the primary file, the vision projector, or a side file
    /// (tokenizer, config, vocabulary) found beside the primary file under its usual names.
    public func resolvedModelFilePath(role: ModelFileRole) -> String? {
        guard let primary = localPath else { return nil }
        let folder = primary.deletingLastPathComponent()
        let candidates: [URL]
        switch role {
        case .primaryModel:
            return FileManager.default.fileExists(atPath: primary.path) ? primary.path : nil
        case .visionProjector:
            candidates = visionProjectorFile.map { [folder.appendingPathComponent($0)] } ?? []
        case .tokenizer, .config, .vocabulary:
            candidates = role.sideFileNames.map { folder.appendingPathComponent($0) }
        }
        return candidates.first { FileSystem.isReadableFile($0) }?.path
    }

    /// The primary file's path (the original SDK's name).
    public var resolvedPrimaryModelPath: String? { resolvedModelFilePath(role: .primaryModel) }
    /// The vision projector's path.
    public var resolvedVisionProjectorPath: String? { resolvedModelFilePath(role: .visionProjector) }
    /// The tokenizer's path.
    public var resolvedTokenizerPath: String? { resolvedModelFilePath(role: .tokenizer) }
    /// The configuration's path.
    public var resolvedConfigPath: String? { resolvedModelFilePath(role: .config) }
    /// The vocabulary's path.
    public var resolvedVocabularyPath: String? { resolvedModelFilePath(role: .vocabulary) }
}

/// A result that names a model (``ModelLoadResult``, ``CurrentModelResult``), with the
/// original SDK's paths of its files.
public protocol ModelFilePaths {
    /// The model, when there is one.
    var model: ModelInfo? { get }
}

extension ModelFilePaths {
    /// The path of the model's file of `role`, as ``ModelInfo/resolvedModelFilePath(role:)``.
    public func resolvedModelFilePath(role: ModelFileRole) -> String? { model?.resolvedModelFilePath(role: role) }
    /// The path of the model's main file (the original SDK's name).
    public var resolvedPrimaryModelPath: String? { model?.resolvedPrimaryModelPath }
    /// The vision projector's path.
    public var resolvedVisionProjectorPath: String? { model?.resolvedVisionProjectorPath }
    /// The tokenizer's path.
    public var resolvedTokenizerPath: String? { model?.resolvedTokenizerPath }
    /// The configuration's path.
    public var resolvedConfigPath: String? { model?.resolvedConfigPath }
    /// The vocabulary's path.
    public var resolvedVocabularyPath: String? { model?.resolvedVocabularyPath }
}

extension ModelLoadResult: ModelFilePaths {}

extension Collection where Element == ModelFileDescriptor {
    /// The path of the local file of `role` among these descriptors (the original SDK's
    /// accessors on a collection of them): the first whose URL is a `file` URL and whose name
    /// says it plays `role` (``ModelFileRole``'s names; `mmproj` for a projector). `nil` when
    /// none does; a descriptor of a file still to download has no path yet.
    public func resolvedModelFilePath(role: ModelFileRole) -> String? {
        first { $0.url.isFileURL && ModelFileRole.role(ofFileNamed: $0.fileName) == role }?.url.path
    }
    /// The primary file's path (the original SDK's name).
    public var resolvedPrimaryModelPath: String? { resolvedModelFilePath(role: .primaryModel) }
    /// The vision projector's path.
    public var resolvedVisionProjectorPath: String? { resolvedModelFilePath(role: .visionProjector) }
    /// The tokenizer's path.
    public var resolvedTokenizerPath: String? { resolvedModelFilePath(role: .tokenizer) }
    /// The configuration's path.
    public var resolvedConfigPath: String? { resolvedModelFilePath(role: .config) }
    /// The vocabulary's path.
    public var resolvedVocabularyPath: String? { resolvedModelFilePath(role: .vocabulary) }
}
extension CurrentModelResult: ModelFilePaths {}
