internal import COpenBLAS
import Foundation
@_spi(Backend) import RunAnywhere

/// Resemblyzer's GE2E speaker encoder, computed the way its `VoiceEncoder.embed_utterance`
/// does (Resemblyzer 0.1.4), with the weights of `scripts/convert_resemblyzer_gguf.py`.
///
/// - Audio: 16 kHz; made louder to −30 dBFS when quieter (never softer).
/// - Mel frames: 25 ms periodic Hann windows every 10 ms, centred (200 zeros each side),
///   power spectrum through 40 slaney mel filters (the file's `mel.filters`); no log.
/// - Partials: 160 frames (1.6 s) every 77 frames, enough of them to cover the clip (the
///   last dropped when it would be less than 75% audio), the audio zero-padded to fill
///   the last one.
/// - Network: 3 LSTM layers of 256 (PyTorch's gate order i, f, g, o), the last layer's
///   final state through a 256×256 linear layer and a ReLU, divided by its length.
/// - The clip's vector: the mean of its partials' vectors, divided by its length.
///
/// Every partial of every clip runs in one batch: each time step is one matrix product
/// per layer (OpenBLAS), which is what makes a whole conversation take a fraction of its
/// length. `Tests/RunAnywhereResemblyzerTests/SpeakerDiarizationTests.swift` checks it against
/// `scripts/resemblyzer_reference.py` (numpy) on real recordings.
struct ResemblyzerNetwork: Sendable {
    static let sampleRate = 16_000
    static let fftSize = 400
    static let hop = 160
    static let bins = fftSize / 2 + 1
    static let melBands = 40
    static let hidden = 256
    static let layerCount = 3
    static let partialFrames = 160
    static let partialStep = 77
    static let minimumCoverage = 0.75
    static let targetDecibels: Float = -30

    struct Layer: Sendable {
        /// [4·hidden × input], row-major.
        var inputWeights: [Float]
        /// [4·hidden × hidden], row-major.
        var recurrentWeights: [Float]
        /// The input and recurrent biases summed: [4·hidden].
        var bias: [Float]
        var inputSize: Int
    }

    /// [bands × bins], row-major.
    let melFilters: [Float]
    let layers: [Layer]
    /// [hidden × hidden], row-major (out × in).
    let linearWeights: [Float]
    let linearBias: [Float]
    /// The periodic Hann window.
    let window: [Float]
    /// [fftSize × bins] cosine and sine tables of the real DFT, row-major: frames times
    /// these are the spectrum's real and imaginary parts.
    let cosines: [Float]
    let sines: [Float]

    /// Reads and checks the weights; `.modelCorrupted` or `.invalidModelFormat` says what is wrong.
    init(file url: URL) throws(SDKException) {
        _ = try OpenBLASLibrary.load()
        let gguf = try GGUFFile(contentsOf: url)
        guard gguf.architecture == "resemblyzer" else {
            throw SDKException(
                .invalidModelFormat,
                "\(url.lastPathComponent) is not a Resemblyzer speaker encoder "
                    + "(architecture \(gguf.architecture ?? "none"))",
                recovery: "Convert Resemblyzer's pretrained.pt with scripts/convert_resemblyzer_gguf.py"
            )
        }
        let expected: [(String, Int)] = [
            ("resemblyzer.sample_rate", Self.sampleRate), ("resemblyzer.mel.n_fft", Self.fftSize),
            ("resemblyzer.mel.hop_length", Self.hop), ("resemblyzer.mel.n_mels", Self.melBands),
            ("resemblyzer.lstm.hidden_size", Self.hidden), ("resemblyzer.block_count", Self.layerCount),
            ("resemblyzer.partial.n_frames", Self.partialFrames),
        ]
        for (key, value) in expected where gguf.metadata[key]?.intValue != value {
            throw SDKException(
                .invalidModelFormat,
                "\(url.lastPathComponent): \(key) is \(gguf.metadata[key]?.intValue.map(String.init) ?? "missing"), "
                    + "this encoder runs \(value)"
            )
        }
        let gates = 4 * Self.hidden
        melFilters = try gguf.floats("mel.filters", dimensions: [Self.bins, Self.melBands])
        var layers: [Layer] = []
        for index in 0..<Self.layerCount {
            let input = index == 0 ? Self.melBands : Self.hidden
            let inputBias = try gguf.floats("lstm.\(index).bias_ih", dimensions: [gates])
            let recurrentBias = try gguf.floats("lstm.\(index).bias_hh", dimensions: [gates])
            layers.append(
                Layer(
                    inputWeights: try gguf.floats("lstm.\(index).weight_ih", dimensions: [input, gates]),
                    recurrentWeights: try gguf.floats("lstm.\(index).weight_hh", dimensions: [Self.hidden, gates]),
                    bias: zip(inputBias, recurrentBias).map(+),
                    inputSize: input
                )
            )
        }
        self.layers = layers
        linearWeights = try gguf.floats("linear.weight", dimensions: [Self.hidden, Self.hidden])
        linearBias = try gguf.floats("linear.bias", dimensions: [Self.hidden])
        let all =
            melFilters + layers.flatMap { $0.inputWeights + $0.recurrentWeights + $0.bias } + linearWeights + linearBias
        guard all.allSatisfy(\.isFinite) else {
            throw SDKException(.modelCorrupted, "\(url.lastPathComponent) has weights that are not finite numbers")
        }
        window = (0..<Self.fftSize).map { 0.5 - 0.5 * Float(cos(2 * Double.pi * Double($0) / Double(Self.fftSize))) }
        var cosines = [Float](repeating: 0, count: Self.fftSize * Self.bins)
        var sines = [Float](repeating: 0, count: Self.fftSize * Self.bins)
        for n in 0..<Self.fftSize {
            for k in 0..<Self.bins {
                // Reduced modulo the size first: exact angles, however large n·k.
                let angle = 2 * Double.pi * Double((n * k) % Self.fftSize) / Double(Self.fftSize)
                cosines[n * Self.bins + k] = Float(cos(angle))
                sines[n * Self.bins + k] = Float(sin(angle))
            }
        }
        self.cosines = cosines
        self.sines = sines
    }

