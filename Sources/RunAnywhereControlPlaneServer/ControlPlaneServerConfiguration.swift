internal import Foundation
internal import RunAnywhere
public import RunAnywhereControlPlane

/// How a ``ControlPlaneServer`` runs: where it listens, which API keys it takes, how long
/// its tokens last and which models it assigns.
public struct ControlPlaneServerConfiguration: Sendable {
    /// The address to listen on; loopback by default.
    public var host: String
    /// The port; 0 picks a free one (see ``ControlPlaneServer/port``).
    public var port: Int
    /// The API keys `authenticate` accepts.
    public var apiKeys: Set<String>
    /// How long an access token lasts.
    public var accessTokenLifetime: Duration
    /// How long a refresh token lasts.
    public var refreshTokenLifetime: Duration
    /// The models every device is assigned.
    public var assignments: [ModelAssignment]
    /// Who each API key belongs to, told to the device with its tokens; a key without an
    /// entry belongs to no one the server names.
    public var keyOwners: [String: ControlPlaneKeyOwner]

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - host: The address to listen on.
    ///   - port: The port, or 0 for any free one.
    ///   - apiKeys: The API keys to accept; at least one.
    ///   - accessTokenLifetime: How long an access token lasts (15 minutes by default).
    ///   - refreshTokenLifetime: How long a refresh token lasts (30 days by default).
    ///   - assignments: The models every device is assigned.
    ///   - keyOwners: Who each API key belongs to.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8090,
        apiKeys: Set<String>,
        accessTokenLifetime: Duration = .seconds(900),
        refreshTokenLifetime: Duration = .seconds(30 * 86_400),
        assignments: [ModelAssignment] = [],
        keyOwners: [String: ControlPlaneKeyOwner] = [:]
    ) {
        self.host = host
        self.port = port
        self.apiKeys = apiKeys
        self.accessTokenLifetime = accessTokenLifetime
        self.refreshTokenLifetime = refreshTokenLifetime
        self.assignments = assignments
        self.keyOwners = keyOwners
    }
}

/// The user and organization an API key belongs to.
public struct ControlPlaneKeyOwner: Sendable, Equatable {
    /// The user's id.
    public var userId: String?
    /// The organization's id.
    public var organizationId: String?

    /// Creates an owner.
    public init(userId: String? = nil, organizationId: String? = nil) {
        self.userId = userId
        self.organizationId = organizationId
    }
}
