internal import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Collects each request's body, up to a limit, before the generated handlers see it: they
/// collect bodies with none (swift-openapi-runtime reads up to `Int.max`), so one client could
/// make the server hold any amount. A body past the limit is answered 413 and never read whole.
struct ControlPlaneBodyLimit<Context: RequestContext>: RouterMiddleware {
    /// The largest body accepted: a telemetry batch is some hundreds of kilobytes at most.
    static var maximumBytes: Int { 4 << 20 }

    func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var request = request
        if let length = request.headers[.contentLength].flatMap(Int.init), length > Self.maximumBytes {
            return Self.tooLarge
        }
        do {
            _ = try await request.collectBody(upTo: Self.maximumBytes)
        } catch is NIOTooManyBytesError {
            return Self.tooLarge
        }
        return try await next(request, context)
    }

    /// 413 with the API's error object.
    private static var tooLarge: Response {
        let payload = ControlPlaneHandler.error(
            "request_too_large",
            "The request body is over \(maximumBytes >> 20) MiB"
        )
        let data = (try? JSONEncoder().encode(payload)) ?? Data()
        return Response(
            status: .contentTooLarge,
            headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}
