internal import CRunAnywherePlugin
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A speech-recognition model run by a plugin, through its C table (`rac_stt_ops`).
///
/// Every call goes to the plugin on the service's own thread, which may block, one at a time;
/// the plugin answers through a callback, from any thread. Only cancellation comes from
/// elsewhere, as the ABI allows.
final class PluginSTTService: STTService, @unchecked Sendable {
    // Immutable after init, except the plugin's handle (its address), which the mutex guards.
    let model: ModelInfo
    private let operations: rac_stt_ops
    private let worker: WorkerThread
    private let handle: Mutex<UInt?>
    /// The plugin's record of its handles, which forgets this one when the handle is released.
    private let handles: PluginHandles

    private init(
        model: ModelInfo,
        operations: rac_stt_ops,
        worker: WorkerThread,
        handle: UnsafeMutableRawPointer,
        handles: PluginHandles
    ) {
        self.model = model
        self.operations = operations
        self.worker = worker
        self.handle = Mutex(UInt(bitPattern: handle))
        self.handles = handles
    }

    /// Loads `model` through the plugin, recorded in `handles` from before the plugin's `load`
    /// runs until the handle is released, so the plugin cannot be unloaded meanwhile.
    ///
    /// - Throws: `.modelLoadFailed` with the plugin's reason; `.noBackendForModel` when the
    ///   plugin was unloaded as the load began.
    static func load(
        model: ModelInfo,
        operations: UnsafePointer<rac_stt_ops>,
        handles: PluginHandles
    ) async throws(SDKException) -> PluginSTTService {
        let path = try model.localFile().path
        let modelId = model.id
        guard handles.record(modelId) else {
            throw SDKException(
                .noBackendForModel,
                "The plugin that would run '\(modelId)' was unloaded as the model began loading",
                recovery: "Load the plugin again"
            )
        }
        let operations = operations.pointee
        let worker = WorkerThread(name: "plugin.\(model.id)")
        let reply = await PluginReply.wait(on: worker) { context in
            operations.load(path, modelId, context, PluginReply.loaded)
        }
        guard reply.result == RAC_SUCCESS, let handle = reply.model else {
            worker.stop()
            handles.forget(modelId)
            throw SDKException(
                .modelLoadFailed,
                "The plugin could not load '\(model.id)': \(reply.text ?? "code \(reply.result)")"
            )
        }
        return PluginSTTService(model: model, operations: operations, worker: worker, handle: handle, handles: handles)
    }

    func transcribe(_ audio: PCMAudio, options: STTOptions) async throws -> STTServiceResult {
        guard let handleAddress = handle.withLock({ $0 }) else {
            throw SDKException(.modelNotLoaded, "'\(model.id)' was unloaded")
        }
        let optionsJSON = String(decoding: try JSONEncoder().encode(PluginSTTRequest(options)), as: UTF8.self)
        // The plugin may read the samples until its callback: a copy of ours, freed after it.
        let samples = UnsafeMutableBufferPointer<Float>.allocate(capacity: audio.samples.count)
        _ = samples.initialize(from: audio.samples)
        defer { samples.deallocate() }
        let samplesAddress = UInt(bitPattern: samples.baseAddress)
        let count = samples.count
        let operations = self.operations
        let reply = await withTaskCancellationHandler {
            await PluginReply.wait(on: worker) { context in
                operations.transcribe(
                    UnsafeMutableRawPointer(bitPattern: handleAddress),
                    UnsafePointer(bitPattern: samplesAddress),
                    count,
                    optionsJSON,
                    context,
                    PluginReply.done
                )
            }
        } onCancel: {
            operations.cancel?(UnsafeMutableRawPointer(bitPattern: handleAddress))
        }
        switch reply.result {
        case RAC_SUCCESS:
            return try Self.decode(reply.text ?? "", model: model.id)
        case RAC_ERROR_CANCELLED:
            throw SDKException(.transcriptionCancelled, "The transcription was cancelled")
        case RAC_ERROR_INVALID_INPUT:
            throw SDKException(.invalidInput, "The plugin refused the input: \(reply.text ?? "")")
        default:
            throw SDKException(
                .backendError,
                "The plugin failed to transcribe with '\(model.id)': \(reply.text ?? "code \(reply.result)")"
            )
        }
    }

    func unload() async {
        guard
            let address = handle.withLock({ handle in
                defer { handle = nil }
                return handle
            })
        else { return }
        let operations = self.operations
        _ = try? await worker.run { operations.unload(UnsafeMutableRawPointer(bitPattern: address)) }
        worker.stop()
        handles.forget(model.id)
    }

    deinit {
        // A service dropped without unload() (a routed side loaded after its model was unloaded,
        // an instance never shut down) still releases its handle, or the plugin's record would
        // keep the model and the plugin could never be unloaded. Whoever takes the handle forgets it.
        guard let address = handle.withLock({ $0 }) else { return }
        let operations = self.operations
        let handles = self.handles
        let modelId = model.id
        let submitted = worker.submit {
            operations.unload(UnsafeMutableRawPointer(bitPattern: address))
            handles.forget(modelId)
        }
        if !submitted { handles.forget(modelId) }
        worker.stop()
    }

    /// The plugin's JSON result as a service result.
    static func decode(_ text: String, model: String) throws(SDKException) -> STTServiceResult {
        let result: PluginSTTResult
        do {
            result = try JSONDecoder().decode(PluginSTTResult.self, from: Data(text.utf8))
        } catch {
            throw SDKException(
                .backendError,
                "The plugin's result for '\(model)' is not the ABI's JSON: \(text.prefix(200))",
                underlying: error
            )
        }
        return result.serviceResult
    }
}

/// What a plugin reported through a callback, and how the host waits for it.
struct PluginReply: @unchecked Sendable {
    var result: Int32
    var model: UnsafeMutableRawPointer?
    var text: String?

    /// Where a callback finds the waiting task: passed retained as the call's context, and
    /// released by the one callback.
    private final class Waiter: Sendable {
        let continuation: CheckedContinuation<PluginReply, Never>
        init(_ continuation: CheckedContinuation<PluginReply, Never>) { self.continuation = continuation }
    }

    /// Starts `call` on `worker` with a context for the callback and waits for the callback.
    static func wait(
        on worker: WorkerThread,
        _ call: @escaping @Sendable (UnsafeMutableRawPointer) -> Void
    ) async -> PluginReply {
        await withCheckedContinuation { continuation in
            let context = Unmanaged.passRetained(Waiter(continuation)).toOpaque()
            let address = UInt(bitPattern: context)
            let submitted = worker.submit {
                if let context = UnsafeMutableRawPointer(bitPattern: address) { call(context) }
            }
            if !submitted {
                Unmanaged<Waiter>.fromOpaque(context).release()
                continuation.resume(
                    returning: PluginReply(result: RAC_ERROR_ENGINE_FAILED, text: "the plugin's thread is stopped")
                )
            }
        }
    }

    /// The `rac_loaded_fn` the host passes.
    static let loaded: rac_loaded_fn = { context, result, model, message in
        guard let context else { return }
        let waiter = Unmanaged<Waiter>.fromOpaque(context).takeRetainedValue()
        waiter.continuation.resume(
            returning: PluginReply(result: result, model: model, text: message.map { String(cString: $0) })
        )
    }

    /// The `rac_done_fn` the host passes.
    static let done: rac_done_fn = { context, result, output in
        guard let context else { return }
        let waiter = Unmanaged<Waiter>.fromOpaque(context).takeRetainedValue()
        waiter.continuation.resume(returning: PluginReply(result: result, text: output.map { String(cString: $0) }))
    }
}