    /// One unit-length vector per clip (16 kHz mono).
    func embed(_ clips: [[Float]]) -> [[Float]] {
        // Every partial of every clip, as mel frames, and which clip each belongs to.
        var partials: [[Float]] = []
        var owners: [Int] = []
        for (index, clip) in clips.enumerated() {
            for partial in self.partials(of: Self.normalizedVolume(clip)) {
                partials.append(partial)
                owners.append(index)
            }
        }
        var sums = [[Float]](repeating: [Float](repeating: 0, count: Self.hidden), count: clips.count)
        for (vector, owner) in zip(forward(partials), owners) {
            for dimension in 0..<Self.hidden { sums[owner][dimension] += vector[dimension] }
        }
        return sums.map(VectorMath.normalized)
    }

    /// Louder to −30 dBFS if quieter; a silent clip stays silent.
    ///
    /// Resemblyzer normalizes a whole utterance; here each clip is one (the diarization
    /// windows), so a quiet window is brought up on its own.
    static func normalizedVolume(_ samples: [Float]) -> [Float] {
        // Resemblyzer measures int16 levels: rms·32767 against 32767, the same ratio.
        let decibels = PCMAudio.decibels(rms: PCMAudio.rms(samples[...]))
        guard decibels.isFinite else { return samples }
        let change = targetDecibels - decibels
        guard change >= 0 else { return samples }
        let gain = Float(pow(10, Double(change) / 20))
        return samples.map { $0 * gain }
    }

    /// The slices of a clip's mel frames the network sees: [partialFrames × bands] each.
    func partials(of samples: [Float]) -> [[Float]] {
        let count = samples.count
        let frameCount = Int((Double(count + 1) / Double(Self.hop)).rounded(.up))
        let lastStart = max(frameCount - Self.partialFrames + Self.partialStep + 1, 1)
        var starts = Array(stride(from: 0, to: lastStart, by: Self.partialStep))
        if starts.count > 1, let last = starts.last {
            let coverage = Double(count - last * Self.hop) / Double(Self.partialFrames * Self.hop)
            if coverage < Self.minimumCoverage { starts.removeLast() }
        }
        let needed = ((starts.last ?? 0) + Self.partialFrames) * Self.hop
        var padded = samples
        if needed >= count { padded += [Float](repeating: 0, count: needed - count) }
        let mel = melFrames(padded)
        return starts.map { start in
            Array(mel[(start * Self.melBands)..<((start + Self.partialFrames) * Self.melBands)])
        }
    }

    /// Mel power frames, [frames × bands] row-major, with frames = 1 + samples / hop.
    func melFrames(_ samples: [Float]) -> [Float] {
        let half = Self.fftSize / 2
        let padded = [Float](repeating: 0, count: half) + samples + [Float](repeating: 0, count: half)
        let frames = 1 + samples.count / Self.hop
        var windowed = [Float](repeating: 0, count: frames * Self.fftSize)
        for frame in 0..<frames {
            let start = frame * Self.hop
            for n in 0..<Self.fftSize { windowed[frame * Self.fftSize + n] = padded[start + n] * window[n] }
        }
        var real = [Float](repeating: 0, count: frames * Self.bins)
        var imaginary = [Float](repeating: 0, count: frames * Self.bins)
        Self.multiply(windowed, cosines, into: &real, rows: frames, inner: Self.fftSize, columns: Self.bins)
        Self.multiply(windowed, sines, into: &imaginary, rows: frames, inner: Self.fftSize, columns: Self.bins)
        var power = [Float](repeating: 0, count: frames * Self.bins)
        for index in power.indices { power[index] = real[index] * real[index] + imaginary[index] * imaginary[index] }
        // [frames × bins] times filtersᵀ [bins × bands].
        var mel = [Float](repeating: 0, count: frames * Self.melBands)
        Self.multiply(
            power,
            melFilters,
            into: &mel,
            rows: frames,
            inner: Self.bins,
            columns: Self.melBands,
            transposeB: true
        )
        return mel
    }

