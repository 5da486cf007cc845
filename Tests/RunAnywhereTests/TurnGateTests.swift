import Foundation
import Synchronization
import Testing

@_spi(Backend) @testable import RunAnywhere

/// The gate that keeps a speculative turn unheard until the session confirms it.
@Suite("Turn gate")
struct TurnGateTests {
    final class Recorder: Sendable {
        let events = Mutex<[VoiceEvent]>([])
        func record(_ event: VoiceEvent) { events.withLock { $0.append(event) } }
        var names: [String] { events.withLock { $0.map(\.name) } }
    }

    static func clock() -> TurnGate.Clock {
        TurnGate.Clock(decided: .now, acousticEnd: .now - .milliseconds(300), silenceWait: 0.3)
    }

    @Test("Events wait behind a closed gate and pass on in order once it opens")
    func holdsThenFlushes() async {
        let recorder = Recorder()
        let gate = TurnGate(downstream: recorder.record)
        gate.emit(.transcriptFinal("What time is it?"))
        gate.emit(.responseToken("It"))
        #expect(recorder.names.isEmpty)
        #expect(!gate.isConfirmed)
        #expect(gate.clock == nil)
        gate.confirm()
        #expect(gate.isConfirmed)
        let opened = Task { await gate.wait() }
        gate.open(Self.clock())
        #expect(await opened.value)
        gate.emit(.responseToken(" is"))
        #expect(recorder.names == ["transcript_final", "response_token", "response_token"])
        #expect(gate.clock?.silenceWait == 0.3)
        gate.discard()
        #expect(gate.isConfirmed, "an open gate stays open")
    }

    @Test("A discarded gate drops what it held and everything after, and wakes its waiters with false")
    func discardDropsEverything() async {
        let recorder = Recorder()
        let gate = TurnGate(downstream: recorder.record)
        gate.emit(.transcriptFinal("I went to the shop and"))
        let waiting = Task { await gate.wait() }
        gate.discard()
        #expect(await waiting.value == false)
        gate.emit(.responseToken("Sure"))
        gate.open(Self.clock())
        #expect(recorder.names.isEmpty)
        #expect(await gate.wait() == false)
        #expect(!gate.isConfirmed)
    }

    @Test("Cancelling a task that waits on a closed gate discards the gate")
    func cancellingTheWaiterDiscards() async {
        let recorder = Recorder()
        let gate = TurnGate(downstream: recorder.record)
        let waiting = Task { await gate.wait() }
        waiting.cancel()
        #expect(await waiting.value == false)
        gate.open(Self.clock())
        gate.emit(.listening)
        #expect(recorder.names.isEmpty)
    }

    @Test("A gate created open passes everything on at once")
    func openFromTheStart() async {
        let recorder = Recorder()
        let gate = TurnGate(open: Self.clock(), downstream: recorder.record)
        gate.emit(.listening)
        #expect(await gate.wait())
        #expect(recorder.names == ["listening"])
    }
}
