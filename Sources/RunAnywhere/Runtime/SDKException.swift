/// The one error type callers of the SDK see.
///
/// Every failure that crosses the public API, whether it began as bad input, a missing
/// file, or a native engine's return code, arrives as an `SDKException` with a stable
/// ``code``, a ``category`` for coarse handling, a human ``message``, the ``underlying``
/// error where there was one, and a ``recoverySuggestion`` where the caller can act.
///
/// ```swift
/// do {
///     try await RunAnywhere.loadModel("smollm2-135m-instruct")
/// } catch let error as SDKException where error.code == .modelNotFound {
///     print(error.message, error.recoverySuggestion ?? "")
/// }
/// ```
public struct SDKException: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable, machine-readable reason.
    public let code: Code
    /// A human-readable explanation of what went wrong.
    public let message: String
    /// What the caller can do about it, when something can be done.
    public let recoverySuggestion: String?
    /// A description of the error that caused this one, if any.
    public let underlying: String?

    /// The area of the SDK the error belongs to.
    public var category: Category { code.category }

    /// Creates an exception.
    public init(_ code: Code, _ message: String, recovery: String? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.recoverySuggestion = recovery
        self.underlying = underlying.map { String(describing: $0) }
    }

    /// One line: code, message and, when present, the suggestion.
    public var description: String {
        var text = "\(message) [\(code.rawValue)]"
        if let recoverySuggestion { text += " — \(recoverySuggestion)" }
        return text
    }

    /// Wraps any error as an `SDKException`, keeping an `SDKException` as it is.
    public static func wrap(_ error: any Error, as code: Code, _ message: String) -> SDKException {
        if let sdk = error as? SDKException { return sdk }
        return SDKException(code, "\(message): \(error)", underlying: error)
    }
}

extension SDKException {
    /// Coarse grouping of ``Code``s.
    public enum Category: String, Sendable, Codable, CaseIterable {
        case initialization, validation, model, generation, storage, network, backend, `internal`
    }

    /// Stable reasons for failure. The raw value is what the CLI and JSON output print.
    public enum Code: String, Sendable, Codable, CaseIterable {
        // initialization
        case notInitialized = "not_initialized"
        case alreadyInitialized = "already_initialized"
        case invalidAPIKey = "invalid_api_key"
        case invalidBaseURL = "invalid_base_url"
        case invalidConfiguration = "invalid_configuration"
        // validation
        case invalidInput = "invalid_input"
        case emptyPrompt = "empty_prompt"
        case invalidModelId = "invalid_model_id"
        case invalidAudio = "invalid_audio"
        case emptyText = "empty_text"
        // model
        case modelNotFound = "model_not_found"
        case modelAlreadyExists = "model_already_exists"
        case modelFileNotFound = "model_file_not_found"
        case invalidModelFormat = "invalid_model_format"
        case modelCorrupted = "model_corrupted"
        case modelLoadFailed = "model_load_failed"
        case modelLoadInProgress = "model_load_in_progress"
        case modelNotLoaded = "model_not_loaded"
        case noBackendForModel = "no_backend_for_model"
        case voiceNotFound = "voice_not_found"
        case modelNotDownloadable = "model_not_downloadable"
        // generation
        case contextLengthExceeded = "context_length_exceeded"
        case generationFailed = "generation_failed"
        case generationCancelled = "generation_cancelled"
        // storage
        case registryCorrupted = "registry_corrupted"
        case fileSystemError = "file_system_error"
        case insufficientStorage = "insufficient_storage"
        case checksumMismatch = "checksum_mismatch"
        case invalidArchive = "invalid_archive"
        case unsafeArchive = "unsafe_archive"
        // network
        case networkUnavailable = "network_unavailable"
        case downloadFailed = "download_failed"
        case downloadCancelled = "download_cancelled"
        // backend
        case backendError = "backend_error"
        case audioDeviceUnavailable = "audio_device_unavailable"
        // internal
        case internalError = "internal_error"

        /// The category this code belongs to.
        public var category: Category {
            switch self {
            case .notInitialized, .alreadyInitialized, .invalidAPIKey, .invalidBaseURL, .invalidConfiguration:
                .initialization
            case .invalidInput, .emptyPrompt, .invalidModelId, .invalidAudio, .emptyText:
                .validation
            case .modelNotFound, .modelAlreadyExists, .modelFileNotFound, .invalidModelFormat, .modelCorrupted,
                 .modelLoadFailed, .modelLoadInProgress, .modelNotLoaded, .noBackendForModel, .voiceNotFound,
                 .modelNotDownloadable:
                .model
            case .contextLengthExceeded, .generationFailed, .generationCancelled:
                .generation
            case .registryCorrupted, .fileSystemError, .insufficientStorage, .checksumMismatch, .invalidArchive,
                 .unsafeArchive:
                .storage
            case .networkUnavailable, .downloadFailed, .downloadCancelled:
                .network
            case .backendError, .audioDeviceUnavailable:
                .backend
            case .internalError:
                .internal
            }
        }
    }
}
