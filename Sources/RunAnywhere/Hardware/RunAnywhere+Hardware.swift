#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RunAnywhereSDK {
    /// This device's hardware now, with the free space of the volume of this instance's home.
    public var hardwareProfile: HardwareProfile {
        HardwareProfile.current(diskPath: paths.home)
    }

    /// Whether model `modelId` fits this device now: the memory it takes loaded with a
    /// `contextLength`-token context (for a GGUF language model on disk: its weights, the KV
    /// cache its header implies, and working buffers), and the disk a download still takes,
    /// against ``hardwareProfile``. A language model load that would not fit in memory is
    /// refused the same way, with `.insufficientMemory`, before the engine allocates anything.
    ///
    /// - Parameters:
    ///   - modelId: A registered model.
    ///   - contextLength: The context to check (each of `slots`); `nil` checks the one a load
    ///     would pick (the model's training length, capped at
    ///     ``LLMLoadConfiguration/defaultContextCap``).
    ///   - slots: Generations decoded together, each with its own context (a server's).
    /// - Throws: `.modelNotFound`; `.invalidInput` for a context under 16 tokens or bad slots.
    public func checkCompatibility(
        modelId: String,
        contextLength: Int? = nil,
        slots: Int = 1
    ) throws(SDKException) -> ModelCompatibilityResult {
        let configuration = LLMLoadConfiguration(contextLength: contextLength, slots: slots)
        try configuration.validate()
        return ModelCompatibilityResult.check(
            try model(modelId),
            configuration: configuration,
            profile: hardwareProfile
        )
    }

    /// The registered models that fit this device now (see ``HardwareProfile/fits(_:)``),
    /// largest first: the first of a category is the most capable one it can run. LoRA
    /// adapters are left out unless `category` asks for them.
    ///
    /// ```swift
    /// if let best = try sdk.recommendedModels(category: .llm).first {
    ///     try await sdk.loadModel(best.id)
    /// }
    /// ```
    public func recommendedModels(category: ModelCategory? = nil) throws(SDKException) -> [ModelInfo] {
        let profile = hardwareProfile
        return try models(category: category)
            .filter { (category != nil || $0.category != .loraAdapter) && profile.fits($0) }
            .sorted { ($0.sizeBytes ?? 0, $1.id) > ($1.sizeBytes ?? 0, $0.id) }
    }
}

extension RunAnywhere {
    /// This device's hardware now: processor and its vector features, memory (within a
    /// container's limit), free disk of the SDK's home (or the current folder before
    /// initialization), GPUs and operating system.
    ///
    /// ```swift
    /// let hardware = RunAnywhere.hardwareProfile
    /// print(hardware.cpu, hardware.cores, hardware.memoryAvailableBytes, hardware.gpu?.name ?? "no GPU")
    /// ```
    public static var hardwareProfile: HardwareProfile {
        HardwareProfile.current(diskPath: paths?.home)
    }

    /// Whether a model fits this device now, loaded with a context.
    ///
    /// Calls ``RunAnywhereSDK/checkCompatibility(modelId:contextLength:slots:)`` on the shared instance.
    public static func checkCompatibility(
        modelId: String,
        contextLength: Int? = nil,
        slots: Int = 1
    ) throws(SDKException) -> ModelCompatibilityResult {
        try sdk().checkCompatibility(modelId: modelId, contextLength: contextLength, slots: slots)
    }

    /// The registered models that fit this device now, largest first.
    ///
    /// Calls ``RunAnywhereSDK/recommendedModels(category:)`` on the shared instance.
    public static func recommendedModels(category: ModelCategory? = nil) throws(SDKException) -> [ModelInfo] {
        try sdk().recommendedModels(category: category)
    }
}
