import Foundation
import Testing

@_spi(Backend) @testable import RunAnywhere

/// A sine wave for the audio tests.
func sine(frequency: Double, sampleRate: Int, seconds: Double, amplitude: Float = 0.5) -> PCMAudio {
    let count = Int(Double(sampleRate) * seconds)
    let samples = (0..<count).map { amplitude * Float(sin(2 * .pi * frequency * Double($0) / Double(sampleRate))) }
    return PCMAudio(samples: samples, sampleRate: sampleRate)
}

/// The strongest frequency in a buffer, by a fine DFT scan around `near` (±20%).
func dominantFrequency(_ buffer: PCMAudio, near: Double) -> Double {
    var best = (frequency: 0.0, power: 0.0)
    let samples = buffer.samples.map(Double.init)
    for step in 0...400 {
        let f = near * (0.8 + 0.4 * Double(step) / 400)
        var re = 0.0
        var im = 0.0
        for (n, x) in samples.enumerated() {
            let phase = 2 * .pi * f * Double(n) / Double(buffer.sampleRate)
            re += x * cos(phase)
            im -= x * sin(phase)
        }
        let power = re * re + im * im
        if power > best.power { best = (f, power) }
    }
    return best.frequency
}

@Suite("Audio buffers")
struct PCMAudioTests {
    @Test("A full-scale sine measures −3 dBFS RMS and 0 dBFS peak")
    func levels() {
        let tone = sine(frequency: 1000, sampleRate: 16_000, seconds: 1, amplitude: 1)
        #expect(abs(tone.rmsDecibels - (-3.01)) < 0.05)
        #expect(abs(tone.peakDecibels) < 0.01)
        #expect(PCMAudio.silence(duration: 1, sampleRate: 16_000).rmsDecibels == -.infinity)
    }

    @Test("16-bit PCM bytes survive a round trip")
    func pcm16RoundTrip() {
        let tone = sine(frequency: 440, sampleRate: 8000, seconds: 0.1)
        let back = PCMAudio(pcm16: tone.pcm16Data, sampleRate: 8000)
        #expect(back.frameCount == tone.frameCount)
        #expect(zip(back.samples, tone.samples).allSatisfy { abs($0 - $1) < 1.0 / 16_000 })
    }

    @Test("Stereo mixes down to the mean of its channels")
    func monoMix() {
        let stereo = PCMAudio(samples: [1, 0, 0.5, -0.5, -1, -1], sampleRate: 8000, channels: 2)
        #expect(stereo.mono().samples == [0.5, 0, -1])
        #expect(stereo.frameCount == 3)
    }

    @Test("Chunks cover the buffer in order and only the last is short")
    func chunks() {
        let tone = sine(frequency: 440, sampleRate: 16_000, seconds: 1.01)
        let chunks = tone.chunks(frames: 512)
        #expect(chunks.dropLast().allSatisfy { $0.frameCount == 512 })
        #expect(chunks.flatMap(\.samples) == tone.samples)
    }

    @Test("Validation rejects empty audio, too few frames, NaN samples and absurd rates")
    func validation() {
        #expect(throws: SDKException.self) { try PCMAudio(samples: [], sampleRate: 16_000).validate() }
        #expect(throws: SDKException.self) {
            try PCMAudio(samples: [0], sampleRate: 16_000).validate(minimumFrames: 2)
        }
        #expect(throws: SDKException.self) { try PCMAudio(samples: [0, .nan, 0], sampleRate: 16_000).validate() }
        #expect(throws: SDKException.self) { try PCMAudio(samples: [0, 0], sampleRate: 10).validate() }
        do {
            try PCMAudio(samples: [0, .infinity], sampleRate: 16_000).validate()
        } catch {
            #expect(error.code == .invalidAudio)
        }
    }

    @Test("Appending converts the rate of the appended audio")
    func appendConverts() {
        var base = PCMAudio(samples: [0, 0], sampleRate: 16_000)
        base.append(sine(frequency: 440, sampleRate: 8000, seconds: 0.5))
        #expect(base.sampleRate == 16_000)
        #expect(abs(base.duration - 0.5) < 0.01)
    }
}

