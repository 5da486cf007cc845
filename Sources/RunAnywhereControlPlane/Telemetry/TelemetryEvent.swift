@_spi(Backend) internal import RunAnywhere

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// One telemetry event: what happened, to which model, how fast. Never prompt, transcript or
/// document text; error messages have keys, tokens and paths redacted.
///
/// The SDK makes these from its own `SDKEvent`s and keeps them in its on-disk queue until
/// the control plane has them. ``id`` is made when the event is queued, so an upload retried
/// after a lost answer is counted once by the server.
public struct TelemetryEvent: Sendable, Codable, Equatable, Identifiable {
    /// What kind of thing happened.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// A generation finished.
        case generationCompleted = "generation_completed"
        /// A generation failed.
        case generationFailed = "generation_failed"
        /// A model was loaded.
        case modelLoaded = "model_loaded"
        /// A model failed to load.
        case modelLoadFailed = "model_load_failed"
        /// A model's files were downloaded.
        case modelDownloaded = "model_downloaded"
        /// Another failure (a download, a transcription, a synthesis).
        case error
        /// A warning or error line the SDK (or the app, through ``RemoteErrorLogHandler``)
        /// logged, reported by remote error reporting.
        case log
    }

    /// Figures of the event, each present when it applies.
    public struct Metrics: Sendable, Codable, Equatable {
        /// How long the work took.
        public var durationMs: Double?
        /// Tokens of the prompt.
        public var promptTokens: Int?
        /// Tokens generated.
        public var generatedTokens: Int?
        /// Generation speed after the first token.
        public var tokensPerSecond: Double?
        /// Time to the first token.
        public var timeToFirstTokenMs: Double?
        /// Bytes downloaded or loaded.
        public var sizeBytes: Int64?

        /// Creates figures; every one is optional.
        public init(
            durationMs: Double? = nil,
            promptTokens: Int? = nil,
            generatedTokens: Int? = nil,
            tokensPerSecond: Double? = nil,
            timeToFirstTokenMs: Double? = nil,
            sizeBytes: Int64? = nil
        ) {
            self.durationMs = durationMs
            self.promptTokens = promptTokens
            self.generatedTokens = generatedTokens
            self.tokensPerSecond = tokensPerSecond
            self.timeToFirstTokenMs = timeToFirstTokenMs
            self.sizeBytes = sizeBytes
        }
    }

    /// Made when the event is queued; the server counts each id once.
    public let id: UUID
    /// What happened.
    public let kind: Kind
    /// When it happened.
    public let timestamp: Date
    /// The model concerned, when there is one.
    public let modelId: String?
    /// Figures, when there are any.
    public let metrics: Metrics?
    /// The SDK's error code, for failures.
    public let errorCode: String?
    /// The error's message, redacted (see ``TelemetryEvent/redact(_:)``); for a ``Kind/log``
    /// event, the line.
    public let errorMessage: String?
    /// For a ``Kind/log`` event: `warning`, `error` or `critical`.
    public var level: String?
    /// For a ``Kind/log`` event: the logger's category, e.g. `Download`.
    public var logger: String?
    /// For a ``Kind/log`` event: the module, file and line that logged it (`RunAnywhere/X.swift:12`).
    public var source: String?
    /// For a ``Kind/log`` event: identical lines folded into this one since the last report.
    public var repeats: Int?

    /// Creates an event; `errorMessage` is redacted here, whatever the caller passes.
    public init(
        id: UUID = UUID(),
        kind: Kind,
        timestamp: Date = Date(),
        modelId: String? = nil,
        metrics: Metrics? = nil,
        errorCode: String? = nil,
        errorMessage: String? = nil
    ) {
        self.id = id
        self.kind = kind
        self.timestamp = timestamp
        self.modelId = modelId
        self.metrics = metrics
        self.errorCode = errorCode
        self.errorMessage = errorMessage.map(Self.redact)
    }

    /// The telemetry event an SDK event gives, or `nil` for the many that telemetry ignores
    /// (progress, speech boundaries, registry changes, anything that could carry user text).
    init?(_ event: SDKEvent) {
        switch event.kind {
        case .generationCompleted(_, let modelId, let tokens, let durationMs, let tokensPerSecond):
            self.init(
                kind: .generationCompleted,
                timestamp: event.timestamp,
                modelId: modelId,
                metrics: Metrics(durationMs: durationMs, generatedTokens: tokens, tokensPerSecond: tokensPerSecond)
            )
        case .generationFailed(_, let modelId, let error):
            self.init(failure: .generationFailed, event: event, modelId: modelId, error: error)
        case .modelLoadCompleted(let modelId, _, let durationMs):
            self.init(
                kind: .modelLoaded,
                timestamp: event.timestamp,
                modelId: modelId,
                metrics: Metrics(durationMs: durationMs)
            )
        case .modelLoadFailed(let modelId, _, let error):
            self.init(failure: .modelLoadFailed, event: event, modelId: modelId, error: error)
        case .downloadCompleted(let modelId, let bytes, let durationMs):
            self.init(
                kind: .modelDownloaded,
                timestamp: event.timestamp,
                modelId: modelId,
                metrics: Metrics(durationMs: durationMs, sizeBytes: bytes)
            )
        case .downloadFailed(let modelId, let error), .transcriptionFailed(let modelId, let error):
            self.init(failure: .error, event: event, modelId: modelId, error: error)
        case .synthesisFailed(_, let error), .failure(let error, _, _, _):
            self.init(failure: .error, event: event, modelId: nil, error: error)
        default:
            return nil
        }
    }

    private init(failure kind: Kind, event: SDKEvent, modelId: String?, error: SDKException) {
        self.init(
            kind: kind,
            timestamp: event.timestamp,
            modelId: modelId,
            errorCode: error.code.rawValue,
            errorMessage: error.message
        )
    }

    /// The longest error message kept; messages are for diagnosis, not transport of text.
    static let maximumMessageLength = 500

    /// `message` with what must not leave the device removed: bearer tokens, `key=value`
    /// secrets, long opaque tokens (API keys), absolute paths (they name users), and anything
    /// quoted (prompts and transcripts are quoted when an error mentions them).
    ///
    /// ```swift
    /// TelemetryEvent.redact("Cannot open /home/ana/m.gguf with key sk-abcdefghijklmnop1234")
    /// // "Cannot open [PATH] with key [REDACTED]"
    /// ```
    public static func redact(_ message: String) -> String {
        var text = message
        for (regex, replacement) in redactionRules {
            text = text.replacing(regex) { replacement($0.output) }
        }
        if text.count > maximumMessageLength { text = String(text.prefix(maximumMessageLength)) + "…" }
        return text
    }

    /// The patterns of ``redact(_:)`` and what replaces each match, in order. ICU's reading of
    /// the patterns (`NSRegularExpression`): code points, not characters, and simple word
    /// boundaries; the second rule keeps the key's name and separator (its groups 1 and 2).
    /// (Built per call: `Regex` is not `Sendable`, and only errors are redacted.)
    private static var redactionRules: [(Regex<AnyRegexOutput>, (AnyRegexOutput) -> String)] {
        let rules: [(String, (AnyRegexOutput) -> String)] = [
            (#"(?i)bearer\s+\S+"#, { _ in "Bearer [REDACTED]" }),
            (
                #"(?i)\b(api[_-]?key|token|secret|password|authorization)\b(\s*[=:]\s*)\S+"#,
                { "\($0[1].substring ?? "")\($0[2].substring ?? "")[REDACTED]" }
            ),
            (#"'[^']*'|"[^"]*"|“[^”]*”"#, { _ in "[TEXT]" }),
            (#"(?:~|\b[A-Za-z]:)?(?:/[^\s/:'"]+){2,}/?"#, { _ in "[PATH]" }),
            (#"\b(?=[A-Za-z0-9_\-]*[0-9])(?=[A-Za-z0-9_\-]*[A-Za-z])[A-Za-z0-9_\-]{20,}\b"#, { _ in "[REDACTED]" }),
        ]
        // The patterns are constants of this file: one that failed to parse is a bug here.
        return rules.map { pattern, replacement in
            // swift-format-ignore: NeverUseForceTry
            let regex = try! Regex(pattern).matchingSemantics(.unicodeScalar).wordBoundaryKind(.simple)
            return (regex, replacement)
        }
    }
}
