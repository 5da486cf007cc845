@_spi(Backend) internal import RunAnywhere

#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

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
        let eventId = event.id.uuidString.lowercased().replacing("-", with: "")
        let sdk = Self.object(["name": .string(Self.clientName), "version": .string(RunAnywhere.version)])
        var tags: [String: JSONValue] = [:]
        if let source = event.source { tags["source"] = .string(source) }
        if let repeats = event.repeats { tags["repeats"] = .string(String(repeats)) }
        if let modelId = event.modelId { tags["model_id"] = .string(modelId) }
        if let code = event.errorCode { tags["error_code"] = .string(code) }
        let level: String
        switch event.level {
        case "critical": level = "fatal"
        case "warning": level = "warning"
        default: level = "error"
        }
        let os = Self.object([
            "name": .string(Self.osName),
            "version": .string(ProcessInfo.processInfo.operatingSystemVersionString),
        ])
        // SDK lines carry a category, an app's lines (RemoteErrorLogHandler) their label.
        let logger =
            (event.logger ?? event.kind.rawValue).contains(".")
            ? (event.logger ?? "") : "\(SDKLogger.labelPrefix).\(event.logger ?? event.kind.rawValue)"
        let item = Self.object([
            "event_id": .string(eventId),
            "timestamp": .number(event.timestamp.timeIntervalSince1970),
            "platform": "other",
            "level": .string(level),
            "logger": .string(logger),
            "message": Self.object(["formatted": .string(event.errorMessage ?? event.kind.rawValue)]),
            "release": .string("\(Self.clientName)@\(RunAnywhere.version)"),
            "environment": .string(environment),
            "tags": Self.object(tags),
            "sdk": sdk,
            "contexts": Self.object(["os": os]),
        ])
        .jsonText()
        let header = Self.object([
            "event_id": .string(eventId),
            "dsn": .string(dsn.url.absoluteString),
            "sent_at": .string(sentAt.formatted(.iso8601)),
            "sdk": sdk,
        ])
        .jsonText()
        let itemHeader = Self.object([
            "type": "event", "length": .integer(Int64(item.utf8.count)), "content_type": "application/json",
        ])
        .jsonText()
        body = Data((header + "\n" + itemHeader + "\n" + item + "\n").utf8)
    }

    /// An object with its members in key order, as Sentry's examples write them.
    private static func object(_ members: [String: JSONValue]) -> JSONValue {
        var object = JSONObject()
        for key in members.keys.sorted() { object[key] = members[key] }
        return .object(object)
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