@Suite("Resampling")
struct AudioResamplerTests {
    @Test(
        "A 440 Hz sine keeps its frequency and level from 44.1 kHz to 16 kHz",
        arguments: [44_100, 8000, 22_050, 48_000]
    )
    func sineSurvives(sourceRate: Int) {
        let tone = sine(frequency: 440, sampleRate: sourceRate, seconds: 0.5)
        let out = tone.resampled(to: 16_000)
        #expect(out.sampleRate == 16_000)
        #expect(abs(out.duration - tone.duration) < 0.001)
        // Ignore the filter's edges when measuring the level.
        let middle = out.slice(from: 0.05, to: 0.45)
        #expect(abs(middle.rmsDecibels - tone.rmsDecibels) < 0.1, "level \(middle.rmsDecibels) vs \(tone.rmsDecibels)")
        #expect(abs(dominantFrequency(middle, near: 440) - 440) < 1.5)
    }

    @Test("Content above the new Nyquist frequency is removed rather than aliased")
    func antiAliasing() {
        // 7 kHz survives at 16 kHz (Nyquist 8 kHz); 11 kHz must not fold back to 5 kHz.
        let high = sine(frequency: 11_000, sampleRate: 44_100, seconds: 0.5)
        let out = high.resampled(to: 16_000).slice(from: 0.05, to: 0.45)
        #expect(out.rmsDecibels < high.rmsDecibels - 60, "aliased energy at \(out.rmsDecibels) dBFS")
    }
}

@Suite("WAV files")
struct WAVFileTests {
    @Test("Every sample format round-trips within its precision", arguments: WAVSampleFormat.allCases)
    func roundTrip(format: WAVSampleFormat) throws {
        let tone = sine(frequency: 300, sampleRate: 11_025, seconds: 0.2)
        let decoded = try WAVFile.decode(WAVFile.encode(tone, format: format))
        #expect(decoded.sampleRate == 11_025)
        #expect(decoded.channels == 1)
        #expect(decoded.frameCount == tone.frameCount)
        let tolerance: Float = format == .int8 ? 1.0 / 64 : 1.0 / 16_000
        #expect(zip(decoded.samples, tone.samples).allSatisfy { abs($0 - $1) <= tolerance })
    }

    @Test("Stereo files keep their channels interleaved")
    func stereo() throws {
        let stereo = PCMAudio(samples: [0.5, -0.5, 0.25, -0.25], sampleRate: 48_000, channels: 2)
        let decoded = try WAVFile.decode(WAVFile.encode(stereo, format: .float32))
        #expect(decoded == stereo)
    }

    @Test("A corrupt or truncated header is an invalid-audio error")
    func corrupt() {
        let good = WAVFile.encode(sine(frequency: 440, sampleRate: 16_000, seconds: 0.1))
        let cases: [Data] = [
            Data(), Data("RIFF".utf8), Data("RIFX0000WAVE".utf8) + good.dropFirst(12),
            good.prefix(20), Data(repeating: 0xFF, count: 64),
        ]
        for data in cases {
            #expect(throws: SDKException.self) { try WAVFile.decode(data) }
        }
        var badFormat = good
        badFormat[20] = 2  // ADPCM
        do {
            _ = try WAVFile.decode(badFormat)
            Issue.record("ADPCM was accepted")
        } catch {
            #expect(error.code == .invalidAudio)
        }
    }

