internal import CRunAnywherePlugin
import Dispatch
@_spi(Backend) import RunAnywhere
import RunAnywhereWhisperCPP
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The whisper.cpp backend as a plugin across the C ABI of `rac_plugin.h`.
///
/// The library (`libRunAnywhereWhisperPlugin`) carries its own copy of this SDK and of the
/// backend; a host sees only the C description below, so it may be any program that speaks
/// the ABI, whatever SDK version or toolchain built it. Its speech recognition is the linked
/// backend's, the same code on the same engine, so transcripts match.
@_cdecl("rac_plugin_entry")
public func racPluginEntry() -> UnsafeRawPointer? {
    UnsafeRawPointer(WhisperPlugin.description)
}

enum WhisperPlugin {
    /// The plugin's description, made once and kept for the life of the process.
    nonisolated(unsafe) static let description: UnsafeMutablePointer<rac_plugin> = {
        let frameworks = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: 2)
        frameworks[0] = UnsafePointer(strdup(InferenceFramework.whisperCpp.rawValue))
        frameworks[1] = nil
        let operations = UnsafeMutablePointer<rac_stt_ops>.allocate(capacity: 1)
        operations.initialize(to: rac_stt_ops(load: load, transcribe: transcribe, cancel: cancel, unload: unload))
        var plugin = rac_plugin()
        plugin.api_version = RAC_PLUGIN_API_VERSION
        plugin.name = UnsafePointer(strdup("whispercpp-plugin"))
        plugin.engine = UnsafePointer(strdup("whisper.cpp (RunAnywhere \(RunAnywhere.version))"))
        plugin.frameworks = UnsafePointer(frameworks)
        plugin.priority = 100
        plugin.stt = UnsafePointer(operations)
        let description = UnsafeMutablePointer<rac_plugin>.allocate(capacity: 1)
        description.initialize(to: plugin)
        return description
    }()

    /// A loaded model: the backend's service and the transcription in progress, for `cancel`.
    final class Model: Sendable {
        let service: WhisperCPPSTTService
        let running = Mutex<Task<Void, Never>?>(nil)

        init(service: WhisperCPPSTTService) {
            self.service = service
        }
    }

    /// What the host gave for a callback (its context and function), carried into the task
    /// that calls it: the ABI makes the host keep both valid until then.
    struct Reply<Function>: @unchecked Sendable {
        let context: UnsafeMutableRawPointer?
        let function: Function
    }

    static let load:
        @convention(c) (
            UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?, rac_loaded_fn?
        ) -> Void = { path, id, context, done in
            guard let done else { return }
            guard let path, let id else {
                return "no model path".withCString { done(context, RAC_ERROR_INVALID_INPUT, nil, $0) }
            }
            let file = URL(fileURLWithPath: String(cString: path))
            let model = ModelInfo(
                id: String(cString: id),
                name: file.lastPathComponent,
                category: .speechRecognition,
                format: .guess(fromFileName: file.lastPathComponent),
                framework: .whisperCpp,
                localPath: file
            )
            let reply = Reply(context: context, function: done)
            Task {
                do {
                    let service = try await WhisperCPPSTTService.load(model: model, accelerator: .auto)
                    let handle = Unmanaged.passRetained(Model(service: service)).toOpaque()
                    reply.function(reply.context, RAC_SUCCESS, handle, nil)
                } catch {
                    "\(error)".withCString { reply.function(reply.context, RAC_ERROR_MODEL_LOAD_FAILED, nil, $0) }
                }
            }
        }

    static let transcribe:
        @convention(c) (
            UnsafeMutableRawPointer?, UnsafePointer<Float>?, Int, UnsafePointer<CChar>?, UnsafeMutableRawPointer?,
            rac_done_fn?
        ) -> Void = { handle, samples, count, optionsJSON, context, done in
            guard let done else { return }
            guard let handle, samples != nil || count == 0 else {
                return "no model or no samples".withCString { done(context, RAC_ERROR_INVALID_INPUT, $0) }
            }
            let model = Unmanaged<Model>.fromOpaque(handle).takeUnretainedValue()
            let request: PluginSTTRequest
            do {
                let text = optionsJSON.map { String(cString: $0) } ?? "{}"
                request = try JSONDecoder().decode(PluginSTTRequest.self, from: Data(text.utf8))
            } catch {
                return "options are not the ABI's JSON: \(error)".withCString {
                    done(context, RAC_ERROR_INVALID_INPUT, $0)
                }
            }
            // Copied now: the samples need not outlive this call on our side.
            let audio = PCMAudio(
                samples: samples.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? [],
                sampleRate: 16_000
            )
            let sttOptions = request.options
            let reply = Reply(context: context, function: done)
            model.running.withLock { running in
                running = Task {
                    do {
                        let output = try await model.service.transcribe(audio, options: sttOptions)
                        let json = String(
                            decoding: try JSONEncoder().encode(PluginSTTResult(output)),
                            as: UTF8.self
                        )
                        json.withCString { reply.function(reply.context, RAC_SUCCESS, $0) }
                    } catch let error as SDKException where error.code == .transcriptionCancelled {
                        error.message.withCString { reply.function(reply.context, RAC_ERROR_CANCELLED, $0) }
                    } catch {
                        "\(error)".withCString { reply.function(reply.context, RAC_ERROR_ENGINE_FAILED, $0) }
                    }
                }
            }
        }

    static let cancel: @convention(c) (UnsafeMutableRawPointer?) -> Void = { handle in
        guard let handle else { return }
        Unmanaged<Model>.fromOpaque(handle).takeUnretainedValue().running.withLock { $0?.cancel() }
    }

    static let unload: @convention(c) (UnsafeMutableRawPointer?) -> Void = { handle in
        guard let handle else { return }
        let model = Unmanaged<Model>.fromOpaque(handle).takeRetainedValue()
        // The host calls this on a thread of its own that may block; the engine is freed on return.
        let finished = DispatchSemaphore(value: 0)
        Task {
            await model.service.unload()
            finished.signal()
        }
        finished.wait()
    }
}
