import Foundation
import HTTPTypes
import Hummingbird
import RunAnywhere

/// An error answered as OpenAI answers errors: an HTTP status and
/// `{"error": {"message", "type", "param", "code"}}`.
///
/// Messages say what was wrong with the request; they never carry stack traces or paths.
public struct OpenAIError: Error, Sendable, Equatable, HTTPResponseError {
    /// The HTTP status.
    public var status: HTTPResponse.Status
    /// What went wrong, for people.
    public var message: String
    /// OpenAI's error type: `invalid_request_error` (also for a bad key or an unknown model),
    /// `permission_error`, `rate_limit_error` or `server_error`.
    public var type: String
    /// The request field at fault, if one is.
    public var param: String?
    /// A machine-readable code, e.g. `model_not_found`.
    public var code: String?
    /// Seconds to wait before retrying (sent as `Retry-After`), for 429 and 503.
    public var retryAfter: Int?

    /// Creates an error.
    public init(
        _ status: HTTPResponse.Status,
        _ message: String,
        type: String? = nil,
        param: String? = nil,
        code: String? = nil,
        retryAfter: Int? = nil
    ) {
        self.status = status
        self.message = message
        self.type = type ?? Self.defaultType(for: status)
        self.param = param
        self.code = code
        self.retryAfter = retryAfter
    }

    /// A 400 for a request that is malformed or asks for something unsupported.
    static func invalid(_ message: String, param: String? = nil, code: String? = nil) -> OpenAIError {
        OpenAIError(.badRequest, message, param: param, code: code)
    }

    private static func defaultType(for status: HTTPResponse.Status) -> String {
        // As OpenAI answers: authentication and unknown models are request errors too.
        switch status.code {
        case 403: "permission_error"
        case 429: "rate_limit_error"
        case 500...: "server_error"
        default: "invalid_request_error"
        }
    }

    /// The JSON body.
    var body: Data {
        let object: [String: Any] = [
            "error": [
                "message": message,
                "type": type,
                "param": param ?? NSNull(),
                "code": code ?? NSNull(),
            ] as [String: Any]
        ]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    /// The response Hummingbird sends for this error.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}

extension OpenAIError {
    /// The OpenAI error for an SDK error: bad input is a 400, a missing model a 404, a busy
    /// engine a 503, anything else a 500 whose message is the SDK's (which names no path).
    init(_ error: SDKException, param: String? = nil) {
        let status: HTTPResponse.Status
        switch error.code {
        case .invalidInput, .emptyPrompt, .invalidModelId, .invalidAudio, .emptyText, .invalidGrammar, .invalidSchema,
            .unsupportedSchema, .invalidTool, .toolNotFound, .contextLengthExceeded, .invalidStructuredOutput,
            .voiceNotFound, .invalidDocument, .invalidImage:
            status = .badRequest
        case .modelNotFound:
            status = .notFound
        case .modelLoadInProgress, .indexBusy:
            status = .serviceUnavailable
        default:
            status = .internalServerError
        }
        let message =
            status == .internalServerError
            ? "The server could not complete the request (\(error.code.rawValue))"
            : error.message
        self.init(
            status,
            message,
            param: param,
            code: error.code.rawValue,
            retryAfter: status == .serviceUnavailable ? 1 : nil
        )
    }

    /// The OpenAI error for a request body that did not decode: the field at fault and why.
    init(decoding error: DecodingError) {
        func path(_ codingPath: [any CodingKey], _ key: (any CodingKey)? = nil) -> String? {
            let keys = codingPath + (key.map { [$0] } ?? [])
            guard !keys.isEmpty else { return nil }
            return keys.reduce("") { text, key in
                if let index = key.intValue { return text + "[\(index)]" }
                return text.isEmpty ? key.stringValue : text + "." + key.stringValue
            }
        }
        switch error {
        case .typeMismatch(let type, let context):
            let param = path(context.codingPath)
            self = .invalid("Invalid type for '\(param ?? "body")': expected \(Self.name(of: type))", param: param)
        case .valueNotFound(let type, let context):
            let param = path(context.codingPath)
            self = .invalid("'\(param ?? "body")' must be \(Self.name(of: type)), not null", param: param)
        case .keyNotFound(let key, let context):
            let param = path(context.codingPath, key)
            self = .invalid("Missing required parameter: '\(param ?? key.stringValue)'", param: param)
        case .dataCorrupted(let context):
            let param = path(context.codingPath)
            if context.codingPath.isEmpty {
                self = .invalid("The request body is not valid JSON", code: "invalid_json")
            } else {
                self = .invalid("Invalid value for '\(param ?? "body")': \(context.debugDescription)", param: param)
            }
        @unknown default:
            self = .invalid("The request body could not be read")
        }
    }

    private static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "a boolean"
        case is Int.Type, is Int64.Type, is UInt32.Type: "an integer"
        case is Double.Type, is Float.Type: "a number"
        case is [Any].Type: "an array"
        default: "a value of another type"
        }
    }
}