    /// The network over partials of [partialFrames × bands]: one unit-length vector each.
    func forward(_ partials: [[Float]]) -> [[Float]] {
        let batch = partials.count
        guard batch > 0 else { return [] }
        let steps = Self.partialFrames
        let hidden = Self.hidden
        let gates = 4 * hidden
        // The sequence, time-major: row t·batch + b is partial b's frame t.
        var sequence = [Float](repeating: 0, count: steps * batch * Self.melBands)
        for (b, partial) in partials.enumerated() {
            for t in 0..<steps {
                for band in 0..<Self.melBands {
                    sequence[(t * batch + b) * Self.melBands + band] = partial[t * Self.melBands + band]
                }
            }
        }
        var state = [Float](repeating: 0, count: batch * hidden)
        for layer in layers {
            // Input contributions for every step at once, with both biases.
            var inputGates = [Float](repeating: 0, count: steps * batch * gates)
            for row in 0..<(steps * batch) {
                for gate in 0..<gates { inputGates[row * gates + gate] = layer.bias[gate] }
            }
            Self.multiply(
                sequence,
                layer.inputWeights,
                into: &inputGates,
                rows: steps * batch,
                inner: layer.inputSize,
                columns: gates,
                transposeB: true,
                accumulate: true
            )
            var output = [Float](repeating: 0, count: steps * batch * hidden)
            state = [Float](repeating: 0, count: batch * hidden)
            var cell = [Float](repeating: 0, count: batch * hidden)
            var stepGates = [Float](repeating: 0, count: batch * gates)
            for t in 0..<steps {
                let offset = t * batch * gates
                stepGates.withUnsafeMutableBufferPointer { destination in
                    inputGates.withUnsafeBufferPointer { source in
                        for index in 0..<(batch * gates) { destination[index] = source[offset + index] }
                    }
                }
                if t > 0 {
                    Self.multiply(
                        state,
                        layer.recurrentWeights,
                        into: &stepGates,
                        rows: batch,
                        inner: hidden,
                        columns: gates,
                        transposeB: true,
                        accumulate: true
                    )
                }
                Self.cellUpdate(gates: stepGates, cell: &cell, state: &state, batch: batch)
                output.withUnsafeMutableBufferPointer { destination in
                    state.withUnsafeBufferPointer { source in
                        for index in 0..<(batch * hidden) { destination[t * batch * hidden + index] = source[index] }
                    }
                }
            }
            sequence = output
        }
        // The last step's state of the last layer through the linear layer and a ReLU.
        var projected = [Float](repeating: 0, count: batch * hidden)
        for b in 0..<batch {
            for unit in 0..<hidden { projected[b * hidden + unit] = linearBias[unit] }
        }
        Self.multiply(
            state,
            linearWeights,
            into: &projected,
            rows: batch,
            inner: hidden,
            columns: hidden,
            transposeB: true,
            accumulate: true
        )
        return (0..<batch).map { b in
            VectorMath.normalized(projected[(b * hidden)..<((b + 1) * hidden)].map { max(0, $0) })
        }
    }

    /// One LSTM step for the whole batch: gates are [batch × 4·hidden] in PyTorch's order
    /// (input, forget, cell, output).
    private static func cellUpdate(gates: [Float], cell: inout [Float], state: inout [Float], batch: Int) {
        let hidden = Self.hidden
        gates.withUnsafeBufferPointer { g in
            cell.withUnsafeMutableBufferPointer { c in
                state.withUnsafeMutableBufferPointer { h in
                    for b in 0..<batch {
                        let row = b * 4 * hidden
                        for unit in 0..<hidden {
                            let input = sigmoid(g[row + unit])
                            let forget = sigmoid(g[row + hidden + unit])
                            let candidate = tanhf(g[row + 2 * hidden + unit])
                            let output = sigmoid(g[row + 3 * hidden + unit])
                            let index = b * hidden + unit
                            c[index] = forget * c[index] + input * candidate
                            h[index] = output * tanhf(c[index])
                        }
                    }
                }
            }
        }
    }

    @inline(__always)
    private static func sigmoid(_ x: Float) -> Float { 1 / (1 + expf(-x)) }

    /// C (rows × columns) = A (rows × inner) · B, where B is [inner × columns] or, with
    /// `transposeB`, stored as [columns × inner]; row-major; `accumulate` adds to C.
    private static func multiply(
        _ a: [Float],
        _ b: [Float],
        into c: inout [Float],
        rows: Int,
        inner: Int,
        columns: Int,
        transposeB: Bool = false,
        accumulate: Bool = false
    ) {
        precondition(a.count >= rows * inner && b.count >= inner * columns && c.count >= rows * columns)
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                c.withUnsafeMutableBufferPointer { c in
                    openblas.cblas_sgemm(
                        CblasRowMajor,
                        CblasNoTrans,
                        transposeB ? CblasTrans : CblasNoTrans,
                        Int32(rows),
                        Int32(columns),
                        Int32(inner),
                        1,
                        a.baseAddress,
                        Int32(inner),
                        b.baseAddress,
                        Int32(transposeB ? inner : columns),
                        accumulate ? 1 : 0,
                        c.baseAddress,
                        Int32(columns)
                    )
                }
            }
        }
    }
}
