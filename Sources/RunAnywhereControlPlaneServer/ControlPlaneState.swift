internal import Foundation
internal import RunAnywhereControlPlane
import Synchronization

/// The reference server's memory: keys, tokens, devices, assignments and stored telemetry.
/// Everything is kept in memory; a restart forgets it, which is what tests want.
final class ControlPlaneState: Sendable {
    struct Token: Sendable {
        var deviceId: String?
        var expiresAt: ContinuousClock.Instant
        /// Who the API key the session began with belongs to.
        var owner: ControlPlaneKeyOwner?
    }

    struct Device: Sendable {
        var registration: Components.Schemas.DeviceRegistration
        var registeredAt: Date
        var updatedAt: Date
    }

    struct Memory: Sendable {
        var configuration: ControlPlaneServerConfiguration
        var fault = ControlPlaneFault.none
        var accessTokens: [String: Token] = [:]
        var refreshTokens: [String: Token] = [:]
        var devices: [String: Device] = [:]
        var assignmentsVersion = 1
        var events: [String: Components.Schemas.TelemetryEvent] = [:]
        var eventOrder: [String] = []
        var statistics = ControlPlaneStatistics()
        var watchers: [UUID: AsyncStream<String>.Continuation] = [:]
    }

    let memory: Mutex<Memory>

    init(configuration: ControlPlaneServerConfiguration) {
        memory = Mutex(Memory(configuration: configuration))
    }

    enum TokenCheck: Sendable {
        case valid(deviceId: String?)
        case expired
        case invalid
    }

    func check(accessToken: String) -> TokenCheck {
        memory.withLock { memory in
            guard let token = memory.accessTokens[accessToken] else { return .invalid }
            guard token.expiresAt > .now else {
                memory.statistics.expiredTokenRefusals += 1
                return .expired
            }
            return .valid(deviceId: token.deviceId)
        }
    }

    /// New tokens for a device, for an API key or (`apiKey` nil) a session refreshed from
    /// `refreshed`; `nil` when the key is not accepted.
    func issueTokens(apiKey: String?, deviceId: String?, refreshed: Token? = nil) -> Components.Schemas.TokenResponse? {
        memory.withLock { memory in
            let owner: ControlPlaneKeyOwner?
            if let apiKey {
                guard memory.configuration.apiKeys.contains(apiKey) else { return nil }
                memory.statistics.authentications += 1
                owner = memory.configuration.keyOwners[apiKey]
            } else {
                memory.statistics.refreshes += 1
                owner = refreshed?.owner
            }
            let configuration = memory.configuration
            let access = "at-" + Self.randomToken()
            let refresh = "rt-" + Self.randomToken()
            memory.accessTokens[access] = Token(
                deviceId: deviceId,
                expiresAt: .now + configuration.accessTokenLifetime,
                owner: owner
            )
            memory.refreshTokens[refresh] = Token(
                deviceId: deviceId,
                expiresAt: .now + configuration.refreshTokenLifetime,
                owner: owner
            )
            return Components.Schemas.TokenResponse(
                accessToken: access,
                tokenType: .bearer,
                expiresIn: max(1, Int(configuration.accessTokenLifetime.components.seconds)),
                refreshToken: refresh,
                refreshExpiresIn: max(1, Int(configuration.refreshTokenLifetime.components.seconds)),
                userId: owner?.userId,
                organizationId: owner?.organizationId
            )
        }
    }

    /// Consumes a refresh token; the session it was issued for, or `nil` when it is unknown or expired.
    func redeem(refreshToken: String) -> Token? {
        memory.withLock { memory in
            guard let token = memory.refreshTokens.removeValue(forKey: refreshToken), token.expiresAt > .now else {
                return nil
            }
            return token
        }
    }

    static func randomToken() -> String {
        (0..<4).map { _ in String(UInt64.random(in: .min ... .max), radix: 36) }.joined()
    }

    /// Tells every watcher that an operation arrived.
    func announce(_ operationID: String) {
        let watchers = memory.withLock { Array($0.watchers.values) }
        for watcher in watchers { watcher.yield(operationID) }
    }

    func watch() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self)
        let id = UUID()
        continuation.onTermination = { [weak self] _ in
            _ = self?.memory.withLock { $0.watchers.removeValue(forKey: id) }
        }
        memory.withLock { $0.watchers[id] = continuation }
        return stream
    }

    var fault: ControlPlaneFault { memory.withLock { $0.fault } }
}
