import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A live conversation over a continuous audio input: listens with the VAD, hands each
/// finished utterance to the voice agent as a turn, and stops the agent when the user
/// talks over it (barge-in).
///
/// The loop keeps reading audio while a turn runs, which is what makes barge-in
/// possible: the VAD's speech start cancels the turn (generation and synthesis) and stops
/// the output at once.
///
/// With ``VoiceAgentConfiguration/speculativeTurns``, the turn starts the moment the user
/// falls silent, behind a closed ``TurnGate``: transcription, generation and the first
/// sentence's synthesis overlap the silence the session waits before deciding the user has
/// finished. Confirming the turn opens the gate; speech resuming discards it.
///
/// With ``VoiceAgentConfiguration/wakeWord`` the session sleeps between requests: the VAD
/// hears silence and only the wake-word spotter listens, until the phrase wakes it for one
/// request.
struct VoiceSession: Sendable {
    let agent: VoiceAgentCapability
    let vad: VADCapability
    let wakeWord: WakeWordCapability

    /// What the session knows of a turn it started.
    private final class TurnProgress: Sendable {
        /// The turn's transcript once recognized, for the end-of-turn decision.
        let transcript = Mutex<String?>(nil)
        /// Whether the turn's task has ended.
        let finished = Mutex(false)
    }

    /// Whether the partial transcription asked for last is still running.
    private final class PartialInFlight: Sendable {
        let busy = Mutex(false)
    }

    /// A turn the session started, speculatively or not.
    private struct LiveTurn {
        let task: Task<Void, Never>
        let gate: TurnGate
        let progress: TurnProgress
    }

    /// Input is read in chunks of this length: one Silero window.
    static let chunkDuration: TimeInterval = 0.032

