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

    /// The registered models that fit this device now, largest first.
    ///
    /// Calls ``RunAnywhereSDK/recommendedModels(category:)`` on the shared instance.
    public static func recommendedModels(category: ModelCategory? = nil) throws(SDKException) -> [ModelInfo] {
        try sdk().recommendedModels(category: category)
    }
}
