#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where a download is.
public enum DownloadStage: String, Sendable, Codable, CaseIterable {
    /// Bytes are arriving.
    case downloading
    /// Checksums are being computed and compared.
    case validating
    /// An archive is being unpacked.
    case extracting
    /// The model is in place and loadable.
    case completed
    /// The download stopped; ``DownloadProgress/error`` says why.
    case failed

    /// The share of the whole job before this stage starts and once it ends, so one bar
    /// can show every stage: downloading 0–80%, validating 80–90%, extracting 90–99%.
    public var overallRange: ClosedRange<Double> {
        switch self {
        case .downloading: 0...0.8
        case .validating: 0.8...0.9
        case .extracting: 0.9...0.99
        case .completed: 1...1
        case .failed: 0...0
        }
    }
}

/// One report on a model download, delivered by `RunAnywhere.downloadModel(_:)`.
///
/// Reports arrive about ten times a second while bytes flow, at every change of stage and
/// retry, and once at the end with stage `.completed` (carrying the model) or `.failed`
/// (carrying the error).
public struct DownloadProgress: Sendable, Equatable {
    /// The model being downloaded.
    public var modelId: String
    /// The current stage.
    public var stage: DownloadStage
    /// Bytes of all the model's files on disk so far (a resumed partial file counts).
    public var bytesDownloaded: Int64
    /// Bytes of all the model's files, when known.
    public var totalBytes: Int64?
    /// Current transfer speed, bytes per second, averaged over the last seconds.
    public var bytesPerSecond: Double
    /// Seconds until the transfer ends at the current speed, when it can be told.
    public var estimatedTimeRemaining: Double?
    /// Progress within the current stage, 0…1.
    public var stageProgress: Double
    /// The file being worked on.
    public var currentFile: String?
    /// 0 for the first attempt; counts up with each retry.
    public var retry: Int
    /// The downloaded model, on `.completed`.
    public var model: ModelInfo?
    /// Why it failed, on `.failed`.
    public var error: SDKException?

    /// Creates a report.
    public init(
        modelId: String,
        stage: DownloadStage,
        bytesDownloaded: Int64 = 0,
        totalBytes: Int64? = nil,
        bytesPerSecond: Double = 0,
        estimatedTimeRemaining: Double? = nil,
        stageProgress: Double = 0,
        currentFile: String? = nil,
        retry: Int = 0,
        model: ModelInfo? = nil,
        error: SDKException? = nil
    ) {
        self.modelId = modelId
        self.stage = stage
        self.bytesDownloaded = bytesDownloaded
        self.totalBytes = totalBytes
        self.bytesPerSecond = bytesPerSecond
        self.estimatedTimeRemaining = estimatedTimeRemaining
        self.stageProgress = stageProgress
        self.currentFile = currentFile
        self.retry = retry
        self.model = model
        self.error = error
    }

    /// Progress of the whole job, 0…1, across stages (see ``DownloadStage/overallRange``).
    public var overallProgress: Double {
        let range = stage.overallRange
        return range.lowerBound + (range.upperBound - range.lowerBound) * min(max(stageProgress, 0), 1)
    }

    /// Whether this is the last report of the download.
    public var isFinal: Bool { stage == .completed || stage == .failed }
}
