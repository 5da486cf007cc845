import Foundation
import Testing

@_spi(Backend) @testable import RunAnywhere

/// The echo gate on synthetic signals: a speech-like reference, its echo, and a "user".
@Suite("Echo gate")
struct EchoGateTests {
    static let rate = 16_000
    static let chunk = 512

    /// Noise shaped like speech: syllables of 120–250 ms at varying levels with short gaps,
    /// from a fixed seed so every run is the same.
    static func speechLike(seconds: Double, seed: UInt64, level: Float) -> [Float] {
        var state = seed
        func next() -> Float {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(Int64(bitPattern: state >> 11) % 2_000_000) / 1_000_000 - 1
        }
        var samples: [Float] = []
        while samples.count < Int(seconds * Double(rate)) {
            let syllable = Int((0.12 + 0.13 * Double(abs(next()))) * Double(rate))
            let loudness = level * (0.4 + 0.6 * abs(next()))
            for index in 0..<syllable {
                let envelope = sin(Float.pi * Float(index) / Float(syllable))
                samples.append(loudness * envelope * next())
            }
            samples += [Float](repeating: 0, count: Int((0.03 + 0.08 * Double(abs(next()))) * Double(rate)))
        }
        return Array(samples.prefix(Int(seconds * Double(rate))))
    }

    /// `signal` delayed by `delay` seconds and scaled by `gain`, `count` samples long.
    static func delayed(_ signal: [Float], by delay: Double, gain: Float, count: Int) -> [Float] {
        let shift = Int(delay * Double(rate))
        return (0..<count).map { index in
            let source = index - shift
            return source >= 0 && source < signal.count ? gain * signal[source] : 0
        }
    }

    /// Feeds `mic` chunk by chunk; the verdicts, one per chunk.
    static func run(_ gate: inout EchoGate, _ mic: [Float]) -> [EchoGate.Verdict] {
        stride(from: 0, to: mic.count - chunk + 1, by: chunk).map { start in
            gate.process(
                PCMAudio(samples: Array(mic[start..<start + chunk]), sampleRate: rate),
                at: Double(start) / Double(rate)
            )
        }
    }

    /// Plays `reply` from time 0 and puts `user` into `mic` from 2 s on; the verdicts, and
    /// the chunks that hold the user.
    static func userAtTwoSeconds(
        reply: [Float],
        user: [Float],
        mic: [Float]
    ) -> (verdicts: [EchoGate.Verdict], userChunks: Range<Int>) {
        var gate = EchoGate()
        gate.addReference(PCMAudio(samples: reply, sampleRate: rate), at: 0)
        var mixed = mic
        let userStart = 2 * rate
        for (index, sample) in user.enumerated() { mixed[userStart + index] += sample }
        return (run(&gate, mixed), (userStart / chunk)..<((userStart + user.count) / chunk))
    }

    @Test("The agent's echo at half amplitude and 60 ms never counts as speech, and the delay is found")
    func echoAloneIsEcho() {
        let reply = Self.speechLike(seconds: 4, seed: 1, level: 0.3)
        var gate = EchoGate()
        gate.addReference(PCMAudio(samples: reply, sampleRate: Self.rate), at: 0.5)
        var mic = Self.delayed(reply, by: 0.56, gain: 0.5, count: 6 * Self.rate)
        // A reflection 25 ms later and a little room noise.
        let reflection = Self.delayed(reply, by: 0.585, gain: 0.2, count: mic.count)
        let noise = Self.speechLike(seconds: 6, seed: 9, level: 0.002)
        for index in mic.indices { mic[index] += reflection[index] + noise[index] }
        let verdicts = Self.run(&gate, mic)
        #expect(!verdicts.contains(.speech), "\(verdicts.filter { $0 == .speech }.count) chunks taken for the user")
        #expect(abs((gate.echoGain ?? 0) - 0.25) < 0.08, "echo power gain \(gate.echoGain ?? 0), 0.25 played")
        #expect(verdicts.prefix(10).allSatisfy { $0 == .noPlayback })
        let delay = (gate.delayFrames ?? -1) * EchoGate.frameLength
        #expect(abs(delay - 960) <= 2 * EchoGate.frameLength, "delay \(delay) samples")
    }

    @Test("The user talking over the echo is speech once the gate has its estimate")
    func userOverEcho() {
        let reply = Self.speechLike(seconds: 5, seed: 2, level: 0.3)
        let user = Self.speechLike(seconds: 2, seed: 3, level: 0.3)
        // The user starts at 2 s, about 10 dB above the echo.
        let echo = Self.delayed(reply, by: 0.05, gain: 0.3, count: 5 * Self.rate)
        let (verdicts, userChunks) = Self.userAtTwoSeconds(reply: reply, user: user, mic: echo)
        let heard = userChunks.filter { verdicts[$0] == .speech }.count
        #expect(Double(heard) >= 0.6 * Double(userChunks.count), "\(heard) of \(userChunks.count) chunks")
        #expect(verdicts[..<userChunks.lowerBound].filter { $0 == .speech }.count <= 1)
    }

    @Test("With headphones (no echo at all) the user is heard at an ordinary level once playback has run half a second")
    func headphones() {
        let reply = Self.speechLike(seconds: 4, seed: 4, level: 0.3)
        let user = Self.speechLike(seconds: 1.5, seed: 5, level: 0.05)
        let quiet = Self.speechLike(seconds: 4, seed: 6, level: 0.001)
        let (verdicts, userChunks) = Self.userAtTwoSeconds(reply: reply, user: user, mic: quiet)
        let heard = userChunks.filter { verdicts[$0] == .speech }.count
        #expect(Double(heard) >= 0.6 * Double(userChunks.count), "\(heard) of \(userChunks.count) chunks")
    }

    @Test("Once playback stops, nothing more is predicted and the microphone is plain input again")
    func stoppedPlayback() {
        let reply = Self.speechLike(seconds: 4, seed: 7, level: 0.3)
        var gate = EchoGate()
        gate.addReference(PCMAudio(samples: reply, sampleRate: Self.rate), at: 0)
        gate.cutReference(at: 1)
        let mic = Self.delayed(reply, by: 0.05, gain: 0.5, count: 4 * Self.rate).enumerated().map { index, sample in
            index < Self.rate ? sample : 0
        }
        let verdicts = Self.run(&gate, mic)
        // After the stop, the delay and the tail (0.4 + 0.06 s), there is nothing left to echo.
        let afterwards = Int(1.5 * Double(Self.rate)) / Self.chunk
        #expect(verdicts[afterwards...].allSatisfy { $0 == .noPlayback })
    }
}
