#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reading and writing RIFF/WAVE files.
///
/// Reads PCM of 8, 16, 24 or 32 bits, IEEE float of 32 or 64 bits, any channel count and
/// rate, including `WAVE_FORMAT_EXTENSIBLE` headers and files whose data size was never
/// filled in by a streaming writer. Anything else fails with `.invalidAudio`.
///
/// ```swift
/// let audio = try WAVFile.read(contentsOf: URL(fileURLWithPath: "in.wav"))
/// try WAVFile.write(audio.speechInput(), to: URL(fileURLWithPath: "out.wav"))
/// ```
public enum WAVFile {
    /// Reads a WAV file.
    public static func read(contentsOf url: URL) throws(SDKException) -> PCMAudio {
        let data: Data
        // Mapped for real: FoundationEssentials reads the whole file for `.mappedIfSafe`.
        do { data = try FileSystem.mapped(url.path) } catch {
            throw SDKException(.fileSystemError, "Cannot read \(url.path)", underlying: error)
        }
        do { return try decode(data) } catch {
            throw SDKException(
                error.code,
                "\(url.lastPathComponent): \(error.message)",
                recovery: error.recoverySuggestion
            )
        }
    }

    /// Decodes WAV bytes.
    public static func decode(_ data: Data) throws(SDKException) -> PCMAudio {
        let bytes = [UInt8](data)
        func fail(_ reason: String) -> SDKException {
            SDKException(
                .invalidAudio,
                "Not a readable WAV file: \(reason)",
                recovery: "Provide a RIFF/WAVE file with PCM or float samples"
            )
        }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8)
        else {
            throw fail("no RIFF/WAVE header")
        }
        var format: (tag: Int, channels: Int, rate: Int, bits: Int)?
        var samples: ArraySlice<UInt8>?
        var offset = 12
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let declared = u32(offset + 4)
            let body = offset + 8
            let size = min(declared, bytes.count - body)
            if id == "fmt " {
                guard size >= 16 else { throw fail("the fmt chunk is \(size) bytes") }
                var tag = u16(body)
                if tag == 0xFFFE, size >= 26 { tag = u16(body + 24) }  // extensible: the sub-format's first two bytes
                format = (tag, u16(body + 2), u32(body + 4), u16(body + 14))
            } else if id == "data" {
                samples = bytes[body..<body + size]
                if format != nil { break }
            }
            offset = body + declared + (declared & 1)
        }
        guard let format else { throw fail("no fmt chunk") }
        guard let samples else { throw fail("no data chunk") }
        guard format.channels >= 1, format.channels <= 32 else { throw fail("\(format.channels) channels") }
        guard format.rate >= 1000, format.rate <= 384_000 else { throw fail("sample rate \(format.rate) Hz") }

        var values: [Float]
        let base = samples.startIndex
        switch (format.tag, format.bits) {
        case (1, 8):
            values = samples.map { (Float($0) - 128) / 128 }
        case (1, 16):
            values = PCMAudio(pcm16: Data(samples), sampleRate: format.rate).samples
        case (1, 24):
            values = (0..<samples.count / 3).map { i in
                let p = base + 3 * i
                let raw = Int32(samples[p]) | Int32(samples[p + 1]) << 8 | Int32(samples[p + 2]) << 16
                return Float((raw << 8) >> 8) / 8_388_608
            }
        case (1, 32):
            values = (0..<samples.count / 4).map { i in
                let p = base + 4 * i
                let raw =
                    UInt32(samples[p]) | UInt32(samples[p + 1]) << 8 | UInt32(samples[p + 2]) << 16 | UInt32(
                        samples[p + 3]
                    ) << 24
                return Float(Double(Int32(bitPattern: raw)) / 2_147_483_648)
            }
        case (3, 32):
            values = PCMAudio(float32: Data(samples), sampleRate: format.rate).samples
        case (3, 64):
            values = (0..<samples.count / 8).map { i in
                var raw: UInt64 = 0
                for byte in 0..<8 { raw |= UInt64(samples[base + 8 * i + byte]) << (8 * byte) }
                return Float(Double(bitPattern: raw))
            }
        default:
            throw fail("format tag \(format.tag) with \(format.bits)-bit samples is not supported")
        }
        // Drop a partial last frame.
        values.removeLast(values.count % format.channels)
        return PCMAudio(samples: values, sampleRate: format.rate, channels: format.channels)
    }

    /// Encodes a buffer as WAV bytes.
    public static func encode(_ buffer: PCMAudio, format: WAVSampleFormat = .int16) -> Data {
        let bytesPerSample = format.bitsPerSample / 8
        let dataSize = buffer.samples.count * bytesPerSample
        var data = Data(capacity: 44 + dataSize)
        func put32(_ v: Int) {
            withUnsafeBytes(of: UInt32(truncatingIfNeeded: v).littleEndian) { data.append(contentsOf: $0) }
        }
        func put16(_ v: Int) {
            withUnsafeBytes(of: UInt16(truncatingIfNeeded: v).littleEndian) { data.append(contentsOf: $0) }
        }
        data.append(contentsOf: Array("RIFF".utf8))
        put32(36 + dataSize)
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        put32(16)
        put16(format == .float32 ? 3 : 1)
        put16(buffer.channels)
        put32(buffer.sampleRate)
        put32(buffer.sampleRate * buffer.channels * bytesPerSample)
        put16(buffer.channels * bytesPerSample)
        put16(format.bitsPerSample)
        data.append(contentsOf: Array("data".utf8))
        put32(dataSize)
        func clipped(_ x: Float) -> Double { x.isFinite ? Double(max(-1, min(1, x))) : 0 }
        switch format {
        case .int8:
            data.append(contentsOf: buffer.samples.map { UInt8(max(0, min(255, (clipped($0) * 127 + 128).rounded()))) })
        case .int16:
            data.append(buffer.pcm16Data)
        case .int24:
            for sample in buffer.samples {
                let v = Int32((clipped(sample) * 8_388_607).rounded())
                data.append(contentsOf: [
                    UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8), UInt8(truncatingIfNeeded: v >> 16),
                ])
            }
        case .int32:
            for sample in buffer.samples { put32(Int(Int32((clipped(sample) * 2_147_483_647).rounded()))) }
        case .float32:
            data.append(buffer.float32Data)
        }
        return data
    }

    /// Writes a buffer to a WAV file, atomically (a reader never sees half a file).
    public static func write(_ buffer: PCMAudio, to url: URL, format: WAVSampleFormat = .int16) throws(SDKException) {
        try FileSystem.atomicWrite(encode(buffer, format: format), to: url)
    }
}
