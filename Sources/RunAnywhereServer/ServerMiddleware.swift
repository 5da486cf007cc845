import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import RunAnywhere

/// Answers every error as an OpenAI error object: ours as they are, the SDK's mapped to a
/// status, a body that did not decode as a 400 naming the field, Hummingbird's own (unknown
/// route, body too large) with their status, and anything else as a 500 that reveals nothing.
struct OpenAIErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return try Self.openAIError(for: error).response(from: request, context: context)
        }
    }

    static func openAIError(for error: any Error) -> OpenAIError {
        switch error {
        case let error as OpenAIError:
            return error
        case let error as SDKException:
            return OpenAIError(error)
        case let error as DecodingError:
            return OpenAIError(decoding: error)
        case is NIOTooManyBytesError:
            return OpenAIError(.contentTooLarge, "The request body is too large", code: "request_too_large")
        case let error as HTTPError:
            switch error.status {
            case .notFound:
                return OpenAIError(.notFound, "Unknown route", code: "unknown_url")
            case .contentTooLarge:
                return OpenAIError(.contentTooLarge, "The request body is too large", code: "request_too_large")
            case .methodNotAllowed:
                return OpenAIError(.methodNotAllowed, "Method not allowed", code: "method_not_allowed")
            default:
                return OpenAIError(error.status, error.body ?? error.status.reasonPhrase)
            }
        default:
            return OpenAIError(.internalServerError, "The server could not complete the request")
        }
    }
}

/// Requires `Authorization: Bearer <key>` on every route of the group it is added to (the
/// server's `/v1` group), after routing, so no spelling of a path can reach a route without
/// it. The comparison takes the same time wherever the first difference is, so timing does not
/// reveal the key.
struct BearerAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let keyDigest: SHA256Digest

    init(apiKey: String) {
        keyDigest = SHA256.hash(data: Data(apiKey.utf8))
    }

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let header = request.headers[.authorization] ?? ""
        let prefix = "Bearer "
        let presented = header.hasPrefix(prefix) ? String(header.dropFirst(prefix.count)) : ""
        // Digests have one length, so comparing them byte by byte in full is constant time.
        let digest = SHA256.hash(data: Data(presented.utf8))
        let difference = zip(digest, keyDigest).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) }
        guard !presented.isEmpty, difference == 0 else {
            throw OpenAIError(
                .unauthorized,
                header.isEmpty
                    ? "Missing API key: send 'Authorization: Bearer <key>'"
                    : "Incorrect API key provided",
                code: "invalid_api_key"
            )
        }
        return try await next(request, context)
    }
}

/// Logs each request (method, path, status, time; never a header or body, so keys stay out
/// of logs) and counts it in the metrics.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics
    let logger: Logger

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = start.duration(to: .now)
        // The route the router resolved (`/v1/models/{model}`), whatever the path's spelling;
        // any path that matched no route counts as `other`, so labels stay few.
        let route = context.endpointPath ?? "other"
        metrics.recordRequest(route: route, status: Int(response.status.code), duration: elapsed)
        logger.info(
            "\(request.method) \(route) \(response.status.code) \(Int(elapsed.milliseconds)) ms"
        )
        return response
    }
}
