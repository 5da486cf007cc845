#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a model comes from, in the original SDK's terms.
public enum ModelSource: String, Sendable, Codable, CaseIterable {
    /// Fetched from a URL, or served by a remote server.
    case remote
    /// Imported from a file on this machine.
    case local
}

extension ModelInfo {
    /// Where the model comes from: `.remote` when it has something to download (or a remote
    /// server runs it), `.local` when it was imported from a file.
    public var source: ModelSource {
        artifact != nil || downloadURL != nil || remote != nil ? .remote : .local
    }

    /// The original SDK's factory: a model entry whose artifact, when not given, is inferred
    /// from `downloadURL` (``inferredArtifact(from:format:)``: an archive by its suffix, else
    /// one file).
    ///
    /// The original's `supportsThinking`, `description`, `source` and `updatedAt` are taken so
    /// its calls compile, and have no field here: whether a model thinks is read from its chat
    /// template, ``source`` follows from what the entry has, and an entry has one date,
    /// `createdAt` (``registeredAt``). Its `thinkingPattern` is not taken.
    public static func make(
        id: String,
        name: String,
        category: ModelCategory,
        format: ModelFormat,
        framework: InferenceFramework,
        downloadURL: URL? = nil,
        localPath: URL? = nil,
        artifact: ModelArtifact? = nil,
        downloadSizeBytes: Int64? = nil,
        contextLength: Int? = nil,
        supportsThinking: Bool = false,
        description: String? = nil,
        source: ModelSource = .remote,
        createdAt: Date = Date(),
        updatedAt: Date = Date()
    ) -> ModelInfo {
        ModelInfo(
            id: id,
            name: name,
            category: category,
            format: format,
            framework: framework,
            localPath: localPath,
            sizeBytes: downloadSizeBytes,
            contextLength: contextLength,
            downloadURL: downloadURL,
            artifact: artifact ?? downloadURL.map { inferredArtifact(from: $0, format: format) },
            registeredAt: createdAt
        )
    }
}
