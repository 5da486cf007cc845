#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RunAnywhereSDK {
    /// The secure store of this instance: the Keychain on Apple platforms, sealed files in
    /// ``SDKPaths/secureDirectory`` elsewhere.
    ///
    /// ```swift
    /// let store = try sdk.secureStore()
    /// try store.set(ProcessInfo.processInfo.environment["OPENAI_API_KEY"] ?? "", for: "openai-api-key")
    /// ```
    ///
    /// - Throws: `insecure_permissions` when the folder or its key file can be opened by other
    ///   users, `invalid_configuration` for a bad ``SecureStore/keyEnvironmentVariable``.
    public func secureStore() throws(SDKException) -> SecureStore {
        try SecureStore.forSDK(paths: paths)
    }

    /// This installation's device id: a random UUID made on first use and kept in the secure
    /// store (`device-id`), so it survives restarts and never appears in the registry.
    ///
    /// - Throws: what ``secureStore()`` throws, and the store's errors reading or writing it.
    public var deviceId: String {
        get throws(SDKException) { try secureStore().deviceId() }
    }

    /// The secure store's name for the device id.
    static let deviceIdSecret = "device-id"
}

extension SecureStore {
    /// The device id kept here, made on first use. Callers racing to make it, in this process
    /// or another, all get the one that won.
    package func deviceId() throws(SDKException) -> String {
        if let id = try string(for: RunAnywhereSDK.deviceIdSecret) { return id }
        return try setIfAbsent(UUID().uuidString.lowercased(), for: RunAnywhereSDK.deviceIdSecret)
    }

    /// The store of the SDK whose folders are `paths`: in the Keychain, one service per home, so
    /// that SDK instances on different homes keep different secrets (and device ids) as they do
    /// on Linux.
    package static func forSDK(paths: SDKPaths) throws(SDKException) -> SecureStore {
        #if canImport(Security)
        SecureStore.keychain(service: "com.runanywhere.sdk:\(paths.home.path)")
        #else
        try SecureStore(directory: paths.secureDirectory)
        #endif
    }
}

extension RunAnywhere {
    /// The shared instance's secure store.
    ///
    /// Calls ``RunAnywhereSDK/secureStore()`` on the shared instance.
    public static func secureStore() throws(SDKException) -> SecureStore {
        try sdk().secureStore()
    }

    /// The shared instance's device id, as the original SDK's property: ``RunAnywhereSDK/deviceId``
    /// of the shared instance, or an empty string when the SDK is not initialized or its secure
    /// store cannot be read (the error is logged). Read ``RunAnywhereSDK/deviceId`` to get the error.
    public static var deviceId: String {
        do {
            return try sdk().deviceId
        } catch {
            SDKLogger(category: "SecureStore").warning("No device id: \(error)")
            return ""
        }
    }
}
