#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
        let (status, output, errors) = try run(["lookup", "application", "runanywhere", "store", Self.name(store)])
        if status == 0 { return output }
        // secret-tool exits 1 with no output for "no such item", and prints why otherwise.
        if errors.isEmpty { return nil }
        throw SDKException(.fileSystemError, "The Secret Service could not be asked for the key: \(errors)")
    }

    /// Stores `secret` for `store`.
    func store(_ secret: String, store folder: URL) throws(SDKException) {
        let (status, _, errors) = try run(
            [
                "store", "--label=RunAnywhere secure store (\(Self.name(folder)))", "application", "runanywhere",
                "store",
                Self.name(folder),
            ],
            input: secret
        )
        guard status == 0 else {
            throw SDKException(.fileSystemError, "The Secret Service did not keep the key: \(errors)")
        }
    }

    /// A store's attribute: its folder with symbolic links resolved, so every path to it
    /// finds the same item.
    static func name(_ folder: URL) -> String {
        folder.resolvingSymlinksInPath().standardizedFileURL.path
    }

    /// How long `secret-tool` may take: a locked keyring may wait for a prompt nobody sees.
    static let timeoutSeconds = 10.0

    private func run(_ arguments: [String], input: String? = nil) throws(SDKException) -> (Int32, String, String) {
        let outcome: ChildProcess.Outcome
        do {
            outcome = try ChildProcess(
                executable: tool.path,
                arguments: arguments,
                environment: environment,
                input: input.map { .bytes(Array($0.utf8)) } ?? .none,
                timeout: .seconds(Self.timeoutSeconds)
            ).run()
        } catch {
            throw SDKException(.fileSystemError, "secret-tool could not start: \(error.readableDescription)")
        }
        if outcome.timedOut {
            throw SDKException(
                .fileSystemError,
                "The Secret Service did not answer within \(Int(Self.timeoutSeconds)) s (a locked keyring?)"
            )
        }
        let status: Int32 =
            switch outcome.termination {
            case .exited(let status): status
            case .signaled(let signal): 128 + signal
            }
        return (status, outcome.outputText, outcome.errorText)
    }
}
