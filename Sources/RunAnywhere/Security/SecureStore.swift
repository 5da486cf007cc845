import Crypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(Security)
import Security
#endif

/// Secrets (API keys, tokens, the device id) kept out of logs, the registry and plain files.
///
/// On Apple platforms `SecureStore.keychain(service:)` keeps them in the Keychain. On Linux (and
/// with ``init(directory:key:environment:)`` anywhere) each secret is a file in a folder only its owner can
/// open (0700), written 0600 and sealed with AES-256-GCM: the name is authenticated with the
/// value, so a file edited, cut short or renamed to another name is refused
/// (`secret_tampered`), and a file sealed under another key is told apart
/// (`secret_key_mismatch`). The key comes from ``keyEnvironmentVariable`` when it is set, else
/// from the folder's 0600 key file when there is one, else from the desktop's Secret Service
/// when the session has one, else from a key file made on first use. A folder or key file that other
/// users can open is not used (`insecure_permissions`).
///
/// Writes are atomic (a sealed temporary file renamed over the old one), so concurrent writers,
/// threads or processes, leave one whole value, never a mix.
///
/// ```swift
/// let store = try RunAnywhere.secureStore()
/// try store.set("sk-live-…", for: "openai-api-key")
/// let key = try store.string(for: "openai-api-key")
/// ```
public final class SecureStore: Sendable {
    /// Where the sealing key of a file store comes from.
    public enum KeySource: Sendable, Equatable {
        /// ``SecureStore/keyEnvironmentVariable`` when it is set; else the folder's key file
        /// when it exists; else the desktop's Secret Service when the session has one
        /// (through `secret-tool`; `RUNANYWHERE_SECURE_STORE_SECRET_SERVICE=0` turns it off);
        /// else a key file made now.
        case automatic
        /// A 0600 file holding the 32 key bytes, made when it does not exist.
        case keyFile(URL)
        /// An environment variable holding the 32 key bytes in base64.
        case environment(String)
        /// The 32 key bytes themselves.
        case bytes(Data)
    }

    /// The environment variable ``KeySource/automatic`` reads the key from (32 bytes, base64).
    public static let keyEnvironmentVariable = "RUNANYWHERE_SECURE_STORE_KEY"

    private enum Backend: Sendable {
        case files(folder: URL, key: Data, keyID: Data)
        case keychain(service: String)
    }

    private let backend: Backend
    private static let magic = Data("RASS".utf8)
    private static let version: UInt8 = 1
    private static let suffix = ".secret"

