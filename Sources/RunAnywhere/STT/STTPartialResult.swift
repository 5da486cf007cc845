#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What ``RunAnywhereSDK/transcribeStream(_:options:)-(AsyncStream<PCMAudio>,_)`` yields while audio arrives.
public struct STTPartialResult: Sendable, Equatable {
    /// The transcript of all audio so far.
    public var text: String
    /// Whether this is the final result (the input stream ended).
    public var isFinal: Bool
    /// Seconds of audio received so far.
    public var audioDuration: TimeInterval
    /// The full output; set on the final result.
    public var output: STTOutput?

    /// Creates a result.
    public init(text: String, isFinal: Bool, audioDuration: TimeInterval, output: STTOutput? = nil) {
        self.text = text
        self.isFinal = isFinal
        self.audioDuration = audioDuration
        self.output = output
    }
}
