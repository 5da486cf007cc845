import ArgumentParser
// Process and Pipe are full Foundation's on Linux; the benches run raw harnesses through them
// (swift-subprocess, Foundation-free, is async-only: a later step).
import Foundation
@_spi(Backend) import RunAnywhere

extension CLI {
    /// Runs `binary` and returns its standard output; a failure becomes a `.backendError`.
    static func runProcess(_ binary: URL, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw SDKException(
                .backendError,
                "\(binary.lastPathComponent) failed (status \(process.terminationStatus)): "
                    + String(decoding: errors, as: UTF8.self).trimmed()
            )
        }
        return data
    }
}