    /// A file store in `directory` (made 0700 when missing); `environment` is where
    /// ``KeySource/automatic`` and ``KeySource/environment(_:)`` look for the key.
    ///
    /// - Throws: `insecure_permissions` when the folder or key file can be opened by other
    ///   users, `invalid_configuration` for a key that is not 32 bytes, `file_system_error`.
    public init(
        directory: URL,
        key: KeySource = .automatic,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(SDKException) {
        try Self.preparePrivateFolder(directory)
        let bytes: Data
        switch key {
        case .automatic:
            let keyFile = directory.appendingPathComponent(".key")
            let marker = directory.appendingPathComponent(Self.secretServiceMarker)
            let keyring = SecretServiceKeyring.available(environment: environment)
            if let text = environment[Self.keyEnvironmentVariable], !text.isEmpty {
                bytes = try Self.decodeKey(text, source: "$\(Self.keyEnvironmentVariable)")
            } else if FileManager.default.fileExists(atPath: keyFile.path) {
                bytes = try Self.loadOrCreateKey(keyFile)
            } else if FileManager.default.fileExists(atPath: marker.path) {
                // The key lives in the Secret Service: never make a key file beside secrets
                // it could not open.
                bytes = try Self.secretServiceKey(required: keyring, store: directory)
            } else if let keyring, let key = Self.secretServiceKey(keyring, store: directory) {
                try FileSystem.atomicWrite(Data(), to: marker, permissions: 0o600)
                bytes = key
            } else {
                bytes = try Self.loadOrCreateKey(keyFile)
            }
        case .keyFile(let file):
            bytes = try Self.loadOrCreateKey(file)
        case .environment(let name):
            guard let text = environment[name], !text.isEmpty else {
                throw SDKException(.invalidConfiguration, "The secure store's key variable $\(name) is not set")
            }
            bytes = try Self.decodeKey(text, source: "$\(name)")
        case .bytes(let data):
            guard data.count == 32 else {
                throw SDKException(.invalidConfiguration, "A secure store key is 32 bytes, not \(data.count)")
            }
            bytes = data
        }
        let keyID = Data(
            HMAC<SHA256>.authenticationCode(
                for: Data("runanywhere secure store key id".utf8),
                using: SymmetricKey(data: bytes)
            )
        ).prefix(8)
        backend = .files(folder: directory, key: bytes, keyID: Data(keyID))
    }

    private init(backend: Backend) {
        self.backend = backend
    }

    #if canImport(Security)
    /// A store in the Keychain (generic passwords of `service`).
    public static func keychain(service: String = "com.runanywhere.sdk") -> SecureStore {
        SecureStore(backend: .keychain(service: service))
    }
    #endif

    // MARK: Secrets

    /// Stores `value` under `name`, replacing what was there.
    ///
    /// - Throws: `invalid_input` for a name that is not 1–128 letters, digits, `.`, `_` or `-`
    ///   starting with a letter or digit; `file_system_error`.
    public func set(_ value: String, for name: String) throws(SDKException) {
        try setData(Data(value.utf8), for: name)
    }

    /// Stores `value` under `name`, replacing what was there.
    public func setData(_ value: Data, for name: String) throws(SDKException) {
        try Self.check(name)
        switch backend {
        case .files(let folder, let key, let keyID):
            let sealed = try Self.seal(value, name: name, key: key, keyID: keyID)
            try FileSystem.atomicWrite(
                sealed,
                to: folder.appendingPathComponent(name + Self.suffix),
                permissions: 0o600
            )
        case .keychain(let service):
            try Self.keychainSet(value, service: service, account: name)
        }
    }

    /// Stores `value` under `name` unless something is there already; returns what is stored
    /// afterwards. Of several writers racing, threads or processes, exactly one wins and all
    /// get its value.
    public func setIfAbsent(_ value: String, for name: String) throws(SDKException) -> String {
        try Self.check(name)
        switch backend {
        case .files(let folder, let key, let keyID):
            let file = folder.appendingPathComponent(name + Self.suffix)
            if !FileManager.default.fileExists(atPath: file.path) {
                let sealed = try Self.seal(Data(value.utf8), name: name, key: key, keyID: keyID)
                try FileSystem.writeIfAbsent(sealed, to: file, permissions: 0o600)
            }
        case .keychain(let service):
            try Self.keychainAdd(Data(value.utf8), service: service, account: name)
        }
        guard let stored = try string(for: name) else {
            throw SDKException(.fileSystemError, "Secret '\(name)' was deleted while it was being set")
        }
        return stored
    }

    /// The value stored under `name` as UTF-8 text, or `nil` when there is none.
    ///
    /// - Throws: `secret_tampered` (changed, damaged or not UTF-8), `secret_key_mismatch`,
    ///   `invalid_input` for a bad name, `file_system_error`.
    public func string(for name: String) throws(SDKException) -> String? {
        guard let data = try data(for: name) else { return nil }
        guard let text = String(data: data, encoding: .utf8) else {
            throw SDKException(.secretTampered, "Secret '\(name)' is not UTF-8 text")
        }
        return text
    }

    /// The value stored under `name`, or `nil` when there is none.
    public func data(for name: String) throws(SDKException) -> Data? {
        try Self.check(name)
        switch backend {
        case .files(let folder, let key, let keyID):
            let file = folder.appendingPathComponent(name + Self.suffix)
            let sealed: Data
            do {
                sealed = try Data(contentsOf: file)
            } catch {
                // No file (or one deleted meanwhile) is no secret.
                if !FileManager.default.fileExists(atPath: file.path) { return nil }
                throw SDKException(.fileSystemError, "Could not read secret '\(name)'", underlying: error)
            }
            return try Self.open(sealed, name: name, key: key, keyID: keyID)
        case .keychain(let service):
            return try Self.keychainGet(service: service, account: name)
        }
    }

    /// Deletes the secret `name`; returns whether there was one.
    @discardableResult
    public func delete(_ name: String) throws(SDKException) -> Bool {
        try Self.check(name)
        switch backend {
        case .files(let folder, _, _):
            let file = folder.appendingPathComponent(name + Self.suffix)
            guard unlink(file.path) == 0 else {
                if errno == ENOENT { return false }
                throw SDKException(.fileSystemError, "Could not delete secret '\(name)' (errno \(errno))")
            }
            return true
        case .keychain(let service):
            return try Self.keychainDelete(service: service, account: name)
        }
    }

    /// The names of the stored secrets, sorted.
    public func names() throws(SDKException) -> [String] {
        switch backend {
        case .files(let folder, _, _):
            let entries: [String]
            do {
                entries = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            } catch {
                throw SDKException(.fileSystemError, "Could not list the secure store", underlying: error)
            }
            return entries.filter { $0.hasSuffix(Self.suffix) && !$0.hasPrefix(".") }
                .map { String($0.dropLast(Self.suffix.count)) }
                .sorted()
        case .keychain(let service):
            return try Self.keychainNames(service: service)
        }
    }

    // MARK: Sealing

    /// Names are file names everywhere: no separators, no leading dot, nothing to escape.
    static func check(_ name: String) throws(SDKException) {
        let allowed = name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
        guard (1...128).contains(name.utf8.count), allowed, name.first != ".", name.first != "-", name.first != "_"
        else {
            throw SDKException(
                .invalidInput,
                "A secret's name is 1–128 letters, digits, '.', '_' or '-', starting with a letter or digit"
            )
        }
    }

    /// What the tag authenticates besides the value: the entry's name.
    private static func context(_ name: String) -> Data {
        Data("runanywhere-secure-store:\(name)".utf8)
    }

    private static func seal(_ value: Data, name: String, key: Data, keyID: Data) throws(SDKException) -> Data {
        do {
            let box = try AES.GCM.seal(value, using: SymmetricKey(data: key), authenticating: context(name))
            guard let combined = box.combined else {
                throw SDKException(.internalError, "AES-GCM gave no combined box")
            }
            return magic + Data([version]) + keyID + combined
        } catch let error as SDKException {
            throw error
        } catch {
            throw SDKException(.internalError, "Could not seal secret '\(name)': \(error)")
        }
    }

    private static func open(_ sealed: Data, name: String, key: Data, keyID: Data) throws(SDKException) -> Data {
        let header = magic.count + 1 + keyID.count
        guard sealed.count >= header + 12 + 16, sealed.prefix(magic.count) == magic else {
            throw SDKException(.secretTampered, "Secret '\(name)' is not a sealed secret (damaged or replaced)")
        }
        guard sealed[sealed.startIndex + magic.count] == version else {
            throw SDKException(.secretTampered, "Secret '\(name)' has an unknown format version")
        }
        guard sealed.dropFirst(magic.count + 1).prefix(keyID.count) == keyID else {
            throw SDKException(
                .secretKeyMismatch,
                "Secret '\(name)' was sealed under another key than this store's",
                recovery: "Use the key it was written with, or set the secret again"
            )
        }
        do {
            let box = try AES.GCM.SealedBox(combined: sealed.dropFirst(header))
            return try AES.GCM.open(box, using: SymmetricKey(data: key), authenticating: context(name))
        } catch {
            throw SDKException(.secretTampered, "Secret '\(name)' failed its integrity check: it was changed on disk")
        }
    }

    // MARK: Files

    private static func decodeKey(_ text: String, source: String) throws(SDKException) -> Data {
        guard let data = Data(base64Encoded: text.trimmed()), data.count == 32
        else {
            throw SDKException(.invalidConfiguration, "\(source) must hold 32 bytes in base64")
        }
        return data
    }

    /// Makes `folder` (0700) when missing; refuses one that others can open or that is not ours.
    private static func preparePrivateFolder(_ folder: URL) throws(SDKException) {
        if mkdir(folder.path, 0o700) != 0, errno != EEXIST {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw SDKException(.fileSystemError, "Could not create the secure store's folder", underlying: error)
            }
            _ = chmod(folder.path, 0o700)
        }
        try checkPrivate(folder.path, what: "folder", directory: true)
    }

