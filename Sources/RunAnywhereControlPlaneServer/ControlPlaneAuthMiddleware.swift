internal import Foundation
import HTTPTypes
internal import OpenAPIRuntime
internal import RunAnywhereControlPlane

/// The API's bearer security and the server's faults, before any operation runs: every
/// operation but the token ones needs a live access token (401 `invalid_token` or
/// `token_expired` otherwise). It also announces each arriving operation to watchers.
struct ControlPlaneAuthMiddleware: ServerMiddleware {
    let state: ControlPlaneState

    static let open: Set<String> = ["authenticate", "refreshToken"]

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        state.announce(operationID)
        switch state.fault {
        case .unavailable:
            try await Self.drain(body)
            return Self.error(
                .serviceUnavailable,
                "unavailable",
                "The control plane is down for a while",
                retryAfter: 1
            )
        case .hang:
            while state.fault == .hang { try await Task.sleep(for: .milliseconds(50)) }
        default:
            break
        }
        if !Self.open.contains(operationID) {
            let header = request.headerFields[.authorization] ?? ""
            let check =
                header.hasPrefix("Bearer ")
                ? state.check(accessToken: String(header.dropFirst("Bearer ".count))) : .invalid
            switch check {
            case .valid:
                break
            case .expired:
                try await Self.drain(body)
                return Self.error(.unauthorized, "token_expired", "The access token has expired")
            case .invalid:
                try await Self.drain(body)
                return Self.error(.unauthorized, "invalid_token", "A valid access token is required")
            }
        }
        return try await next(request, body, metadata)
    }

    /// Reads a refused request's body to its end, so the client is not cut off mid-upload
    /// (it would see a broken connection instead of the answer).
    private static func drain(_ body: HTTPBody?) async throws {
        guard let body else { return }
        for try await _ in body {}
    }

    private static func error(
        _ status: HTTPResponse.Status,
        _ code: String,
        _ message: String,
        retryAfter: Int? = nil
    ) -> (HTTPResponse, HTTPBody?) {
        var response = HTTPResponse(status: status)
        response.headerFields[.contentType] = "application/json"
        if let retryAfter { response.headerFields[.retryAfter] = String(retryAfter) }
        let payload = ControlPlaneHandler.error(code, message)
        let data = (try? JSONEncoder().encode(payload)) ?? Data()
        return (response, HTTPBody(data))
    }
}
