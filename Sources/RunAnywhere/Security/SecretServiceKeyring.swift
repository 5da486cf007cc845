import Foundation
import Synchronization

/// The desktop's Secret Service (GNOME Keyring, KWallet…) through libsecret's `secret-tool`:
/// where a Linux file store keeps its sealing key when a session has one, so the key is
/// not a file beside the secrets it seals.
///
/// Present when the process has a session bus (`DBUS_SESSION_BUS_ADDRESS`) and `secret-tool`
/// is on the `PATH`, unless ``disableVariable`` is `0`. Items are found by two attributes:
/// `application` = `runanywhere` and `store` = the store's folder.
struct SecretServiceKeyring: Sendable {
    /// Set to `0` to keep the key in a file even where a Secret Service runs.
    static let disableVariable = "RUNANYWHERE_SECURE_STORE_SECRET_SERVICE"

    let tool: URL
    let environment: [String: String]

    /// The keyring, when this process can reach one.
    static func available(environment: [String: String]) -> SecretServiceKeyring? {
        guard environment[disableVariable] != "0", environment["DBUS_SESSION_BUS_ADDRESS"]?.isEmpty == false else {
            return nil
        }
        let path = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("secret-tool") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
        return path.map { SecretServiceKeyring(tool: $0, environment: environment) }
    }

    /// The secret stored for `store`, or `nil` when there is none.
    ///
    /// - Throws: `.fileSystemError` when the Secret Service cannot be asked (locked, gone).
    func lookup(store: URL) throws(SDKException) -> String? {
        let (status, output, errors) = try run(["lookup", "application", "runanywhere", "store", store.path])
        if status == 0 { return output }
        // secret-tool exits 1 with no output for "no such item", and prints why otherwise.
        if errors.isEmpty { return nil }
        throw SDKException(.fileSystemError, "The Secret Service could not be asked for the key: \(errors)")
    }

    /// Stores `secret` for `store`.
    func store(_ secret: String, store folder: URL) throws(SDKException) {
        let (status, _, errors) = try run(
            [
                "store", "--label=RunAnywhere secure store (\(folder.path))", "application", "runanywhere", "store",
                folder.path,
            ],
            input: secret
        )
        guard status == 0 else {
            throw SDKException(.fileSystemError, "The Secret Service did not keep the key: \(errors)")
        }
    }

    private func run(_ arguments: [String], input: String? = nil) throws(SDKException) -> (Int32, String, String) {
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        process.environment = environment
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        do {
            try process.run()
        } catch {
            throw SDKException(.fileSystemError, "secret-tool could not start: \(error)")
        }
        if let input { try? stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8)) }
        try? stdin.fileHandleForWriting.close()
        let drained = DispatchGroup()
        let errorData = Mutex(Data())
        DispatchQueue.global().async(group: drained) {
            let data = stderr.fileHandleForReading.readDataToEndOfFile()
            errorData.withLock { $0 = data }
        }
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        drained.wait()
        return (
            process.terminationStatus,
            String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines),
            String(decoding: errorData.withLock { $0 }, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        )
    }
}