    private static func checkPrivate(_ path: String, what: String, directory: Bool) throws(SDKException) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            throw SDKException(.fileSystemError, "Could not inspect the secure store's \(what) (errno \(errno))")
        }
        let kind = info.st_mode & S_IFMT
        guard kind == (directory ? S_IFDIR : S_IFREG) else {
            throw SDKException(
                .insecurePermissions,
                "The secure store's \(what) at \(path) is not a plain \(directory ? "folder" : "file")"
            )
        }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0, info.st_uid == geteuid() else {
            throw SDKException(
                .insecurePermissions,
                "The secure store's \(what) at \(path) can be opened by other users (mode \(String(mode, radix: 8)))",
                recovery: "chmod \(directory ? "700" : "600") \(path)"
            )
        }
    }

    /// The key in `file`, made (32 random bytes, 0600) when there is none. Two processes
    /// making it at once agree: each links a complete file into place, and the loser reads
    /// the winner's.
    /// The file that says a store's key is in the Secret Service.
    static let secretServiceMarker = ".key-in-secret-service"

    /// The key of a store whose marker says it is in the Secret Service.
    ///
    /// - Throws: `.invalidConfiguration` when this process reaches no Secret Service,
    ///   `.secretKeyMismatch` when the service no longer holds the key.
    private static func secretServiceKey(
        required keyring: SecretServiceKeyring?,
        store: URL
    ) throws(SDKException) -> Data {
        guard let keyring else {
            throw SDKException(
                .invalidConfiguration,
                "The secure store at \(store.path) keeps its key in the Secret Service, which this process cannot reach",
                recovery:
                    "Run in the desktop session (DBUS_SESSION_BUS_ADDRESS set), or give the key in $\(keyEnvironmentVariable)"
            )
        }
        guard let text = try keyring.lookup(store: store) else {
            throw SDKException(
                .secretKeyMismatch,
                "The Secret Service no longer holds the key of the secure store at \(store.path)",
                recovery: "Its secrets cannot be opened any more: remove the folder to start afresh"
            )
        }
        return try decodeKey(text, source: "The Secret Service's item for \(store.path)")
    }

    /// The store's key in the Secret Service, made there on first use; `nil` (a key file is
    /// used instead) when the service cannot be used, which is logged.
    private static func secretServiceKey(_ keyring: SecretServiceKeyring, store: URL) -> Data? {
        do {
            if let text = try keyring.lookup(store: store) {
                return try decodeKey(text, source: "The Secret Service's item for \(store.path)")
            }
            // Processes making the key at once take turns: the first stores it, the others find it.
            let lockURL = store.appendingPathComponent(".key.lock")
            var lock = FileLock(lockURL)
            for _ in 0..<500 where lock == nil {
                usleep(10_000)
                lock = FileLock(lockURL)
            }
            defer { lock?.release() }
            if let text = try keyring.lookup(store: store) {
                return try decodeKey(text, source: "The Secret Service's item for \(store.path)")
            }
            let fresh = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
            try keyring.store(fresh.base64EncodedString(), store: store)
            // Another process may have stored its own key at the same moment: the one kept wins.
            guard let kept = try keyring.lookup(store: store) else { return nil }
            return try decodeKey(kept, source: "The Secret Service's item for \(store.path)")
        } catch {
            SDKLogger(category: "SecureStore").warning("Keeping the key in a file: \(error.message)")
            return nil
        }
    }

    private static func loadOrCreateKey(_ file: URL) throws(SDKException) -> Data {
        if !FileManager.default.fileExists(atPath: file.path) {
            try FileSystem.writeIfAbsent(
                SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) },
                to: file,
                permissions: 0o600
            )
        }
        try checkPrivate(file.path, what: "key file", directory: false)
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw SDKException(.fileSystemError, "Could not read the secure store's key file", underlying: error)
        }
        guard data.count == 32 else {
            throw SDKException(.invalidConfiguration, "The secure store's key file \(file.path) does not hold 32 bytes")
        }
        return data
    }

    // MARK: Keychain

    #if canImport(Security)
    private static func keychainQuery(service: String, account: String? = nil) -> [String: Any] {
        var query: [String: Any] = [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service]
        if let account { query[kSecAttrAccount as String] = account }
        return query
    }

    private static func keychainFailure(_ status: OSStatus, _ action: String) -> SDKException {
        let message = SecCopyErrorMessageString(status, nil).map { $0 as String } ?? "OSStatus \(status)"
        return SDKException(.fileSystemError, "The Keychain could not \(action): \(message)")
    }

    private static func keychainSet(_ value: Data, service: String, account: String) throws(SDKException) {
        let query = keychainQuery(service: service, account: account)
        let update = SecItemUpdate(query as CFDictionary, [kSecValueData as String: value] as CFDictionary)
        if update == errSecSuccess { return }
        guard update == errSecItemNotFound else { throw keychainFailure(update, "store '\(account)'") }
        var item = query
        item[kSecValueData as String] = value
        item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        let status = SecItemAdd(item as CFDictionary, nil)
        guard status == errSecSuccess else { throw keychainFailure(status, "store '\(account)'") }
    }

    /// Adds the item unless the Keychain has it already.
    private static func keychainAdd(_ value: Data, service: String, account: String) throws(SDKException) {
        var item = keychainQuery(service: service, account: account)
        item[kSecValueData as String] = value
        item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        let status = SecItemAdd(item as CFDictionary, nil)
        guard status == errSecSuccess || status == errSecDuplicateItem else {
            throw keychainFailure(status, "store '\(account)'")
        }
    }

    private static func keychainGet(service: String, account: String) throws(SDKException) -> Data? {
        var query = keychainQuery(service: service, account: account)
        query[kSecReturnData as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitOne
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        guard status == errSecSuccess else { throw keychainFailure(status, "read '\(account)'") }
        return result as? Data
    }

    private static func keychainDelete(service: String, account: String) throws(SDKException) -> Bool {
        let status = SecItemDelete(keychainQuery(service: service, account: account) as CFDictionary)
        if status == errSecItemNotFound { return false }
        guard status == errSecSuccess else { throw keychainFailure(status, "delete '\(account)'") }
        return true
    }

    private static func keychainNames(service: String) throws(SDKException) -> [String] {
        var query = keychainQuery(service: service)
        query[kSecReturnAttributes as String] = true
        query[kSecMatchLimit as String] = kSecMatchLimitAll
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return [] }
        guard status == errSecSuccess else { throw keychainFailure(status, "list secrets") }
        let items = result as? [[String: Any]] ?? []
        return items.compactMap { $0[kSecAttrAccount as String] as? String }.sorted()
    }
    #else
    private static func keychainSet(_ value: Data, service: String, account: String) throws(SDKException) {
        throw SDKException(.invalidConfiguration, "There is no Keychain on this platform")
    }

    private static func keychainAdd(_ value: Data, service: String, account: String) throws(SDKException) {
        throw SDKException(.invalidConfiguration, "There is no Keychain on this platform")
    }

    private static func keychainGet(service: String, account: String) throws(SDKException) -> Data? {
        throw SDKException(.invalidConfiguration, "There is no Keychain on this platform")
    }

    private static func keychainDelete(service: String, account: String) throws(SDKException) -> Bool {
        throw SDKException(.invalidConfiguration, "There is no Keychain on this platform")
    }

    private static func keychainNames(service: String) throws(SDKException) -> [String] {
        throw SDKException(.invalidConfiguration, "There is no Keychain on this platform")
    }
    #endif
}
