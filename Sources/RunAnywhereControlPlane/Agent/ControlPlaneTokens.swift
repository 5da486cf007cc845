@_spi(Backend) internal import RunAnywhere

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An access token and the refresh token that renews it, as the control plane issues them.
@_spi(Backend) public struct ControlPlaneTokens: Sendable, Codable, Equatable {
    /// Sent as `Authorization: Bearer` with every call.
    public var accessToken: String
    /// When the access token stops working.
    public var accessExpiresAt: Date
    /// Trades for new tokens.
    public var refreshToken: String
    /// When the refresh token stops working.
    public var refreshExpiresAt: Date
    /// The user the API key belongs to, when the control plane says.
    public var userId: String?
    /// The organization the API key belongs to, when the control plane says.
    public var organizationId: String?

    /// Creates tokens.
    public init(
        accessToken: String,
        accessExpiresAt: Date,
        refreshToken: String,
        refreshExpiresAt: Date,
        userId: String? = nil,
        organizationId: String? = nil
    ) {
        self.accessToken = accessToken
        self.accessExpiresAt = accessExpiresAt
        self.refreshToken = refreshToken
        self.refreshExpiresAt = refreshExpiresAt
        self.userId = userId
        self.organizationId = organizationId
    }
}
