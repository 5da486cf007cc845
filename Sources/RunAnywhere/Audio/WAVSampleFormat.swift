#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How samples are stored in a WAV file.
public enum WAVSampleFormat: String, Sendable, Codable, CaseIterable {
    /// 8-bit unsigned integer PCM.
    case int8
    /// 16-bit signed integer PCM, the most widely read format.
    case int16
    /// 24-bit signed integer PCM.
    case int24
    /// 32-bit signed integer PCM.
    case int32
    /// 32-bit IEEE float.
    case float32

    var bitsPerSample: Int {
        switch self {
        case .int8: 8
        case .int16: 16
        case .int24: 24
        case .int32, .float32: 32
        }
    }
}
