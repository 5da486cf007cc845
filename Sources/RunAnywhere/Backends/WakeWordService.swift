#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A keyword spotter: listens to a stream for the phrases it was made for.
///
/// Chunks come as the input gives them, mono but at the input's own rate: how to bring a
/// recording to the engine's rate matters to some engines (see the PocketSphinx module).
/// Re-arming after a detection is the service's own business; it only says where a phrase
/// ended.
@_spi(Backend) public protocol WakeWordService: AnyObject, Sendable {
    /// Feeds the next chunk (mono, any rate); returns the phrases that ended in it.
    func process(_ chunk: PCMAudio) async throws -> [WakeWordSpot]

    /// Forgets the audio seen so far: times restart at 0.
    func reset() async
}

/// A phrase a ``WakeWordService`` heard.
@_spi(Backend) public struct WakeWordSpot: Sendable, Equatable {
    /// The phrase, as configured.
    public var phrase: String
    /// Where it ended, in seconds from the start of the stream (or the last reset).
    public var time: TimeInterval

    /// Creates a spot.
    public init(phrase: String, time: TimeInterval) {
        self.phrase = phrase
        self.time = time
    }
}

/// Creates a ``WakeWordService`` listening for a configuration's phrases. It throws a
/// typed error for a phrase it cannot spot (a word outside its dictionary, say).
@_spi(Backend) public typealias WakeWordServiceFactory =
    @Sendable (WakeWordConfiguration) async throws -> any WakeWordService
