import Dispatch
// Process, Pipe and FileHandle: full Foundation's (swift-subprocess is async-only; next step).
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
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
        let process = Process()
        process.executableURL = tool
        process.arguments = arguments
        process.environment = environment
        // Standard input is a socket, written with MSG_NOSIGNAL: a secret-tool that exits
        // before reading must not kill this process with SIGPIPE.
        var sockets: [Int32] = [-1, -1]
        #if os(Linux)
        let made = socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &sockets)
        #else
        let made = socketpair(AF_UNIX, SOCK_STREAM, 0, &sockets)
        #endif
        guard made == 0 else {
            throw SDKException(.fileSystemError, "Cannot talk to secret-tool (socketpair: errno \(errno))")
        }
        let writer = sockets[0]
        defer { close(writer) }
        let childInput = FileHandle(fileDescriptor: sockets[1], closeOnDealloc: true)
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = childInput
        process.standardOutput = stdout
        process.standardError = stderr
        do {
            try process.run()
        } catch {
            try? childInput.close()
            throw SDKException(.fileSystemError, "secret-tool could not start: \(error)")
        }
        try? childInput.close()
        let timedOut = AtomicFlag()
        let timer = DispatchWorkItem {
            guard process.isRunning else { return }
            timedOut.set()
            process.terminate()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.timeoutSeconds, execute: timer)
        defer { timer.cancel() }
        if let input {
            #if os(Linux)
            let flags = Int32(MSG_NOSIGNAL)
            #else
            let flags: Int32 = 0
            var one: Int32 = 1
            setsockopt(writer, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
            #endif
            // The secret is a few bytes, far below a socket's buffer: the send cannot block.
            _ = Array(input.utf8).withUnsafeBytes { send(writer, $0.baseAddress, $0.count, flags) }
        }
        shutdown(writer, Int32(SHUT_WR))
        let drained = DispatchGroup()
        let errorData = Mutex(Data())
        DispatchQueue.global().async(group: drained) {
            let data = stderr.fileHandleForReading.readDataToEndOfFile()
            errorData.withLock { $0 = data }
        }
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        drained.wait()
        if timedOut.isSet {
            throw SDKException(
                .fileSystemError,
                "The Secret Service did not answer within \(Int(Self.timeoutSeconds)) s (a locked keyring?)"
            )
        }
        return (
            process.terminationStatus,
            String(decoding: output, as: UTF8.self).trimmed(),
            String(decoding: errorData.withLock { $0 }, as: UTF8.self).trimmed()
        )
    }
}
