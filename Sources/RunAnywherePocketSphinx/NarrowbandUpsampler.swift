@_spi(Backend) import RunAnywhere

/// Brings a stream below 16 kHz up to 16 kHz by linear interpolation, chunk by chunk,
/// interpolating across chunk boundaries as if the stream were one buffer.
///
/// Linear interpolation leaves spectral images above the source's Nyquist frequency, which
/// pocketsphinx's wideband model needs (see ``PocketSphinxSpotter``); a new source rate
/// starts a new stream.
struct NarrowbandUpsampler {
    static let targetRate = 16_000

    private var sourceRate = 0
    /// The last sample of the previous chunk.
    private var last: Float?
    /// Where the next output sample falls, in source samples from the start of the next chunk
    /// (-1 ... 0: between `last` and the chunk's first sample).
    private var position = 0.0

    /// The next chunk (mono, under 16 kHz), at 16 kHz.
    mutating func process(_ chunk: PCMAudio) -> [Float] {
        if chunk.sampleRate != sourceRate {
            self = NarrowbandUpsampler()
            sourceRate = chunk.sampleRate
        }
        let input = chunk.samples
        guard !input.isEmpty else { return [] }
        let step = Double(sourceRate) / Double(Self.targetRate)
        var output: [Float] = []
        output.reserveCapacity(Int(Double(input.count) / step) + 2)
        // Output samples up to the chunk's last sample; the rest wait for the next chunk.
        while position <= Double(input.count - 1) {
            let index = Int(position.rounded(.down))
            let fraction = Float(position - Double(index))
            let left = index < 0 ? (last ?? input[0]) : input[index]
            let right = input[index + 1 < input.count ? index + 1 : index]
            output.append(left + fraction * (right - left))
            position += step
        }
        position -= Double(input.count)
        last = input[input.count - 1]
        return output
    }
}
