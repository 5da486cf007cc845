internal import Foundation
import HTTPTypes
internal import OpenAPIRuntime

/// Answers a request whose body or parameters do not decode as the API's 400 `invalid_request`,
/// naming the field, where the runtime would answer an empty 500: the client sent something
/// wrong, and the server did not fail.
struct ControlPlaneMalformedRequests: ServerMiddleware {
    func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        metadata: ServerRequestMetadata,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, ServerRequestMetadata) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        do {
            return try await next(request, body, metadata)
        } catch let error as ServerError where error.operationInput == nil && error.underlyingError is DecodingError {
            let field = (error.underlyingError as? DecodingError).flatMap(Self.field)
            let payload = ControlPlaneHandler.error(
                "invalid_request",
                field.map { "The request's \($0) is missing or has the wrong type" }
                    ?? "The request body is not the JSON the API takes",
                param: field
            )
            var response = HTTPResponse(status: .badRequest)
            response.headerFields[.contentType] = "application/json"
            return (response, HTTPBody((try? JSONEncoder().encode(payload)) ?? Data()))
        }
    }

    /// The dotted path of the member a decoding error is about, if it names one.
    private static func field(_ error: DecodingError) -> String? {
        let (path, key): ([any CodingKey], (any CodingKey)?) =
            switch error {
            case .keyNotFound(let key, let context): (context.codingPath, key)
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
                (context.codingPath, nil)
            @unknown default: ([], nil)
            }
        let names = (path + (key.map { [$0] } ?? [])).map(\.stringValue).filter { !$0.isEmpty }
        return names.isEmpty ? nil : names.joined(separator: ".")
    }
}
