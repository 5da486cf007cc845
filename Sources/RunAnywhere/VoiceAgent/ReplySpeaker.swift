#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Speaks a reply sentence by sentence while the reply is still being generated.
///
/// Sentences are synthesized and played in order, each as soon as it arrives. The rules a
/// turn relies on:
/// - a sentence with nothing to pronounce (`.emptyText`) is skipped silently; one that fails
///   to synthesize otherwise is skipped and reported as an `.error` event, and the turn goes on;
/// - every synthesized sentence is reported as an `.audioChunk` event and joins the reply's audio;
/// - the first playback failure is reported once and nothing more is played this turn, while
///   the audio still reaches the events and the result;
/// - cancelling the task stops at the next sentence;
/// - nothing is played before `ready` says the turn may be heard: a speculative turn
///   synthesizes ahead while the user might still go on, and is silent if they do.
///
/// It knows no engine: synthesis is a closure and playback an ``AudioOutput``, so the rules
/// are unit-tested with fakes.
struct ReplySpeaker: Sendable {
    typealias Synthesize = @Sendable (String) async throws(SDKException) -> TTSOutput

    /// What was spoken, and when.
    struct Spoken: Sendable {
        /// Every synthesized sentence, joined.
        var audio = PCMAudio(samples: [], sampleRate: 22_050)
        /// When the first sentence's audio was ready and the turn could be heard.
        var firstAudio: ContinuousClock.Instant?
        /// Synthesis time of the first sentence, in milliseconds.
        var firstChunkMs = 0.0
        /// Synthesis time of all sentences, in milliseconds.
        var synthesisMs = 0.0
    }

    let synthesize: Synthesize
    /// Plays each sentence's audio; `nil` when the turn has no output.
    let output: (any AudioOutput)?
    let emit: @Sendable (VoiceEvent) -> Void
    /// Waits until the turn may be heard; `false` means never.
    var ready: @Sendable () async -> Bool = { true }

    /// Speaks `sentences` until the stream ends or the task is cancelled.
    func speak(_ sentences: AsyncStream<String>) async -> Spoken {
        var spoken = Spoken()
        var playing = output != nil
        for await sentence in sentences {
            if Task.isCancelled { break }
            let start = ContinuousClock.now
            let speech: TTSOutput
            do throws(SDKException) {
                speech = try await synthesize(sentence)
            } catch {
                // Only punctuation has nothing to say; anything else is worth reporting.
                if error.code != .emptyText, !Task.isCancelled { emit(.error(error)) }
                continue
            }
            let synthesisMs = start.duration(to: .now).milliseconds
            if Task.isCancelled { break }
            spoken.synthesisMs += synthesisMs
            if spoken.firstAudio == nil {
                guard await ready(), !Task.isCancelled else { break }
                spoken.firstChunkMs = synthesisMs
                spoken.firstAudio = .now
                spoken.audio = PCMAudio(samples: [], sampleRate: speech.sampleRate)
            }
            spoken.audio.append(speech.audio)
            emit(.audioChunk(speech.audio, sentence: sentence))
            guard playing, let output else { continue }
            do throws(SDKException) {
                try await output.play(speech.audio)
            } catch {
                // One report per turn; the audio still reaches the result and the events.
                playing = false
                emit(.error(error))
            }
        }
        return spoken
    }
}
