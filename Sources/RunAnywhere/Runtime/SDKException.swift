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
public struct SDKException: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable, machine-readable reason.
    public let code: Code
    /// A human-readable explanation of what went wrong.
    public let message: String
    /// What the caller can do about it, when something can be done.
    public let recoverySuggestion: String?
    /// The error that caused this one, if any (the original SDK's `underlying`).
    public var underlying: (any Error)? { context.underlying }
    /// A description of ``underlying``, if there is one.
    public var underlyingDescription: String? { context.underlyingDescription }
    /// Where the exception was made (``stackTrace`` names the frames).
    var callStack: CallStack { context.callStack }
    /// The cause and the call stack, behind one reference, so the value stays small: with
    /// the call stack stored inline (64 bytes), Swift 6.3.1 debug builds crashed copying the
    /// error out of `#expect(throws: SDKException.self) { try value.decode(as: T.self) }`.
    private let context: Context

    /// An exception's cause and call stack; equal when the causes' descriptions are (an
    /// `any Error` has no equality of its own).
    private final class Context: Sendable, Hashable {
        let underlying: (any Error)?
        let underlyingDescription: String?
        let callStack: CallStack

        init(underlying: (any Error)?) {
            self.underlying = underlying
            self.underlyingDescription = underlying.map { String(describing: $0) }
            self.callStack = CallStack.capture()
        }

        static func == (lhs: Context, rhs: Context) -> Bool {
            lhs.underlyingDescription == rhs.underlyingDescription
        }

        func hash(into hasher: inout Hasher) { hasher.combine(underlyingDescription) }
    }

    /// The area of the SDK the error belongs to.
    public var category: Category { code.category }

    /// Creates an exception.
    public init(_ code: Code, _ message: String, recovery: String? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.message = message
        self.recoverySuggestion = recovery
        self.context = Context(underlying: underlying)
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
        /// Setting up the SDK: parameters and configuration.
        case initialization
        /// Input the caller passed.
        case validation
        /// Finding, loading or using a model or voice.
        case model
        /// Text generation.
        case generation
        /// Files on disk, the registry and archives.
        case storage
        /// Downloads and remote servers.
        case network
        /// Credentials: an API key, or a token a server refused or that ran out.
        case auth
        /// A native engine or an audio device.
        case backend
        /// A fault inside the SDK itself.
        case `internal`
    }

    /// Stable reasons for failure. The raw value is what the CLI and JSON output print.
    public enum Code: String, Sendable, Codable, CaseIterable {
        // initialization
        /// The SDK is not initialized, or this instance has been shut down.
        case notInitialized = "not_initialized"
        /// The SDK is already initialized.
        case alreadyInitialized = "already_initialized"
        /// The API key is missing or too short for the environment (category ``Category/auth``).
        case invalidAPIKey = "invalid_api_key"
        /// The base URL is missing, malformed, or not `https` where the environment requires it.
        case invalidBaseURL = "invalid_base_url"
        /// A configuration value is out of range.
        case invalidConfiguration = "invalid_configuration"
        // validation
        /// An argument or option is out of range or malformed; the message names it.
        case invalidInput = "invalid_input"
        /// The prompt, or every message of the conversation, is empty.
        case emptyPrompt = "empty_prompt"
        /// A model id breaks the rules of ``ModelInfo/id``.
        case invalidModelId = "invalid_model_id"
        /// The audio is empty, too short, has non-finite samples or an unsupported rate, or
        /// is not a readable WAV file.
        case invalidAudio = "invalid_audio"
        /// The image is not a PNG or JPEG file (or raw RGB pixels) that can be read, is cut
        /// short or damaged, or is larger than the limit.
        case invalidImage = "invalid_image"
        /// The text to speak is empty or has nothing to pronounce.
        case emptyText = "empty_text"
        /// SSML that is malformed or outside the subset spoken (``SSMLDocument``); the
        /// message names the line and column.
        case invalidSSML = "invalid_ssml"
        /// A generation grammar that is empty or does not parse; nothing was generated.
        case invalidGrammar = "invalid_grammar"
        /// A JSON Schema that is not JSON, not a schema, or contradicts itself (a `$ref` to
        /// nowhere, an enum with no values, a recursion without a base case).
        case invalidSchema = "invalid_schema"
        /// A JSON Schema keyword the SDK cannot enforce; the message names it and its JSON pointer.
        case unsupportedSchema = "unsupported_schema"
        /// A tool definition that cannot be used: a duplicate or malformed name, or parameters
        /// that are not an object schema.
        case invalidTool = "invalid_tool"
        // model
        /// No model with that id is registered.
        case modelNotFound = "model_not_found"
        /// A model with that id is already registered.
        case modelAlreadyExists = "model_already_exists"
        /// The model has no local files, or they are missing or unreadable.
        case modelFileNotFound = "model_file_not_found"
        /// The file is not in a format the model's engine can load.
        case invalidModelFormat = "invalid_model_format"
        /// The model file is damaged or truncated.
        case modelCorrupted = "model_corrupted"
        /// The engine could not load the model.
        case modelLoadFailed = "model_load_failed"
        /// Another model of the same capability is loading.
        case modelLoadInProgress = "model_load_in_progress"
        /// The capability has no model loaded.
        case modelNotLoaded = "model_not_loaded"
        /// No registered backend module can run the model.
        case noBackendForModel = "no_backend_for_model"
        /// No available voice has the requested id.
        case voiceNotFound = "voice_not_found"
        /// The model has no download source.
        case modelNotDownloadable = "model_not_downloadable"
        /// A LoRA adapter that does not fit the language model (another architecture, tensors
        /// the model lacks or of other shapes, none at all, or other base models named); the
        /// model is left as it was.
        case incompatibleLoRAAdapter = "incompatible_lora_adapter"
        /// The model with the context asked for needs more memory than the device has free
        /// (``RunAnywhereSDK/checkCompatibility(modelId:contextLength:slots:)`` says how much): it was
        /// refused before the engine allocated anything.
        case insufficientMemory = "insufficient_memory"
        // generation
        /// The prompt does not fit the loaded model's context.
        case contextLengthExceeded = "context_length_exceeded"
        /// The engine failed while generating.
        case generationFailed = "generation_failed"
        /// A generation was cancelled. Cancelled generations normally return a result with
        /// finish reason `.cancelled` instead of throwing.
        case generationCancelled = "generation_cancelled"
        /// A transcription was cancelled by its caller before it finished; the engine
        /// stopped at its next step.
        case transcriptionCancelled = "transcription_cancelled"
        /// The model's output is not a valid instance of the requested schema or type (it
        /// ended early, or ran out of tokens); the message says why.
        case invalidStructuredOutput = "invalid_structured_output"
        /// A tool call named a tool that is not registered.
        case toolNotFound = "tool_not_found"
        /// A tool's executor failed or did not answer in time.
        case toolExecutionFailed = "tool_execution_failed"
        // storage
        /// The registry file cannot be parsed; it is left untouched.
        case registryCorrupted = "registry_corrupted"
        /// A file or folder could not be read, written, moved or deleted.
        case fileSystemError = "file_system_error"
        /// Not enough free space, or the configured storage limit would be exceeded.
        case insufficientStorage = "insufficient_storage"
        /// A downloaded file's SHA-256 differs from the registered one.
        case checksumMismatch = "checksum_mismatch"
        /// An archive cannot be read, or lacks a file it must contain.
        case invalidArchive = "invalid_archive"
        /// An archive entry would land outside the model's folder or is not a plain file,
        /// folder or safe link; nothing was extracted.
        case unsafeArchive = "unsafe_archive"
        /// A secure-store entry failed its integrity check: it was changed or damaged on disk.
        case secretTampered = "secret_tampered"
        /// A secure-store entry was sealed under another key than the one the store has now.
        case secretKeyMismatch = "secret_key_mismatch"
        /// A file or folder the SDK must trust (a secure-store entry, a plugin, a helper program)
        /// can be written, or a secret read, by other users; it was not used.
        case insecurePermissions = "insecure_permissions"
        // network
        /// The network cannot be reached.
        case networkUnavailable = "network_unavailable"
        /// A download failed: an HTTP error, or a network failure that outlasted every retry.
        case downloadFailed = "download_failed"
        /// A download was cancelled.
        case downloadCancelled = "download_cancelled"
        /// An `https` transfer was redirected to plain `http`; the redirect was not followed.
        case insecureRedirect = "insecure_redirect"
        /// A remote server could not be reached: connection refused or reset, no route, a
        /// stream cut off before its end.
        case remoteUnreachable = "remote_unreachable"
        /// A remote server did not answer within the endpoint's timeout.
        case remoteTimeout = "remote_timeout"
        /// A remote server refused the credentials (HTTP 401 or 403; category ``Category/auth``).
        case remoteUnauthorized = "remote_unauthorized"
        /// A remote server does not know the model or endpoint (HTTP 404).
        case remoteNotFound = "remote_not_found"
        /// A remote server asked to slow down (HTTP 429) and retries did not get through.
        case remoteRateLimited = "remote_rate_limited"
        /// A remote server rejected the request as invalid (HTTP 400 or 422).
        case remoteRejected = "remote_rejected"
        /// A remote server failed (HTTP 5xx) and retries did not get through.
        case remoteServerError = "remote_server_error"
        /// A remote server answered with something that is not the API's response: HTML,
        /// malformed JSON, a truncated stream, an oversized line.
        case remoteBadResponse = "remote_bad_response"
        /// The control plane's access token has expired; the SDK refreshes it once and retries
        /// (category ``Category/auth``).
        case tokenExpired = "token_expired"
        // backend
        /// A native engine failed, or its library could not be opened.
        case backendError = "backend_error"
        /// An audio device cannot be opened or failed while in use.
        case audioDeviceUnavailable = "audio_device_unavailable"
        /// The accelerator asked for (a GPU) cannot be used: the device has none, or the
        /// engines were built without support for it.
        case acceleratorUnavailable = "accelerator_unavailable"
        /// A file given as a plugin is not one: not a shared library for this machine, without
        /// the plugin entry point, or describing itself wrongly.
        case invalidPlugin = "invalid_plugin"
        /// A plugin was built for another plugin ABI version.
        case pluginIncompatible = "plugin_incompatible"
        /// A plugin's name is already registered (loaded before, or a module linked into the app).
        case pluginAlreadyLoaded = "plugin_already_loaded"
        /// No plugin of that name is loaded.
        case pluginNotFound = "plugin_not_found"
        /// A plugin still runs a loaded model, so it cannot be unloaded.
        case pluginInUse = "plugin_in_use"
        // RAG
        /// The document to ingest is empty, binary or not UTF-8 text.
        case invalidDocument = "invalid_document"
        /// Vectors of another embedding model (another dimension) cannot go into this index.
        case embeddingMismatch = "embedding_mismatch"
        /// No RAG index of that name.
        case indexNotFound = "index_not_found"
        /// A RAG index of that name already exists.
        case indexAlreadyExists = "index_already_exists"
        /// The index's database is damaged or not a RAG index; it was left untouched.
        case indexCorrupted = "index_corrupted"
        /// Another process is writing to the index and did not finish in time.
        case indexBusy = "index_busy"
        // internal
        /// An unexpected fault inside the SDK.
        case internalError = "internal_error"

        /// The category this code belongs to.
        public var category: Category {
            switch self {
            case .notInitialized, .alreadyInitialized, .invalidBaseURL, .invalidConfiguration:
                .initialization
            case .invalidAPIKey, .remoteUnauthorized, .tokenExpired:
                .auth
            case .invalidInput, .emptyPrompt, .invalidModelId, .invalidAudio, .invalidImage, .emptyText, .invalidSSML,
                .invalidGrammar,
                .invalidSchema,
                .unsupportedSchema, .invalidTool, .invalidDocument, .embeddingMismatch:
                .validation
            case .modelNotFound, .modelAlreadyExists, .modelFileNotFound, .invalidModelFormat, .modelCorrupted,
                .modelLoadFailed, .modelLoadInProgress, .modelNotLoaded, .noBackendForModel, .voiceNotFound,
                .modelNotDownloadable, .incompatibleLoRAAdapter, .insufficientMemory:
                .model
            case .contextLengthExceeded, .generationFailed, .generationCancelled, .transcriptionCancelled,
                .invalidStructuredOutput, .toolNotFound, .toolExecutionFailed:
                .generation
            case .registryCorrupted, .fileSystemError, .insufficientStorage, .checksumMismatch, .invalidArchive,
                .unsafeArchive, .indexNotFound, .indexAlreadyExists, .indexCorrupted, .indexBusy, .secretTampered,
                .secretKeyMismatch, .insecurePermissions:
                .storage
            case .networkUnavailable, .downloadFailed, .downloadCancelled, .insecureRedirect, .remoteUnreachable,
                .remoteTimeout,
                .remoteNotFound, .remoteRateLimited, .remoteRejected, .remoteServerError,
                .remoteBadResponse:
                .network
            case .backendError, .audioDeviceUnavailable, .acceleratorUnavailable, .invalidPlugin, .pluginIncompatible,
                .pluginAlreadyLoaded, .pluginNotFound, .pluginInUse:
                .backend
            case .internalError:
                .internal
            }
        }
    }
}
