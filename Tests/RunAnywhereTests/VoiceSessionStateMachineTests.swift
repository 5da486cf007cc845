import Testing

@testable import RunAnywhere

/// The live session's decisions, fed by hand: no audio, VAD, spotter or turn runs.
@Suite("The voice session's state machine, without I/O")
struct VoiceSessionStateMachineTests {
    private static let utterance = PCMAudio.silence(duration: 0.5, sampleRate: 16_000)

    private static func endOfTurn(_ endTime: Double = 1.5) -> UtteranceSegmenter.Action {
        .endOfTurn(utterance, endTime: endTime, useSpeculation: false)
    }

    private static let startedTurn = VoiceSessionStateMachine.Action.startTurn(
        utterance,
        endTime: 1.5,
        useSpeculation: false
    )

    @Test("Without a wake phrase: listening, a turn per utterance, one barge-in per running turn")
    func listeningAndBargeIn() {
        var machine = VoiceSessionStateMachine(needsWakeWord: false, bargeIn: true, wakeWordTimeout: 8)
        #expect(machine.start() == [.emit(.listening)])
        #expect(!machine.isAsleep)
        // No turn yet: speech only starts an utterance.
        #expect(
            machine.segmented([.speechStarted(at: 1)], at: 1.1, turnFinished: true) == [.emit(.speechStarted(time: 1))]
        )
        #expect(
            machine.segmented([.speechEnded(at: 1.5), Self.endOfTurn()], at: 2, turnFinished: true)
                == [.emit(.speechEnded(time: 1.5)), Self.startedTurn]
        )
        // The user talks over the answer: stopped once, however long they go on.
        #expect(
            machine.segmented([.bargeIn(at: 2.5)], at: 2.6, turnFinished: false)
                == [.stopTurn, .emit(.interrupted(time: 2.5))]
        )
        #expect(machine.segmented([.bargeIn(at: 2.7)], at: 2.8, turnFinished: false).isEmpty)
        // The interruption's own utterance starts: the next turn may be stopped in its turn.
        #expect(
            machine.segmented([.speechStarted(at: 2.9)], at: 3, turnFinished: false) == [
                .emit(.speechStarted(time: 2.9))
            ]
        )
        _ = machine.segmented([Self.endOfTurn(3.5)], at: 4, turnFinished: true)
        #expect(
            machine.segmented([.speechStarted(at: 4.5)], at: 4.6, turnFinished: false)
                == [.stopTurn, .emit(.interrupted(time: 4.5)), .emit(.speechStarted(time: 4.5))]
        )
    }

    @Test("A turn that has finished, or a session without barge-in, is never stopped")
    func nothingToStop() {
        var machine = VoiceSessionStateMachine(needsWakeWord: false, bargeIn: true, wakeWordTimeout: 8)
        _ = machine.segmented([Self.endOfTurn()], at: 2, turnFinished: true)
        #expect(machine.segmented([.bargeIn(at: 5)], at: 5.1, turnFinished: true).isEmpty)

        var patient = VoiceSessionStateMachine(needsWakeWord: false, bargeIn: false, wakeWordTimeout: 8)
        _ = patient.segmented([Self.endOfTurn()], at: 2, turnFinished: true)
        #expect(patient.segmented([.bargeIn(at: 2.5)], at: 2.6, turnFinished: false).isEmpty)
        #expect(
            patient.segmented([.speechStarted(at: 2.7)], at: 2.8, turnFinished: false) == [
                .emit(.speechStarted(time: 2.7))
            ]
        )
    }

    @Test("A turn started in a batch can be stopped by speech later in the same batch")
    func turnStartedInTheSameBatch() {
        var machine = VoiceSessionStateMachine(needsWakeWord: false, bargeIn: true, wakeWordTimeout: 8)
        // The snapshot predates the turn: it says nothing runs.
        #expect(
            machine.segmented([Self.endOfTurn(), .speechStarted(at: 2)], at: 2.1, turnFinished: true)
                == [Self.startedTurn, .stopTurn, .emit(.interrupted(time: 2)), .emit(.speechStarted(time: 2))]
        )
    }

    @Test("With a wake phrase: asleep until it is heard, one request per phrase, asleep again after the timeout")
    func wakeWord() {
        var machine = VoiceSessionStateMachine(needsWakeWord: true, bargeIn: true, wakeWordTimeout: 8)
        #expect(machine.start() == [.emit(.waitingForWakeWord)])
        #expect(machine.isAsleep)
        #expect(machine.streamTime(ofSpotterTime: 0.7) == 0.7)
        #expect(
            machine.wakeWordDetected(phrase: "hey computer", at: 0.7, resumeAt: 1, turnFinished: true)
                == [.emit(.wakeWord(phrase: "hey computer", time: 0.7))]
        )
        #expect(!machine.isAsleep)
        // The request comes in time; its turn sends the session back to sleep, and the
        // spotter's clock restarts at that moment.
        #expect(machine.chunkArrives(at: 3).isEmpty)
        _ = machine.segmented([.speechStarted(at: 3)], at: 3.1, turnFinished: true)
        #expect(
            machine.segmented([.speechEnded(at: 4), Self.endOfTurn(4)], at: 4.6, turnFinished: true)
                == [
                    .emit(.speechEnded(time: 4)), .startTurn(Self.utterance, endTime: 4, useSpeculation: false),
                    .resetSpotter,
                ]
        )
        #expect(machine.isAsleep)
        #expect(machine.streamTime(ofSpotterTime: 1) == 5.6)
        // Woken again while the answer runs: the phrase stops it. No request follows.
        #expect(
            machine.wakeWordDetected(phrase: "hey computer", at: 6, resumeAt: 6.2, turnFinished: false)
                == [.emit(.wakeWord(phrase: "hey computer", time: 6)), .stopTurn, .emit(.interrupted(time: 6))]
        )
        #expect(machine.chunkArrives(at: 14.2).isEmpty)
        #expect(machine.chunkArrives(at: 14.3) == [.resetSpotter, .emit(.waitingForWakeWord)])
        #expect(machine.isAsleep)
        // Asleep, time passing is not a timeout.
        #expect(machine.chunkArrives(at: 30).isEmpty)
    }

    @Test("Speculation and partial transcripts pass through to the session in order")
    func passThrough() {
        var machine = VoiceSessionStateMachine(needsWakeWord: false, bargeIn: true, wakeWordTimeout: 8)
        #expect(
            machine.segmented(
                [.transcribePartial(Self.utterance), .speculate(Self.utterance), .cancelSpeculation],
                at: 1,
                turnFinished: true
            ) == [.transcribePartial(Self.utterance), .speculate(Self.utterance), .cancelSpeculation]
        )
    }
}