    @Test("A streaming writer's unset data size reads to the end of the file")
    func unknownDataSize() throws {
        var data = WAVFile.encode(sine(frequency: 440, sampleRate: 16_000, seconds: 0.1))
        data.replaceSubrange(40..<44, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(try WAVFile.decode(data).frameCount == 1600)
    }

    @Test("NaN samples in a float WAV are read, and then refused by validation")
    func nanSamples() throws {
        let decoded = try WAVFile.decode(
            WAVFile.encode(PCMAudio(samples: [0, .nan, 0.5], sampleRate: 16_000), format: .float32)
        )
        #expect(decoded.samples[1].isNaN)
        #expect(throws: SDKException.self) { try decoded.validate() }
    }

    @Test("The file sink keeps a valid header after every buffer")
    func fileSink() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ra-sink-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: url) }
        let sink = WAVFileAudioOutput(url: url)
        try await sink.play(sine(frequency: 440, sampleRate: 22_050, seconds: 0.5))
        #expect(abs(try WAVFile.read(contentsOf: url).duration - 0.5) < 0.001)
        try await sink.play(sine(frequency: 440, sampleRate: 16_000, seconds: 0.25))
        let all = try WAVFile.read(contentsOf: url)
        #expect(all.sampleRate == 22_050)
        #expect(abs(all.duration - 0.75) < 0.002)
        #expect(await sink.duration > 0.74)
    }

    @Test("The file source replays a recording in chunks, as fast as asked")
    func fileSource() async throws {
        let tone = sine(frequency: 440, sampleRate: 16_000, seconds: 1)
        var collected: [Float] = []
        for try await chunk in WAVFileAudioInput(audio: tone, pace: .asFastAsPossible).chunks(duration: 0.1) {
            collected += chunk.samples
        }
        #expect(collected == tone.samples)
    }

    @Test("A real-time file source dates each chunk when its last sample would have been recorded")
    func fileSourceCaptureTimes() async throws {
        let tone = sine(frequency: 440, sampleRate: 16_000, seconds: 0.5)
        var chunks: [CapturedAudio] = []
        for try await chunk in WAVFileAudioInput(audio: tone).capturedChunks(duration: 0.1) {
            // Never dated in the future, however late the reader is.
            #expect(chunk.end <= .now)
            chunks.append(chunk)
        }
        #expect(chunks.flatMap(\.audio.samples) == tone.samples)
        // The dates follow the audio, not the moments the reader got round to each chunk.
        for (previous, next) in zip(chunks, chunks.dropFirst()) {
            #expect(abs(previous.end.duration(to: next.end).seconds - next.audio.duration) < 1e-6)
        }
    }

    @Test("An input without a capture clock has its chunks dated as they arrive")
    func defaultCaptureTimes() async throws {
        struct Plain: AudioInput {
            func chunks(duration: TimeInterval) -> AsyncThrowingStream<PCMAudio, any Error> {
                AsyncThrowingStream { continuation in
                    for _ in 0..<3 { continuation.yield(.silence(duration: duration, sampleRate: 16_000)) }
                    continuation.finish()
                }
            }
        }
        let before = ContinuousClock.now
        var ends: [ContinuousClock.Instant] = []
        for try await chunk in Plain().capturedChunks(duration: 0.1) {
            #expect(chunk.audio.duration == 0.1)
            ends.append(chunk.end)
        }
        #expect(ends.count == 3)
        #expect(ends.allSatisfy { $0 >= before && $0 <= .now })
        #expect(ends == ends.sorted())
    }
}

@Suite("ALSA devices")
struct ALSADeviceTests {
    @Test("ALSA's null device plays and captures, so the device path works without a sound card")
    func nullDevice() async throws {
        try #require(ALSALibrary.shared != nil, "libasound.so.2 is not installed")
        #expect(ALSAAudioOutput.isAvailable(device: "null"))
        let output = ALSAAudioOutput(device: "null")
        try await output.play(sine(frequency: 440, sampleRate: 16_000, seconds: 0.2))
        var frames = 0
        for try await chunk in ALSAAudioInput(device: "null").chunks(duration: 0.05) {
            frames += chunk.frameCount
            if frames >= 1600 { break }
        }
        #expect(frames >= 1600)
    }

    @Test("A device that does not exist is a typed error, not a crash")
    func missingDevice() async {
        let output = ALSAAudioOutput(device: "hw:97,0")
        do {
            try await output.play(sine(frequency: 440, sampleRate: 16_000, seconds: 0.1))
            Issue.record("Playing on a missing device succeeded")
        } catch {
            #expect(error.code == .audioDeviceUnavailable)
        }
    }
}
