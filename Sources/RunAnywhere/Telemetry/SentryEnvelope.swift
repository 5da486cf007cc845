import Foundation

/// One reported line in Sentry's envelope format: an envelope header, an item header and
/// the event, each a line of JSON (https://develop.sentry.dev/sdk/envelopes/).
///
/// The event carries the line's level, logger, redacted text and source, the SDK's release
/// and environment, and the operating system; never a prompt, a transcript, a user or a
/// device identifier. Its `event_id` is the queued event's, so a retried upload is one event.
struct SentryEnvelope {
    static let clientName = "runanywhere.swift"

    let body: Data

    init(_ event: TelemetryEvent, dsn: SentryDSN, environment: String, sentAt: Date = Date()) {
        let eventId = event.id.uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let sdk: [String: Any] = ["name": Self.clientName, "version": RunAnywhere.version]
        var tags: [String: String] = [:]
        if let source = event.source { tags["source"] = source }
        if let repeats = event.repeats { tags["repeats"] = String(repeats) }
        if let modelId = event.modelId { tags["model_id"] = modelId }
        if let code = event.errorCode { tags["error_code"] = code }
        let level: String
        switch event.level {
        case "critical": level = "fatal"
        case "warning": level = "warning"
        default: level = "error"
        }
        var os: [String: Any] = ["name": Self.osName]
        os["version"] = ProcessInfo.processInfo.operatingSystemVersionString
        let payload: [String: Any] = [
            "event_id": eventId,
            "timestamp": event.timestamp.timeIntervalSince1970,
            "platform": "other",
            "level": level,
            // SDK lines carry a category, an app's lines (RemoteErrorLogHandler) their label.
            "logger": (event.logger ?? event.kind.rawValue).contains(".")
                ? (event.logger ?? "") : "\(SDKLogger.labelPrefix).\(event.logger ?? event.kind.rawValue)",
            "message": ["formatted": event.errorMessage ?? event.kind.rawValue],
            "release": "\(Self.clientName)@\(RunAnywhere.version)",
            "environment": environment,
            "tags": tags,
            "sdk": sdk,
            "contexts": ["os": os],
        ]
        let item = Self.json(payload)
        let header = Self.json([
            "event_id": eventId,
            "dsn": dsn.url.absoluteString,
            "sent_at": ISO8601DateFormatter().string(from: sentAt),
            "sdk": sdk,
        ])
        let itemHeader = Self.json(["type": "event", "length": item.count, "content_type": "application/json"])
        body = header + Data("\n".utf8) + itemHeader + Data("\n".utf8) + item + Data("\n".utf8)
    }

    private static func json(_ object: [String: Any]) -> Data {
        (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
    }

    private static var osName: String {
        #if os(Linux)
        "Linux"
        #elseif os(macOS)
        "macOS"
        #elseif os(iOS)
        "iOS"
        #else
        "other"
        #endif
    }
}
