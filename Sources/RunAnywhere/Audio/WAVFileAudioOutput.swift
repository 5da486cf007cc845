import Foundation

/// An ``AudioOutput`` that appends everything played to a 16-bit WAV file.
///
/// The header is kept valid after every buffer, so the file can be read at any time. The
/// first buffer fixes the sample rate and channel count; later buffers are converted to them.
public actor WAVFileAudioOutput: AudioOutput {
    /// Where the audio goes.
    public nonisolated let url: URL
    private var handle: FileHandle?
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
    public func play(_ buffer: AudioBuffer) async throws(SDKException) {
        guard !buffer.isEmpty else { return }
        do {
            let handle = try openIfNeeded(buffer)
            var converted = AudioBuffer(samples: [], sampleRate: format!.rate, channels: format!.channels)
            converted.append(buffer)
            let pcm = converted.pcm16Data
            try handle.seekToEnd()
            try handle.write(contentsOf: pcm)
            dataBytes += pcm.count
            try writeSizes(handle)
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
        try? handle?.close()
        handle = nil
        format = nil
        dataBytes = 0
    }

    private func openIfNeeded(_ buffer: AudioBuffer) throws -> FileHandle {
        if let handle { return handle }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let header = WAVFile.encode(AudioBuffer(samples: [], sampleRate: buffer.sampleRate, channels: buffer.channels))
        guard FileManager.default.createFile(atPath: url.path, contents: header) else {
            throw SDKException(.fileSystemError, "Cannot create \(url.path)")
        }
        let handle = try FileHandle(forWritingTo: url)
        self.handle = handle
        format = (buffer.sampleRate, buffer.channels)
        dataBytes = 0
        return handle
    }

    private func writeSizes(_ handle: FileHandle) throws {
        try handle.seek(toOffset: 4)
        try handle.write(contentsOf: Self.le32(36 + dataBytes))
        try handle.seek(toOffset: 40)
        try handle.write(contentsOf: Self.le32(dataBytes))
    }

    private static func le32(_ value: Int) -> Data {
        withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { Data($0) }
    }
}
