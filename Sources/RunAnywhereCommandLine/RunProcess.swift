@_spi(Backend) import RunAnywhere

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CLI {
    /// Runs `binary` and returns its standard output; a failure becomes a `.backendError`.
    package static func runProcess(_ binary: URL, _ arguments: [String]) throws -> Data {
        let outcome: ChildProcess.Outcome
        do {
            outcome = try ChildProcess(executable: binary.path, arguments: arguments).run()
        } catch {
            throw SDKException(
                .backendError,
                "\(binary.lastPathComponent) could not start: \(error.readableDescription)"
            )
        }
        guard outcome.succeeded else {
            throw SDKException(
                .backendError,
                "\(binary.lastPathComponent) failed (\(outcome.termination)): \(outcome.errorText)"
            )
        }
        return Data(outcome.output)
    }
}
