import ArgumentParser
import RunAnywhere
import RunAnywhereCommandLine
import RunAnywhereControlPlane

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `runanywhere telemetry …`: the queue of telemetry events waiting for the control plane.
struct TelemetryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "telemetry",
        abstract: "Show or upload the telemetry queued for the control plane.",
        discussion: """
            Telemetry is kept only when a control plane is named ($\(CLI.controlPlaneURLVariable) with \
            $\(CLI.apiKeyVariable)): generation metrics, model loads and downloads, and errors with keys, \
            tokens and paths redacted; never prompt, transcript or document text.
            """,
        subcommands: [Status.self, Flush.self]
    )

    struct Status: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Events waiting, and the control plane's state."
        )
        @OptionGroup var global: GlobalOptions
        @Flag(name: .long, help: "Print one JSON object.") var json = false

        func execute() async throws {
            try await CLI.start(global, keywordSpotter: false)
            // Phase 2 has tried the control plane once by then: the state is its answer.
            try await RunAnywhere.completeServicesInitialization()
            let pending = try RunAnywhere.pendingTelemetryCount()
            let status = RunAnywhere.controlPlaneStatus
            if json {
                try CLI.printJSON(Report(pending: pending, state: status.state.rawValue, deviceId: status.deviceId))
            } else {
                print("\(pending) events queued; control plane: \(status.state.rawValue)")
            }
        }
    }

    struct Flush: SDKCommand {
        static let configuration = CommandConfiguration(
            commandName: "flush",
            abstract: "Connect to the control plane and upload every queued event now."
        )
        @OptionGroup var global: GlobalOptions
        @Flag(name: .long, help: "Print one JSON object.") var json = false

        func execute() async throws {
            try await CLI.start(global, keywordSpotter: false)
            let receipt = try await RunAnywhere.flushTelemetry()
            let pending = try RunAnywhere.pendingTelemetryCount()
            let status = RunAnywhere.controlPlaneStatus
            if json {
                try CLI.printJSON(
                    Report(
                        pending: pending,
                        state: status.state.rawValue,
                        deviceId: status.deviceId,
                        accepted: receipt.accepted,
                        duplicates: receipt.duplicates
                    )
                )
            } else {
                print("Uploaded: \(receipt.accepted) new, \(receipt.duplicates) already there; \(pending) still queued")
            }
        }
    }

    struct Report: Encodable {
        var pending: Int
        var state: String
        var deviceId: String?
        var accepted: Int?
        var duplicates: Int?
    }
}
