/// The files a model is expected to have on disk once downloaded (and unpacked): the
/// original SDK's manifest, read from the model's artifact (``ModelInfo/expectedArtifactFiles``).
public struct ExpectedModelFiles: Sendable, Equatable {
    /// The files fetched one by one (one file, or several); empty for an archive.
    public var files: [ModelFileDescriptor]
    /// The folder the files sit in, relative to the model's folder; empty for the model's folder itself.
    public var rootDirectory: String
    /// Paths that must exist once an archive is unpacked: its primary file and the others it
    /// lists.
    public var requiredPatterns: [String]
    /// Paths that may exist; none are declared here.
    public var optionalPatterns: [String]
    /// A note on the manifest, if any.
    public var description: String

    /// A manifest.
    public init(
        files: [ModelFileDescriptor] = [],
        rootDirectory: String = "",
        requiredPatterns: [String] = [],
        optionalPatterns: [String] = [],
        description: String = ""
    ) {
        self.files = files
        self.rootDirectory = rootDirectory
        self.requiredPatterns = requiredPatterns
        self.optionalPatterns = optionalPatterns
        self.description = description
    }

    /// The empty manifest: nothing expected.
    public static var none: ExpectedModelFiles { ExpectedModelFiles() }

    /// Whether nothing is expected.
    public var isEmptyManifest: Bool { self == .none }
}

extension ModelInfo {
    /// The files the model is expected to have once downloaded (the original SDK's
    /// manifest): the files a download fetches, or, for an archive, the paths it must
    /// unpack; empty when the model has no artifact.
    public var expectedArtifactFiles: ExpectedModelFiles {
        switch artifact {
        case .archive(let archive):
            let required = ([archive.primaryFile] + archive.expectedFiles).filter { !$0.isEmpty }
            return ExpectedModelFiles(requiredPatterns: required)
        case .file, .files:
            return ExpectedModelFiles(files: artifact?.remoteFiles ?? [])
        case nil:
            return .none
        }
    }
}
