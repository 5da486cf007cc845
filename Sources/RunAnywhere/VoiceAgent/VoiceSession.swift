import Foundation
import Synchronization

/// A live conversation over a continuous audio input: listens with the VAD, hands each
/// finished utterance to the voice agent as a turn, and stops the agent when the user
/// talks over it (barge-in).
///
/// The loop keeps reading audio while a turn runs, which is what makes barge-in
/// possible: the VAD's speech start cancels the turn (generation and synthesis) and stops
/// the output at once.
struct VoiceSession: Sendable {
    let agent: VoiceAgentCapability
    let stt: STTCapability
    let vad: VADCapability
    /// State shared between the listening loop and the tasks it starts.
    private final class Flags: Sendable {
        let turnActive = Mutex(false)
        let partialBusy = Mutex(false)
    }

    /// Input is read in chunks of this length: one Silero window.
    static let chunkDuration: TimeInterval = 0.032

    func run(input: any AudioInput, output: any AudioOutput) -> AsyncStream<VoiceEvent> {
        let (stream, continuation) = AsyncStream<VoiceEvent>.makeStream(bufferingPolicy: .unbounded)
        let emit: @Sendable (VoiceEvent) -> Void = { continuation.yield($0) }
        let task = Task {
            do {
                try await listen(input: input, output: output, emit: emit)
            } catch is CancellationError {
            } catch {
                emit(.error(SDKException.wrap(error, as: .internalError, "The voice session failed")))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    private func listen(input: any AudioInput, output: any AudioOutput, emit: @escaping @Sendable (VoiceEvent) -> Void) async throws {
        let configuration = try await agent.ready()
        await vad.reset()
        try await vad.configure(configuration.vadConfiguration)
        emit(.listening)

        var recent = AudioBuffer(samples: [], sampleRate: 16_000)   // the last moments, for the pre-roll
        var utterance: AudioBuffer?
        var utteranceStart: TimeInterval = 0
        var streamTime: TimeInterval = 0
        var turn: Task<Void, Never>?
        let flags = Flags()
        var partial: Task<Void, Never>?
        var lastPartial: TimeInterval = 0
        var voicedRun: TimeInterval = 0     // consecutive speech while the agent talks
        var interrupted = false
        let keep = configuration.preRoll + configuration.minSpeechDuration + 0.2

        // A transcription started when the silence began, before the VAD is sure the user
        // has finished: by the time it is, the transcript is usually ready.
        var early: (task: Task<STTOutput, any Error>, from: TimeInterval)?

        func startTurn(_ audio: AudioBuffer, endTime: TimeInterval, early: Task<STTOutput, any Error>? = nil) {
            let detected = ContinuousClock.now
            let silenceWait = max(0, streamTime - endTime)
            let previous = turn
            let agent = self.agent
            flags.turnActive.withLock { $0 = true }
            turn = Task {
                await previous?.value   // without barge-in, turns queue
                do {
                    _ = try await agent.runTurn(audio, early: early, output: output, endOfSpeech: detected,
                                                silenceWait: silenceWait, emit: emit)
                } catch {
                    if !Task.isCancelled { emit(.error(SDKException.wrap(error, as: .internalError, "The voice turn failed"))) }
                }
                flags.turnActive.withLock { $0 = false }
                if !Task.isCancelled { emit(.listening) }
            }
        }

        /// Barge-in: cancels the turn in progress (generation and synthesis) and silences the output.
        func interrupt(at time: TimeInterval) async {
            guard configuration.bargeIn, !interrupted, let turn, flags.turnActive.withLock({ $0 }) else { return }
            turn.cancel()
            await output.stop()
            interrupted = true
            emit(.interrupted(time: time))
        }

        for try await chunk in input.chunks(duration: Self.chunkDuration) {
            try Task.checkCancellation()
            let audio = chunk.speechInput()
            guard !audio.isEmpty else { continue }
            let result = try await vad.process(audio)
            streamTime += audio.duration
            if utterance != nil { utterance!.append(audio) } else {
                recent.append(audio)
                if recent.duration > keep { recent = recent.slice(from: recent.duration - keep, to: recent.duration) }
            }
            // Barge-in: a short run of speech while a turn is active silences the agent at
            // once, before the VAD has confirmed a whole utterance.
            voicedRun = result.probability >= configuration.vadThreshold ? voicedRun + audio.duration : 0
            if voicedRun >= configuration.bargeInSpeechDuration { await interrupt(at: streamTime - voicedRun) }
            for event in result.events {
                switch event.kind {
                case .speechStarted:
                    await interrupt(at: event.time)
                    interrupted = false
                    emit(.speechStarted(time: event.time))
                    // Keep what preceded the VAD's decision, from `preRoll` before the speech began.
                    let from = max(0, (event.time - configuration.preRoll) - (streamTime - recent.duration))
                    utterance = recent.slice(from: from, to: recent.duration)
                    utteranceStart = streamTime - utterance!.duration
                    lastPartial = 0
                    recent = AudioBuffer(samples: [], sampleRate: 16_000)
                case .speechEnded:
                    emit(.speechEnded(time: event.time))
                    guard let spoken = utterance else { continue }
                    utterance = nil
                    // End the utterance a little after the speech, not after the whole silence.
                    let end = min(spoken.duration, event.time - utteranceStart + 0.2)
                    // The early transcription is good if it started in this very silence.
                    let usable = early.flatMap { $0.from >= event.time - 0.05 ? $0.task : nil }
                    if usable == nil { early?.task.cancel() }
                    early = nil
                    startTurn(spoken.slice(from: 0, to: end), endTime: event.time, early: usable)
                }
            }
            // Silence inside an utterance: transcribe what was said so far, once per pause.
            if let spoken = utterance, result.probability < configuration.vadThreshold, early == nil {
                let stt = self.stt
                early = (Task { try await stt.transcribe(spoken, options: STTOptions(language: "en")) }, streamTime - audio.duration)
            } else if utterance != nil, result.probability >= configuration.vadThreshold, let pending = early {
                // Speech resumed: that transcription is stale.
                pending.task.cancel()
                early = nil
            }
            // Partial transcripts while the user speaks, at most one in flight.
            if configuration.partialTranscripts, let spoken = utterance, spoken.duration - lastPartial >= 1.0,
               flags.partialBusy.withLock({ busy in defer { busy = true }; return !busy }) {
                lastPartial = spoken.duration
                let stt = self.stt
                partial = Task {
                    if let text = try? await stt.transcribe(spoken, options: STTOptions(language: "en")).text, !text.isEmpty {
                        emit(.transcriptPartial(text))
                    }
                    flags.partialBusy.withLock { $0 = false }
                }
            }
        }
        // The input ended: an utterance still open is a turn of its own.
        if let event = await vad.finish(), let spoken = utterance {
            emit(.speechEnded(time: event.time))
            startTurn(spoken, endTime: event.time)
        }
        await partial?.value
        await turn?.value
    }
}
