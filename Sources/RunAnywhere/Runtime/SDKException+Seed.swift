import Logging

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The original SDK's names for errors, so code written against it compiles and behaves the
// same: `LocalizedError`, its factories, `isExpected` and its error codes, each one ending in
// the codes and initializer above.

/// The original SDK's name for ``SDKException/Code``.
public typealias ErrorCode = SDKException.Code
/// The original SDK's name for ``SDKException/Category``.
public typealias ErrorCategory = SDKException.Category

// The original SDK's categories that have a nearest one here, for `make(code:message:category:…)`
// and for comparing an exception's category: each names the broader category of ours, so it
// matches more codes than the original's did. A `switch` needs `default:`.
extension SDKException.Category {
    /// The original SDK's `.component` (a component's engine): ``backend`` here.
    public static var component: Self { .backend }
    /// The original SDK's `.io` (files and streams): ``storage`` here.
    public static var io: Self { .storage }
    /// The original SDK's `.configuration`: ``initialization`` here.
    public static var configuration: Self { .initialization }
}

extension SDKException: LocalizedError {
    /// Creates an exception with the original SDK's labels; `category` is accepted for source
    /// compatibility, the code's own category is kept.
    public init(code: Code, message: String, category: Category? = nil, underlying: (any Error)? = nil) {
        self.init(code, message, underlying: underlying)
    }

    /// The error's code, category and message under the original SDK's telemetry keys.
    public var telemetryProperties: [String: String] {
        ["error_code": code.rawValue, "error_category": category.rawValue, "error_message": message]
    }

    /// The message, as `LocalizedError` and the original SDK give it.
    public var errorDescription: String? { message }

    /// The call stack where the exception was made, one frame per line, innermost first, as
    /// the original SDK keeps it (a debugging aid, never sent anywhere). The return addresses
    /// are captured when the exception is made and named only here.
    public var stackTrace: [String] { callStack.symbols }

    /// The category and code, as the original SDK gives them: `[model] model_not_found`.
    public var failureReason: String? { "[\(category.rawValue)] \(code.rawValue)" }

    /// Whether the error is an expected outcome rather than a fault (a cancellation), as the
    /// original SDK's `ErrorCode.isExpected` says; such errors are not logged by ``make(code:message:category:underlying:shouldLog:file:line:function:)``.
    public var isExpected: Bool { code.isExpected }

    /// Logs the error: at info level when it is expected, at error level otherwise, with
    /// where it was logged from (the original SDK's `log(file:line:function:)`).
    public func log(file: String = #fileID, line: UInt = #line, function: String = #function) {
        let level: LogLevel = isExpected ? .info : .error
        let metadata: Logger.Metadata = [
            "error_code": .string(code.rawValue), "error_category": .string(category.rawValue),
        ]
        SDKLogger.shared.log(level, message, metadata: metadata, file: file, function: function, line: line)
    }

    /// Creates an exception and logs it, with the caller's location, unless `shouldLog` is
    /// false or the code is expected (the original SDK's generic factory). `category` is
    /// accepted for source compatibility: here every code has its own category. The named
    /// factories below log where they are called from too.
    public static func make(
        code: Code,
        message: String,
        category: Category? = nil,
        underlying: (any Error)? = nil,
        shouldLog: Bool = true,
        file: String = #fileID,
        line: UInt = #line,
        function: String = #function
    ) -> SDKException {
        let exception = SDKException(code, message, underlying: underlying)
        if shouldLog && !code.isExpected { exception.log(file: file, line: line, function: function) }
        return exception
    }

    /// No model of that id is registered (the original SDK's factory).
    public static func modelNotFound(
        _ message: String,
        file: String = #fileID,
        line: UInt = #line,
        function: String = #function
    ) -> SDKException {
        make(code: .modelNotFound, message: message, file: file, line: line, function: function)
    }

