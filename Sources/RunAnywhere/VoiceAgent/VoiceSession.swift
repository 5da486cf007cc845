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

    private func listen(
        input: any AudioInput,
        output: any AudioOutput,
        emit: @escaping @Sendable (VoiceEvent) -> Void
    ) async throws {
        let configuration = try await agent.ready()
        await vad.reset()
        try await vad.configure(configuration.vad)
        emit(.listening)

        var segmenter = UtteranceSegmenter(settings: UtteranceSegmenter.Settings(configuration))
        var turn: Task<Void, Never>?
        let flags = Flags()
        var partial: Task<Void, Never>?
        var interrupted = false
        // A transcription started when the silence began, before the VAD is sure the user
        // has finished: by the time it is, the transcript is usually ready.
        var early: Task<STTOutput, any Error>?
        let agent = self.agent

        func startTurn(_ audio: AudioBuffer, endTime: TimeInterval, early: Task<STTOutput, any Error>?) {
            let detected = ContinuousClock.now
            let silenceWait = max(0, segmenter.streamTime - endTime)
            let previous = turn
            flags.turnActive.withLock { $0 = true }
            turn = Task {
                await previous?.value  // without barge-in, turns queue
                do {
                    _ = try await agent.runTurn(
                        audio,
                        early: early,
                        output: output,
                        endOfSpeech: detected,
                        silenceWait: silenceWait,
                        emit: emit
                    )
                } catch {
                    if !Task.isCancelled {
                        emit(.error(SDKException.wrap(error, as: .internalError, "The voice turn failed")))
                    }
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

        func perform(_ actions: [UtteranceSegmenter.Action]) async {
            for action in actions {
                switch action {
                case .bargeIn(let time):
                    await interrupt(at: time)
                case .speechStarted(let time):
                    await interrupt(at: time)
                    interrupted = false
                    emit(.speechStarted(time: time))
                case .speechEnded(let time):
                    emit(.speechEnded(time: time))
                case .endOfTurn(let audio, let endTime, let useEarly):
                    startTurn(audio, endTime: endTime, early: useEarly ? early : nil)
                    early = nil
                case .transcribeEarly(let audio):
                    early = Task { try await agent.transcribe(audio) }
                case .cancelEarlyTranscription:
                    early?.cancel()
                    early = nil
                case .transcribePartial(let audio):
                    flags.partialBusy.withLock { $0 = true }
                    partial = Task {
                        if let text = try? await agent.transcribe(audio).text, !text.isEmpty {
                            emit(.transcriptPartial(text))
                        }
                        flags.partialBusy.withLock { $0 = false }
                    }
                }
            }
        }

        for try await chunk in input.chunks(duration: Self.chunkDuration) {
            try Task.checkCancellation()
            let audio = chunk.speechInput()
            guard !audio.isEmpty else { continue }
            let result = try await vad.process(audio)
            await perform(segmenter.feed(audio, vad: result, partialInFlight: flags.partialBusy.withLock { $0 }))
        }
        // The input ended: an utterance still open is a turn of its own.
        await perform(segmenter.finish(vad: await vad.finish()))
        await partial?.value
        await turn?.value
    }
}
