#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `close(2)`, out of reach of the actor's own `close()`.
private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}

/// An ``AudioOutput`` that appends everything played to a 16-bit WAV file.
///
/// The header is kept valid after every buffer, so the file can be read at any time. The
/// first buffer fixes the sample rate and channel count; later buffers are converted to them.
public actor WAVFileAudioOutput: AudioOutput {
    /// Where the audio goes.
    public nonisolated let url: URL
    /// The open file (a descriptor: `FileHandle` is full Foundation's on Linux).
    private var descriptor: Int32?
    private var format: (rate: Int, channels: Int)?
    private var dataBytes = 0

    /// Creates the sink; the file is created (replacing any old one) at the first `play`.
    public init(url: URL) {
        self.url = url
    }

    /// Seconds written so far.
    public var duration: TimeInterval {
        guard let format else { return 0 }
        return Double(dataBytes / 2 / format.channels) / Double(format.rate)
    }

    /// Appends `buffer` to the file, converted to the file's rate and channels.
    ///
    /// - Throws: `.fileSystemError` when the file cannot be created or written.
    public func play(_ buffer: PCMAudio) async throws(SDKException) {
        guard !buffer.isEmpty else { return }
        do {
            let descriptor = try openIfNeeded(buffer)
            var converted = PCMAudio(samples: [], sampleRate: format!.rate, channels: format!.channels)
            converted.append(buffer)
            let pcm = converted.pcm16Data
            try write(pcm, at: 44 + dataBytes, to: descriptor)
            dataBytes += pcm.count
            try write(Self.le32(36 + dataBytes), at: 4, to: descriptor)
            try write(Self.le32(dataBytes), at: 40, to: descriptor)
        } catch let error as SDKException {
            throw error
        } catch {
            throw SDKException(.fileSystemError, "Cannot write audio to \(url.path)", underlying: error)
        }
    }

    /// Nothing is pending: every `play` has reached the file when it returns.
    public func stop() async {}

    /// Closes the file. Later `play` calls start a new file.
    public func close() {
        if let descriptor { closeDescriptor(descriptor) }
        descriptor = nil
        format = nil
        dataBytes = 0
    }

    private func openIfNeeded(_ buffer: PCMAudio) throws -> Int32 {
        if let descriptor { return descriptor }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let header = WAVFile.encode(PCMAudio(samples: [], sampleRate: buffer.sampleRate, channels: buffer.channels))
        guard FileManager.default.createFile(atPath: url.path, contents: header) else {
            throw SDKException(.fileSystemError, "Cannot create \(url.path)")
        }
        let descriptor = open(url.path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXError(errno: errno) }
        self.descriptor = descriptor
        format = (buffer.sampleRate, buffer.channels)
        dataBytes = 0
        return descriptor
    }

    private func write(_ data: Data, at offset: Int, to descriptor: Int32) throws {
        guard lseek(descriptor, off_t(offset), SEEK_SET) >= 0 else {
            throw POSIXError(errno: errno)
        }
        let failure = data.withUnsafeBytes { writeFully(descriptor, $0) }
        guard failure == 0 else { throw POSIXError(errno: failure) }
    }

    private static func le32(_ value: Int) -> Data {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { Data($0) }
    }
}
