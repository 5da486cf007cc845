@_spi(Backend) @testable import RunAnywhere

/// The framework ids the engine modules declare, for tests that link no engine.
extension InferenceFramework {
    static let llamaCpp = InferenceFramework("llamacpp")
    static let sherpaOnnx = InferenceFramework("sherpa")
}
