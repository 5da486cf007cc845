import Foundation
@_spi(Backend) import RunAnywhere

/// The sound the deterministic backend speaks and hears: text as an amplitude-keyed tone.
///
/// A 1 kHz tone carries the UTF-8 bytes of the text, one bit per ``bitDuration``: a
/// two-bit marker at full level, a 16-bit length, the bytes and a checksum byte, each bit
/// loud (1) or soft (0). Levels are read relative to the marker, so a change of volume, a
/// change of sample rate (the STT capability resamples to 16 kHz) or a round trip through a
/// 16-bit WAV file all decode to the same text. Audio that is not such a code decodes to
/// nothing, the way a recognizer hears no words in noise.
enum SpeechCode {
    /// Length of one bit: 7.5 ms makes about 16 characters a second, a plausible speaking rate.
    static let bitDuration: TimeInterval = 0.0075
    static let carrierHz: Double = 1_000
    static let markerLevel: Float = 0.8
    static let oneLevel: Float = 0.5
    static let zeroLevel: Float = 0.15
    /// Silence around the code, so voice-activity detection sees a start and an end.
    static let padding: TimeInterval = 0.15
    static let maximumBytes = Int(UInt16.max)

    /// The code of `text` at `sampleRate`, with ``padding`` of silence on both sides, on a
    /// carrier of `carrier` Hz, at most a quarter of the rate (the decoder reads levels only,
    /// so any carrier from 600 Hz to a quarter of the rate decodes).
    static func encode(
        _ text: String,
        sampleRate: Int,
        padding: TimeInterval = padding,
        carrier: Double = carrierHz
    ) -> PCMAudio {
        let sampleRate = min(max(sampleRate, 8_000), 384_000)
        let carrier = min(carrier, Double(sampleRate) / 4)
        // Whole characters only, so a cut never leaves half a UTF-8 sequence.
        var payload: [UInt8] = []
        for character in text {
            let bytes = Array(character.utf8)
            guard payload.count + bytes.count <= maximumBytes else { break }
            payload += bytes
        }
        payload = [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
        payload.append(checksum(payload))
        var levels: [Float] = [markerLevel, markerLevel]
        for byte in payload {
            for bit in (0..<8).reversed() { levels.append(byte >> bit & 1 == 1 ? oneLevel : zeroLevel) }
        }
        let rate = Double(sampleRate)
        let pad = [Float](repeating: 0, count: Int(padding * rate))
        var samples = pad
        let total = Int((Double(levels.count) * bitDuration * rate).rounded())
        samples.reserveCapacity(total + 2 * pad.count)
        for index in 0..<total {
            let time = Double(index) / rate
            let level = levels[min(levels.count - 1, Int(time / bitDuration))]
            samples.append(level * Float(sin(2 * Double.pi * carrier * time)))
        }
        samples += pad
        return PCMAudio(samples: samples, sampleRate: sampleRate)
    }

    /// The text coded in `audio` (any rate, mono), or `nil` when it holds no valid code.
    static func decode(_ audio: PCMAudio) -> String? {
        let samples = audio.samples
        let rate = Double(audio.sampleRate)
        let peak = samples.reduce(Float(0)) { max($0, abs($1)) }
        guard peak > 1e-4, let first = samples.firstIndex(where: { abs($0) > 0.2 * peak }) else { return nil }
        // The tone starts at phase 0: step back to the zero crossing before the first loud sample.
        var start = first
        while start > 0, abs(samples[start - 1]) < abs(samples[start]), samples[start - 1] * samples[start] > 0 {
            start -= 1
        }
        let bitLength = bitDuration * rate
        /// RMS of the middle half of bit `index`, away from edges blurred by resampling.
        func level(_ index: Int) -> Float? {
            let from = start + Int((Double(index) + 0.25) * bitLength)
            let to = start + Int((Double(index) + 0.75) * bitLength)
            guard to <= samples.count, to > from else { return nil }
            return PCMAudio.rms(samples[from..<to])
        }
        guard let marker = level(0), let second = level(1), marker > 0, abs(second - marker) < 0.2 * marker else {
            return nil
        }
        let threshold = marker * (oneLevel + zeroLevel) / (2 * markerLevel)
        func byte(at index: Int) -> UInt8? {
            var value: UInt8 = 0
            for bit in 0..<8 {
                guard let level = level(2 + index * 8 + bit) else { return nil }
                value = value << 1 | (level > threshold ? 1 : 0)
            }
            return value
        }
        guard let high = byte(at: 0), let low = byte(at: 1) else { return nil }
        let count = Int(high) << 8 | Int(low)
        var payload = [high, low]
        for index in 0..<count + 1 {
            guard let value = byte(at: 2 + index) else { return nil }
            payload.append(value)
        }
        let sum = payload.removeLast()
        guard sum == checksum(payload) else { return nil }
        return String(decoding: payload.dropFirst(2), as: UTF8.self)
    }

    /// Sum of the bytes with a rotation, so a shifted or truncated code does not pass.
    private static func checksum(_ bytes: [UInt8]) -> UInt8 {
        bytes.reduce(UInt8(0x5A)) { ($0 << 1 | $0 >> 7) &+ $1 }
    }
}
