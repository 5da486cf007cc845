import Crypto
@_spi(Backend) internal import RunAnywhere
import Synchronization

#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// Phase 2 against a control plane: authenticates, registers the device, applies its model
/// assignments and uploads the telemetry queue, then keeps doing the last two in the
/// background. Nothing here ever fails the app: an unreachable or refusing control plane
/// leaves the SDK working offline and is tried again with back-off.
///
/// Tokens live in the secure store (never in the registry or logs). An access token the
/// server calls expired is renewed once (refresh, or a new authentication when the refresh
/// token is refused too) and the call retried; a second refusal is a typed
/// `.remoteUnauthorized`.
actor ControlPlaneAgent: InstanceService {
    private let connection: any ControlPlaneConnection
    private let settings: ControlPlaneSettings
    private let apiKey: String
    let queue: TelemetryQueue
    private let secrets: @Sendable () throws(SDKException) -> SecureStore
    private let deviceDescription: @Sendable () -> DeviceDescription
    private let apply: @Sendable ([ModelAssignment]) async -> Void
    private let stopObserving: @Sendable () -> Void
    private let logger = SDKLogger(category: "ControlPlane")

    private var tokens: ControlPlaneTokens?
    private var deviceId: String?
    private var registered = false
    private var etag: String?
    private var background: Task<Void, Never>?
    private var isShutDown = false
    private var upload: Task<Result<TelemetryReceipt, SDKException>, Never>?
    private let statusBox = Mutex(ControlPlaneStatus(state: .connecting))

    /// The secure store's name for the tokens.
    static let tokensSecret = "control-plane-tokens"

    init(
        connection: any ControlPlaneConnection,
        settings: ControlPlaneSettings,
        apiKey: String,
        queue: TelemetryQueue,
        secrets: @escaping @Sendable () throws(SDKException) -> SecureStore,
        deviceDescription: @escaping @Sendable () -> DeviceDescription,
        apply: @escaping @Sendable ([ModelAssignment]) async -> Void,
        stopObserving: @escaping @Sendable () -> Void
    ) {
        self.connection = connection
        self.settings = settings
        self.apiKey = apiKey
        self.queue = queue
        self.secrets = secrets
        self.deviceDescription = deviceDescription
        self.apply = apply
        self.stopObserving = stopObserving
    }

    nonisolated var status: ControlPlaneStatus { statusBox.withLock { $0 } }

    // MARK: Phase 2

    /// Phase 2 of the instance: connects, then keeps syncing in the background. An unreachable
    /// control plane is logged and tried again with back-off: the instance starts offline.
    func start() async -> Bool {
        var online = true
        do {
            try await connect()
        } catch {
            logger.warning("Control plane unavailable, working offline: \(error.message)")
            online = false
        }
        startBackground()
        return online
    }

    /// Authenticates (unless stored tokens still work), registers the device, applies the
    /// assignments and uploads what is queued. Throws the first failure; the status says
    /// `.offline` then.
    func connect() async throws(SDKException) {
        do throws(SDKException) {
            let id = try resolveDeviceId()
            if !registered {
                let description = deviceDescription()
                let new = try await authorized { [connection] token async throws(SDKException) -> Bool in
                    try await connection.registerDevice(id: id, description, accessToken: token)
                }
                registered = true
                statusBox.withLock { $0.deviceWasNew = new }
                logger.info("Registered with the control plane as \(id)\(new ? " (new device)" : "")")
            }
            try await syncAssignments()
            markContact()
        } catch {
            markFailure(error)
            throw error
        }
    }

    /// Fetches the assignments (a 304 when unchanged) and applies new ones.
    func syncAssignments() async throws(SDKException) {
        let id = try resolveDeviceId()
        let known = etag
        let fetched: ModelAssignments?
        do throws(SDKException) {
            fetched = try await authorized { [connection] token async throws(SDKException) -> ModelAssignments? in
                try await connection.assignments(deviceId: id, etag: known, accessToken: token)
            }
        } catch  where error.code == .remoteNotFound {
            // The control plane no longer knows the device (its data was reset): register again.
            registered = false
            etag = nil
            throw error
        }
        guard let fetched else { return }
        etag = fetched.etag
        statusBox.withLock { $0.assignedModels = fetched.models.map(\.modelId) }
        await apply(fetched.models)
    }

    /// Connects if needed, then uploads every queued event in batches. Returns what the
    /// server acknowledged; an empty receipt when another uploader (another process on the
    /// same home) holds the queue's upload lock.
    func flush() async throws(SDKException) -> TelemetryReceipt {
        if !registered { try await connect() }
        // One upload at a time in this process: a flush asked for while the background loop
        // uploads waits for it, then sends what is left.
        while let running = upload {
            _ = await running.value
            if upload == running { upload = nil }
        }
        let task = Task { () async -> Result<TelemetryReceipt, SDKException> in
            do throws(SDKException) {
                return .success(try await self.uploadQueued())
            } catch {
                return .failure(error)
            }
        }
        upload = task
        defer { if upload == task { upload = nil } }
        do throws(SDKException) {
            let receipt = try await task.value.get()
            markContact()
            return receipt
        } catch {
            markFailure(error)
            throw error
        }
    }

    private func uploadQueued() async throws(SDKException) -> TelemetryReceipt {
        guard let lock = queue.uploadLock() else {
            logger.debug("Another process is uploading this home's telemetry")
            return TelemetryReceipt()
        }
        defer { lock.release() }
        let id = try resolveDeviceId()
        var total = TelemetryReceipt()
        while true {
            let batch = try queue.oldest(settings.telemetryBatchSize)
            if batch.isEmpty { break }
            // A new batch id each time; the events keep theirs, which is what the server dedups on.
            let batchId = UUID()
            do throws(SDKException) {
                let receipt = try await authorized {
                    [connection] token async throws(SDKException) -> TelemetryReceipt in
                    try await connection.uploadTelemetry(
                        batchId: batchId,
                        deviceId: id,
                        events: batch,
                        accessToken: token
                    )
                }
                total = total + receipt
            } catch  where error.code == .remoteRejected {
                // The server will never take this batch (400, 413): sending it again would
                // hold every later event back.
                logger.error("The control plane rejected \(batch.count) telemetry events; dropped: \(error.message)")
            }
            try queue.remove(batch.map(\.id))
        }
        if total.accepted + total.duplicates > 0 {
            logger.debug("Uploaded telemetry: \(total.accepted) new, \(total.duplicates) already known")
        }
        return total
    }

    /// Starts the background loop: reconnects with back-off while offline, then syncs the
    /// assignments and uploads the queue every ``ControlPlaneSettings/uploadInterval``.
    func startBackground() {
        // Shut down while phase 2 was still connecting: nothing more may start.
        guard background == nil, !isShutDown else { return }
        background = Task { [weak self] in await self?.runBackground() }
    }

    private func runBackground() async {
        var backoff = Duration.seconds(1)
        // Phase 2 has just connected (or failed): the first round comes one interval (or one
        // back-off) later, so start-up is not spent uploading.
        var wait = registered ? settings.uploadInterval : backoff
        while !Task.isCancelled, !isShutDown {
            try? await Task.sleep(for: wait)
            guard !Task.isCancelled, !isShutDown else { return }
            // Assignments and uploads fail apart: a bad assignment never holds telemetry back.
            var failure: SDKException?
            do throws(SDKException) {
                if registered {
                    try await syncAssignments()
                } else {
                    try await connect()
                }
            } catch {
                failure = error
            }
            if registered {
                do throws(SDKException) {
                    _ = try await flush()
                } catch {
                    failure = failure ?? error
                }
            }
            if let failure {
                logger.warning("Control plane: \(failure.message); trying again in \(backoff)")
                wait = backoff
                backoff = min(backoff * 2, settings.maximumBackoff)
            } else {
                backoff = .seconds(1)
                wait = settings.uploadInterval
            }
        }
    }

    /// Stops the background loop and closes the connection; queued events stay on disk.
    func shutdown() async {
        stopObserving()
        isShutDown = true
        background?.cancel()
        background = nil
        await connection.shutdown()
    }

    // MARK: Tokens

    /// Runs `call` with a valid access token; an expired or refused token is renewed once.
    private func authorized<T: Sendable>(
        _ call: @Sendable (String) async throws(SDKException) -> T
    ) async throws(SDKException) -> T {
        let token = try await accessToken()
        do {
            return try await call(token)
        } catch  where Self.isTokenRefusal(error) {
            logger.info("The control plane refused the access token (\(error.code.rawValue)); renewing it once")
            let renewed = try await renew()
            do {
                return try await call(renewed)
            } catch  where Self.isTokenRefusal(error) {
                forgetTokens()
                throw SDKException(
                    .remoteUnauthorized,
                    "The control plane refused a freshly renewed access token: \(error.message)",
                    recovery: "Check the API key and the control plane's token settings"
                )
            }
        }
    }

    private static func isTokenRefusal(_ error: SDKException) -> Bool {
        error.code == .tokenExpired || error.code == .remoteUnauthorized
    }

    /// The stored access token while it has at least 5 s left; otherwise new tokens.
    private func accessToken() async throws(SDKException) -> String {
        if tokens == nil, let stored = loadTokens() {
            tokens = stored
            statusBox.withLock { status in
                status.userId = stored.userId
                status.organizationId = stored.organizationId
            }
        }
        if let tokens, tokens.accessExpiresAt.timeIntervalSinceNow > 5 { return tokens.accessToken }
        return try await renew()
    }

    /// Refreshes while the refresh token lasts, else (or when it is refused) authenticates.
    private func renew() async throws(SDKException) -> String {
        if let current = tokens ?? loadTokens(), current.refreshExpiresAt.timeIntervalSinceNow > 5 {
            do {
                let fresh = try await connection.refresh(refreshToken: current.refreshToken)
                store(fresh)
                return fresh.accessToken
            } catch  where Self.isTokenRefusal(error) {
                logger.info("The refresh token was refused; authenticating with the API key")
            }
        }
        let fresh = try await connection.authenticate(apiKey: apiKey, deviceId: try resolveDeviceId())
        store(fresh)
        return fresh.accessToken
    }

    /// Tokens as kept: with a digest of the API key they were issued for, so an app that
    /// changes its key never goes on with the old key's session.
    private struct StoredTokens: Codable {
        var keyDigest: String
        var tokens: ControlPlaneTokens
    }

    private var keyDigest: String {
        SHA256.hash(data: Data(apiKey.utf8)).hexEncoded
    }

    private func loadTokens() -> ControlPlaneTokens? {
        guard let data = try? secrets().data(for: Self.tokensSecret),
            let stored = try? JSONDecoder().decode(StoredTokens.self, from: data), stored.keyDigest == keyDigest
        else { return nil }
        return stored.tokens
    }

    private func store(_ fresh: ControlPlaneTokens) {
        tokens = fresh
        statusBox.withLock { status in
            status.userId = fresh.userId
            status.organizationId = fresh.organizationId
        }
        do {
            let stored = StoredTokens(keyDigest: keyDigest, tokens: fresh)
            try secrets().setData(try JSONEncoder().encode(stored), for: Self.tokensSecret)
        } catch {
            // The tokens still work for this run; the next start authenticates again.
            logger.warning("Could not keep the control-plane tokens in the secure store: \(error)")
        }
    }

    private func forgetTokens() {
        tokens = nil
        _ = try? secrets().delete(Self.tokensSecret)
    }

    // MARK: State

    private func resolveDeviceId() throws(SDKException) -> String {
        if let deviceId { return deviceId }
        let id = try secrets().deviceId()
        deviceId = id
        statusBox.withLock { $0.deviceId = id }
        return id
    }

    private func markContact() {
        statusBox.withLock {
            $0.state = .connected
            $0.lastContact = Date()
            $0.lastError = nil
        }
    }

    private func markFailure(_ error: SDKException) {
        statusBox.withLock {
            $0.state = .offline
            $0.lastError = error
        }
    }
}
