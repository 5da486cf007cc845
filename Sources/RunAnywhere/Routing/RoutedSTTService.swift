#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A speech-recognition model that runs here and on a remote server: each request goes
/// where the ``ModelRouter`` says, falls back to this device when the server cannot be
/// reached, and under ``RoutingPolicy/escalateBelowConfidence(_:)`` is re-run remotely when
/// the local transcript's confidence is below the threshold.
final class RoutedSTTService: STTService {
    let sides: RoutedService<any STTService>
    private let logger = SDKLogger(category: "Routing")

    /// Loads the side the routing policy would use first.
    static func load(
        model: ModelInfo,
        router: ModelRouter,
        local: RoutedService<any STTService>.Loader?,
        remote: @escaping RoutedService<any STTService>.Loader
    ) async throws(SDKException) -> RoutedSTTService {
        let (sides, _) = try await RoutedService<any STTService>.load(
            model: model,
            router: router,
            local: local,
            remote: remote
        ) { await $0.unload() }
        return RoutedSTTService(sides: sides)
    }

    private init(sides: RoutedService<any STTService>) {
        self.sides = sides
    }

    var model: ModelInfo { sides.model }

    func transcribe(_ audio: PCMAudio, options: STTOptions) async throws -> STTServiceResult {
        let router = sides.router
        var result = try await sides.run(try router.targets(for: model)) { target in
            try await transcribe(audio, options: options, on: target)
        }
        guard case .escalateBelowConfidence(let threshold) = router.configuration.policy,
            result.executedOn == .local, model.remote != nil, !router.isUnreachable(model),
            (result.confidence ?? 0) < threshold
        else { return result }
        do {
            let escalated = try await sides.run([.remote]) { target in
                try await transcribe(audio, options: options, on: target)
            }
            logger.info(
                "Transcript confidence \(result.confidence.map { String(printf: "%.2f", $0) } ?? "unknown") "
                    + "below \(threshold): re-ran '\(model.id)' remotely"
            )
            result = escalated
        } catch let error as SDKException where ModelRouter.isUnreachable(error) {
            // The local transcript stands when the server cannot be reached (`run` marked it).
        }
        return result
    }

    private func transcribe(
        _ audio: PCMAudio,
        options: STTOptions,
        on target: ExecutionTarget
    ) async throws -> STTServiceResult {
        var result = try await sides.service(for: target).transcribe(audio, options: options)
        result.executedOn = target
        return result
    }

    func unload() async {
        await sides.unload()
    }
}