    func run(input: any AudioInput, output: any AudioOutput) -> AsyncStream<VoiceEvent> {
        let (stream, continuation) = AsyncStream<VoiceEvent>.makeStream(bufferingPolicy: .unbounded)
        let emit: @Sendable (VoiceEvent) -> Void = { continuation.yield($0) }
        let task = Task {
            do {
                try await listen(input: input, output: PlaybackTap(output), emit: emit)
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
        output: PlaybackTap,
        emit: @escaping @Sendable (VoiceEvent) -> Void
    ) async throws {
        let configuration = try await agent.ready()
        await vad.reset()
        // The VAD reports the end of speech after the shortest silence the policy may end a
        // turn on; the segmenter then waits as long as the transcript so far asks for.
        var vadConfiguration = configuration.vad
        vadConfiguration.minSilenceDuration = configuration.endOfTurn.shortestSilence(
            fallback: configuration.vad.minSilenceDuration
        )
        try await vad.configure(vadConfiguration)
        let spotter: WakeWordSpotter? =
            if let wake = configuration.wakeWord { try await wakeWord.spotter(wake) } else { nil }
        var machine = VoiceSessionStateMachine(
            needsWakeWord: spotter != nil,
            bargeIn: configuration.bargeIn,
            wakeWordTimeout: configuration.wakeWordTimeout
        )
        // What the session says when it is idle again after a turn.
        let idle = machine.idle

        var segmenter = UtteranceSegmenter(settings: UtteranceSegmenter.Settings(configuration))
        var turn: LiveTurn?
        let partialInFlight = PartialInFlight()
        var partial: Task<Void, Never>?
        // Started when the silence began, before the session is sure the user has finished:
        // a whole turn behind a closed gate, or (without speculation) the transcription alone.
        var speculation: LiveTurn?
        var early: Task<STTOutput, any Error>?
        // The wall-clock instant of the stream's time zero, from the chunks' capture times.
        // An input without a capture clock dates a chunk when it arrives: late, never early,
        // so the earliest estimate is the truest. The echo gate needs playback dated to within
        // a few milliseconds.
        var origin: ContinuousClock.Instant?
        func streamTime(_ instant: ContinuousClock.Instant) -> TimeInterval {
            origin.map { $0.duration(to: instant).seconds } ?? segmenter.streamTime
        }
        var echo = configuration.echoGate ? EchoGate() : nil
        let agent = self.agent

        /// Starts a turn behind `gate`; once the gate has settled, the session is listening
        /// again (a discarded speculation says nothing).
        func startTurn(
            _ audio: PCMAudio,
            gate: TurnGate,
            early: Task<STTOutput, any Error>?,
            after previous: Task<Void, Never>?
        ) -> LiveTurn {
            let progress = TurnProgress()
            let task = Task {
                do {
                    _ = try await agent.runTurn(
                        audio,
                        early: early,
                        output: output,
                        gate: gate,
                        after: previous,
                        onTranscript: { text in progress.transcript.withLock { $0 = text } }
                    )
                } catch {
                    if !Task.isCancelled {
                        gate.emit(.error(SDKException.wrap(error, as: .internalError, "The voice turn failed")))
                    }
                }
                progress.finished.withLock { $0 = true }
                if await gate.wait(), !Task.isCancelled { emit(idle) }
            }
            return LiveTurn(task: task, gate: gate, progress: progress)
        }

        func cancelSpeculation() {
            early?.cancel()
            early = nil
            speculation?.task.cancel()
            speculation?.gate.discard()
            speculation = nil
        }

        func speculate(_ audio: PCMAudio) {
            cancelSpeculation()
            // A partial transcript still running would hold up the engine, and the
            // speculation's transcript is newer anyway.
            partial?.cancel()
            guard configuration.speculativeTurns else {
                early = Task { try await agent.transcribe(audio) }
                return
            }
            speculation = startTurn(audio, gate: TurnGate(downstream: emit), early: nil, after: turn?.task)
        }

        func endTurn(_ audio: PCMAudio, endTime: TimeInterval, useSpeculation: Bool) {
            let silence = max(0, segmenter.streamTime - endTime)
            let decided = ContinuousClock.now
            let clock = TurnGate.Clock(
                decided: decided,
                acousticEnd: origin.map { $0 + .seconds(endTime) } ?? decided - .seconds(silence),
                silenceWait: silence
            )
            let previous = turn?.task
            if useSpeculation, let speculated = speculation {
                turn = speculated
                speculation = nil
            } else {
                let transcription = useSpeculation ? early : nil
                early = nil
                cancelSpeculation()
                turn = startTurn(audio, gate: TurnGate(downstream: emit), early: transcription, after: previous)
            }
            guard let gate = turn?.gate else { return }
            gate.confirm()
            // Without barge-in, turns queue: this one is heard once the one before is done.
            if let previous {
                Task {
                    await previous.value
                    gate.open(clock)
                }
            } else {
                gate.open(clock)
            }
        }

        /// Whether the turn in progress (if any) has ended on its own.
        func turnFinished() -> Bool {
            turn?.progress.finished.withLock { $0 } ?? true
        }

        func perform(_ actions: [VoiceSessionStateMachine.Action]) async {
            for action in actions {
                switch action {
                case .emit(let event):
                    emit(event)
                case .stopTurn:
                    turn?.task.cancel()
                    await output.stop()
                case .resetSpotter:
                    await spotter?.reset()
                case .startTurn(let audio, let endTime, let useSpeculation):
                    endTurn(audio, endTime: endTime, useSpeculation: useSpeculation)
                case .speculate(let audio):
                    speculate(audio)
                case .cancelSpeculation:
                    cancelSpeculation()
                case .transcribePartial(let audio):
                    partialInFlight.busy.withLock { $0 = true }
                    partial = Task {
                        if let text = try? await agent.transcribe(audio).text, !text.isEmpty {
                            emit(.transcriptPartial(text))
                        }
                        partialInFlight.busy.withLock { $0 = false }
                    }
                }
            }
        }

        await perform(machine.start())
        for try await chunk in input.capturedChunks(duration: Self.chunkDuration) {
            try Task.checkCancellation()
            let audio = chunk.audio.speechInput()
            guard !audio.isEmpty else { continue }
            let zero = chunk.end - .seconds(segmenter.streamTime + audio.duration)
            origin = min(origin ?? zero, zero)
            // What the VAD hears: the agent's own voice coming back is not the user, so
            // chunks the echo gate explains are silence to it. The utterance keeps the real
            // audio, so an interruption is transcribed as it was said.
            var heard = audio
            if let spotter, machine.isAsleep {
                // Asleep, the VAD hears nothing; the utterance buffer still gets the audio, so
                // a request said right after the phrase keeps its first syllable (pre-roll).
                heard = .silence(duration: audio.duration, sampleRate: audio.sampleRate)
                if let detection = try await spotter.process(audio).first {
                    await perform(
                        machine.wakeWordDetected(
                            phrase: detection.phrase,
                            at: machine.streamTime(ofSpotterTime: detection.time),
                            resumeAt: segmenter.streamTime + audio.duration,
                            turnFinished: turnFinished()
                        )
                    )
                }
            } else {
                // Woken, but no request came: back to sleep.
                await perform(machine.chunkArrives(at: segmenter.streamTime))
            }
            if echo != nil {
                for entry in output.drain() {
                    switch entry {
                    case .played(let played, let at): echo?.addReference(played.speechInput(), at: streamTime(at))
                    case .stopped(let at): echo?.cutReference(at: streamTime(at))
                    }
                }
                if echo?.process(audio, at: segmenter.streamTime) == .echo {
                    heard = .silence(duration: audio.duration, sampleRate: audio.sampleRate)
                }
            }
            let result = try await vad.process(heard)
            let actions = segmenter.feed(
                audio,
                vad: result,
                partialInFlight: partialInFlight.busy.withLock { $0 },
                transcript: speculation?.progress.transcript.withLock { $0 }
            )
            await perform(machine.segmented(actions, at: segmenter.streamTime, turnFinished: turnFinished()))
        }
        // The input ended: an utterance still open is a turn of its own.
        let last = segmenter.finish(vad: await vad.finish())
        await perform(machine.segmented(last, at: segmenter.streamTime, turnFinished: turnFinished()))
        cancelSpeculation()
        await partial?.value
        await turn?.task.value
    }
}
