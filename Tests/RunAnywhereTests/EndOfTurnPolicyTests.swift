import Foundation
import RunAnywhere
import Testing

/// How the transcript so far sets the silence that ends the user's turn.
@Suite("End-of-turn policy")
struct EndOfTurnPolicyTests {
    @Test(
        "Questions and finished sentences are complete; trailing conjunctions, fillers, commas and ellipses are not",
        arguments: [
            ("What time is it?", EndOfTurnPolicy.Ending.complete),
            ("Turn on the lights.", .complete),
            ("Who did you talk to?", .complete),
            ("Stop!", .complete),
            ("I went to the shop and", .incomplete),
            ("I went to the shop and.", .incomplete),
            ("So, um.", .incomplete),
            ("And so, my fellow Americans,", .incomplete),
            ("Let me think...", .incomplete),
            ("Let me think…", .incomplete),
            ("Play the", .incomplete),
            ("Ten of.", .incomplete),
            ("What is it for?", .complete),
            ("turn on the lights", .unknown),
            ("", .unknown),
            ("   ", .unknown),
        ]
    )
    func endings(_ text: String, _ ending: EndOfTurnPolicy.Ending) {
        #expect(EndOfTurnPolicy().ending(of: text) == ending, "\(text)")
    }

    @Test("The wait follows the ending; a policy that is not adaptive always waits the fallback")
    func waits() {
        let policy = EndOfTurnPolicy(afterCompleteSentence: 0.25, afterIncompleteSentence: 1.5)
        #expect(policy.silence(after: "Is it raining?", fallback: 0.5) == 0.25)
        #expect(policy.silence(after: "Is it raining or", fallback: 0.5) == 1.5)
        #expect(policy.silence(after: "turn on the lights", fallback: 0.5) == 0.5)
        #expect(policy.silence(after: nil, fallback: 0.5) == 1.5, "no transcript yet: wait for one")
        #expect(policy.ending(of: nil) == .unknown)
        var fixed = policy
        fixed.adaptive = false
        #expect(fixed.silence(after: "Is it raining?", fallback: 0.7) == 0.7)
    }

    @Test("Waits outside 0.1–10 s are invalid, and the voice agent's configuration checks them")
    func validation() {
        #expect(throws: SDKException.self) { try EndOfTurnPolicy(afterCompleteSentence: 0.05).validate() }
        #expect(throws: SDKException.self) { try EndOfTurnPolicy(afterIncompleteSentence: 11).validate() }
        #expect(throws: SDKException.self) { try EndOfTurnPolicy(afterCompleteSentence: .nan).validate() }
        var configuration = VoiceAgentConfiguration(sttModelId: "s", llmModelId: "l")
        configuration.endOfTurn.afterCompleteSentence = 0
        #expect(throws: SDKException.self) { try configuration.validate() }
        #expect(throws: Never.self) { try EndOfTurnPolicy().validate() }
    }
}
