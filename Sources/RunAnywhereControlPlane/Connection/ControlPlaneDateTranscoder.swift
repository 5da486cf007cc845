package import Foundation
internal import OpenAPIRuntime

/// The API's `date-time`s: written with milliseconds (telemetry timestamps need them), read
/// with or without a fraction, as RFC 3339 allows and other servers write them.
package struct ControlPlaneDateTranscoder: DateTranscoder {
    private let fractional = ISO8601DateTranscoder(options: [.withInternetDateTime, .withFractionalSeconds])
    private let whole = ISO8601DateTranscoder(options: [.withInternetDateTime])

    package init() {}

    package func encode(_ date: Date) throws -> String {
        try fractional.encode(date)
    }

    package func decode(_ text: String) throws -> Date {
        if let date = try? fractional.decode(text) { return date }
        return try whole.decode(text)
    }
}
