#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How to tell speakers apart.
///
/// ```swift
/// // Two people on a call:
/// let segments = try await RunAnywhere.diarize(audio, options: DiarizationOptions(speakerCount: 2))
/// ```
public struct DiarizationOptions: Sendable, Codable, Equatable {
    /// How many people talk, when known; `nil` estimates it.
    public var speakerCount: Int?
    /// The most speakers an estimate may find.
    public var maximumSpeakers: Int
    /// When estimating: two groups of speech are one speaker while their voices' average
    /// cosine similarity is at least this. Higher finds more speakers.
    public var similarityThreshold: Float

    /// The middle of the range (0.60–0.65) in which `runanywhere bench diarize` finds the right
    /// number of speakers in every conversation of its real recordings; 0.55 merges two
    /// similar voices, 0.70 splits a noisy one.
    public static let defaultSimilarityThreshold: Float = 0.63

    /// Options; without a count, the number of speakers is estimated.
    public init(
        speakerCount: Int? = nil,
        maximumSpeakers: Int = 8,
        similarityThreshold: Float = DiarizationOptions.defaultSimilarityThreshold
    ) {
        self.speakerCount = speakerCount
        self.maximumSpeakers = maximumSpeakers
        self.similarityThreshold = similarityThreshold
    }

    /// Checks the values; the SDK calls this before any work.
    public func validate() throws(SDKException) {
        if let speakerCount, !(1...64).contains(speakerCount) {
            throw SDKException(.invalidInput, "speakerCount must be between 1 and 64 (got \(speakerCount))")
        }
        guard (1...64).contains(maximumSpeakers) else {
            throw SDKException(.invalidInput, "maximumSpeakers must be between 1 and 64 (got \(maximumSpeakers))")
        }
        guard similarityThreshold.isFinite, (-1...1).contains(similarityThreshold) else {
            throw SDKException(
                .invalidInput,
                "similarityThreshold is a cosine similarity between -1 and 1 (got \(similarityThreshold))"
            )
        }
    }
}