    /// The SDK is not initialized (the original SDK's factory).
    public static func notInitialized(
        _ message: String = "The SDK is not initialized",
        file: String = #fileID,
        line: UInt = #line,
        function: String = #function
    ) -> SDKException {
        make(code: .notInitialized, message: message, file: file, line: line, function: function)
    }

    /// A configuration value is out of range (the original SDK's factory).
    public static func invalidConfiguration(
        _ message: String,
        file: String = #fileID,
        line: UInt = #line,
        function: String = #function
    ) -> SDKException {
        make(code: .invalidConfiguration, message: message, file: file, line: line, function: function)
    }

    /// An argument is out of range or malformed (the original SDK's factory; ``Code/invalidInput``).
    public static func validationFailed(
        _ message: String,
        file: String = #fileID,
        line: UInt = #line,
        function: String = #function
    ) -> SDKException {
        make(code: .validationFailed, message: message, file: file, line: line, function: function)
    }

    /// The operation was cancelled (the original SDK's factory); never logged.
    public static func cancelled(_ message: String = "Cancelled") -> SDKException {
        make(code: .cancelled, message: message, shouldLog: false)
    }

    /// The operation is not available in this build (the original SDK's factory).
    public static func notImplemented(
        _ message: String,
        file: String = #fileID,
        line: UInt = #line,
        function: String = #function
    ) -> SDKException {
        make(code: .notImplemented, message: message, file: file, line: line, function: function)
    }

    /// The operation did not finish in time (the original SDK's factory).
    public static func timeout(
        _ message: String,
        file: String = #fileID,
        line: UInt = #line,
        function: String = #function
    ) -> SDKException {
        make(code: .timeout, message: message, file: file, line: line, function: function)
    }

    /// The network failed (the original SDK's factory).
    public static func networkError(
        _ message: String,
        file: String = #fileID,
        line: UInt = #line,
        function: String = #function
    ) -> SDKException {
        make(code: .networkError, message: message, file: file, line: line, function: function)
    }

    /// Any error as an `SDKException` (the original SDK's `from(_:category:)`): an
    /// `SDKException` as it is, anything else as ``Code/unknown`` with its description.
    public static func from(_ error: any Error, category: Category? = nil) -> SDKException {
        wrap(error, as: .unknown, "Unexpected error")
    }
}

extension SDKException.Code {
    /// Whether the code is an expected outcome rather than a fault: the cancellations.
    public var isExpected: Bool {
        switch self {
        case .generationCancelled, .transcriptionCancelled, .downloadCancelled: true
        default: false
        }
    }

    /// The original SDK's name for ``invalidAPIKey``.
    public static let invalidApiKey = invalidAPIKey
    /// The original SDK's name for ``invalidInput``.
    public static let validationFailed = invalidInput
    /// The original SDK's name for a cancellation: ``generationCancelled``.
    public static let cancelled = generationCancelled
    /// The original SDK's name for a cancelled stream: ``generationCancelled``.
    public static let streamCancelled = generationCancelled
    /// The original SDK's name for a timeout: ``remoteTimeout``.
    public static let timeout = remoteTimeout
    /// The original SDK's name for a network failure: ``networkUnavailable``.
    public static let networkError = networkUnavailable
    /// The original SDK's name for a denied microphone: ``audioDeviceUnavailable`` (Linux has
    /// no microphone permission; a device that cannot be opened is the same failure).
    public static let microphonePermissionDenied = audioDeviceUnavailable
    /// The original SDK's name for an unclassified error: ``internalError``.
    public static let unknown = internalError
    /// The original SDK's "not implemented": ``noBackendForModel``, what this SDK says when no
    /// engine in the build can do what was asked.
    public static let notImplemented = noBackendForModel
    /// The original SDK's "service not available": ``noBackendForModel``, no engine in the
    /// build serves the request.
    public static let serviceNotAvailable = noBackendForModel
    /// The original SDK's "not supported": ``noBackendForModel``, as for ``notImplemented``.
    public static let notSupported = noBackendForModel
    /// The original SDK's name for ``contextLengthExceeded``.
    public static let contextTooLong = contextLengthExceeded
}
