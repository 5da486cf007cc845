/// Where the engines should run their models: the processor, a GPU, or whichever is best.
///
/// Set it with ``Hardware/setAcceleratorPreference(_:)``; it applies to the models loaded
/// after the call. llama.cpp (language, vision and embedding models) and whisper.cpp (speech
/// recognition) follow it; engines with no GPU path (espeak-ng, and the CPU builds of
/// onnxruntime that Piper and Silero run on) always use the processor.
public enum AcceleratorPreference: String, Sendable, Codable, CaseIterable {
    /// A GPU where an engine was built for one and the device has one, else the processor.
    case auto
    /// The processor only, even where a GPU could be used.
    case cpu
    /// A GPU, or a typed error (`acceleratorUnavailable`) where none can be used.
    case gpu

    /// Whether an engine that can (`engineHasGPU`) or cannot use a GPU should, under this preference.
    ///
    /// - Throws: `.acceleratorUnavailable` for ``gpu`` when the engine has no GPU support.
    @_spi(Backend) public func usesGPU(engine: String, engineHasGPU: Bool) throws(SDKException) -> Bool {
        switch self {
        case .cpu: return false
        case .auto: return engineHasGPU
        case .gpu:
            guard engineHasGPU else {
                throw SDKException(
                    .acceleratorUnavailable,
                    "\(engine) was built without GPU support, and the accelerator preference is gpu",
                    recovery: AcceleratorInfo.gpuRecovery
                )
            }
            return true
        }
    }
}
