internal import Foundation
internal import RunAnywhere
internal import RunAnywhereControlPlane

/// The control-plane API's operations on the reference server's memory. Authentication of
/// the other operations is done before them, by ``ControlPlaneAuthMiddleware``.
struct ControlPlaneHandler: APIProtocol {
    let state: ControlPlaneState

    func authenticate(_ input: Operations.Authenticate.Input) async throws -> Operations.Authenticate.Output {
        guard case .json(let body) = input.body, !body.apiKey.isEmpty else {
            return .badRequest(
                .init(body: .json(Self.error("invalid_request", "api_key is required", param: "api_key")))
            )
        }
        guard let tokens = state.issueTokens(apiKey: body.apiKey, deviceId: body.deviceId) else {
            return .unauthorized(.init(body: .json(Self.error("invalid_api_key", "The API key is not valid"))))
        }
        return .ok(.init(body: .json(tokens)))
    }

    func refreshToken(_ input: Operations.RefreshToken.Input) async throws -> Operations.RefreshToken.Output {
        guard case .json(let body) = input.body, !body.refreshToken.isEmpty else {
            return .badRequest(.init(body: .json(Self.error("invalid_request", "refresh_token is required"))))
        }
        guard let session = state.redeem(refreshToken: body.refreshToken),
            let tokens = state.issueTokens(apiKey: nil, deviceId: session.deviceId, refreshed: session)
        else {
            return .unauthorized(
                .init(body: .json(Self.error("invalid_refresh_token", "The refresh token is unknown or expired")))
            )
        }
        return .ok(.init(body: .json(tokens)))
    }

    func registerDevice(_ input: Operations.RegisterDevice.Input) async throws -> Operations.RegisterDevice.Output {
        let id = input.path.deviceId
        guard UUID(uuidString: id) != nil else {
            return .badRequest(
                .init(body: .json(Self.error("invalid_request", "device_id is not a UUID", param: "deviceId")))
            )
        }
        guard case .json(let registration) = input.body, registration.cores >= 1 else {
            return .badRequest(
                .init(body: .json(Self.error("invalid_request", "cores must be at least 1", param: "cores")))
            )
        }
        let (device, new) = state.memory.withLock { memory -> (ControlPlaneState.Device, Bool) in
            memory.statistics.registrations += 1
            let now = Date()
            if var known = memory.devices[id] {
                known.registration = registration
                known.updatedAt = now
                memory.devices[id] = known
                return (known, false)
            }
            let device = ControlPlaneState.Device(registration: registration, registeredAt: now, updatedAt: now)
            memory.devices[id] = device
            memory.statistics.devices = memory.devices.count
            return (device, true)
        }
        let body = Components.Schemas.Device(
            deviceId: id,
            registeredAt: device.registeredAt,
            updatedAt: device.updatedAt
        )
        return new ? .created(.init(body: .json(body))) : .ok(.init(body: .json(body)))
    }

    func getAssignments(_ input: Operations.GetAssignments.Input) async throws -> Operations.GetAssignments.Output {
        let id = input.path.deviceId
        let found = state.memory.withLock { memory -> (etag: String, models: [ModelAssignment])? in
            guard memory.devices[id] != nil else { return nil }
            memory.statistics.assignmentFetches += 1
            return ("\"assignments-\(memory.assignmentsVersion)\"", memory.configuration.assignments)
        }
        guard let found else {
            return .notFound(.init(body: .json(Self.error("device_not_found", "Register the device first"))))
        }
        if input.headers.ifNoneMatch == found.etag { return .notModified }
        let models = found.models.map { model in
            Components.Schemas.ModelAssignment(
                modelId: model.modelId,
                name: model.name,
                category: model.category,
                framework: model.framework,
                contextLength: model.contextLength,
                required: model.required,
                files: model.files.map {
                    .init(
                        url: $0.url.absoluteString,
                        sha256: $0.sha256 ?? "",
                        sizeBytes: $0.sizeBytes,
                        filename: $0.fileName
                    )
                }
            )
        }
        return .ok(.init(headers: .init(eTag: found.etag), body: .json(.init(etag: found.etag, models: models))))
    }

    func uploadTelemetry(_ input: Operations.UploadTelemetry.Input) async throws -> Operations.UploadTelemetry.Output {
        guard case .json(let batch) = input.body, !batch.events.isEmpty else {
            return .badRequest(
                .init(body: .json(Self.error("invalid_request", "events must not be empty", param: "events")))
            )
        }
        guard batch.events.count <= 1000 else {
            return .contentTooLarge(.init(body: .json(Self.error("batch_too_large", "At most 1,000 events per batch"))))
        }
        if state.fault == .hangTelemetry {
            try await hang()
            // Held, never stored: its client may be long gone, and must send it again.
            return .serviceUnavailable(
                .init(headers: .init(retryAfter: 1), body: .json(Self.error("unavailable", "The batch was not stored")))
            )
        }
        let receipt = state.memory.withLock { memory -> Components.Schemas.TelemetryReceipt in
            memory.statistics.telemetryBatches += 1
            var accepted = 0
            var duplicates = 0
            for event in batch.events {
                if memory.events[event.eventId] == nil {
                    memory.events[event.eventId] = event
                    memory.eventOrder.append(event.eventId)
                    accepted += 1
                } else {
                    duplicates += 1
                }
            }
            memory.statistics.eventsStored += accepted
            memory.statistics.duplicateEvents += duplicates
            return .init(accepted: accepted, duplicates: duplicates)
        }
        state.announce("uploadTelemetry.stored")
        if state.fault == .storeTelemetryThenHang {
            try await hang()
        }
        return .accepted(.init(body: .json(receipt)))
    }

    /// Waits while a hanging fault is set; the client sees no answer (or its own timeout).
    private func hang() async throws {
        while [.hang, .hangTelemetry, .storeTelemetryThenHang].contains(state.fault) {
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    static func error(_ code: String, _ message: String, param: String? = nil) -> Components.Schemas._Error {
        .init(error: .init(code: code, message: message, param: param))
    }
}
