internal import Foundation
import HTTPTypes
internal import OpenAPIRuntime

/// Reads each answer whole, up to a limit, before the generated client decodes it: the client
/// would read any amount (swift-openapi-runtime collects a body up to `Int.max`), so a control
/// plane, or whatever answers at its address, could make the SDK hold all it sends.
struct ResponseSizeLimit: ClientMiddleware {
    /// The largest answer read: the API's answers are tokens, assignments and receipts.
    static let maximumBytes = 16 << 20

    /// An answer past the limit.
    struct TooLarge: Error, CustomStringConvertible {
        var description: String { "the answer is over \(ResponseSizeLimit.maximumBytes >> 20) MiB" }
    }

    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        let (response, answer) = try await next(request, body, baseURL)
        guard let answer else { return (response, nil) }
        if case .known(let length) = answer.length, length > Self.maximumBytes { throw TooLarge() }
        // Read here, not with the runtime's `collect(upTo:)`: its error for too many bytes is
        // private, and a connection that fails midway must stay a transport error.
        var bytes: [UInt8] = []
        for try await chunk in answer {
            guard bytes.count + chunk.count <= Self.maximumBytes else { throw TooLarge() }
            bytes += chunk
        }
        return (response, HTTPBody(bytes))
    }
}
