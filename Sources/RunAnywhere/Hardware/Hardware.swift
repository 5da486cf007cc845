#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The device's processors and GPUs, and where an instance's engines run their models.
///
/// Get it from ``RunAnywhereSDK/hardware`` or ``RunAnywhere/hardware``.
///
/// ```swift
/// let hardware = RunAnywhere.hardware
/// for accelerator in hardware.getAccelerators() {
///     print(accelerator.kind, accelerator.name, accelerator.engines)
/// }
/// do {
///     try hardware.setAcceleratorPreference(.gpu)
/// } catch let error where error.code == .acceleratorUnavailable {
///     print(error.message)  // CPU-only engine builds, or no GPU
/// }
/// ```
public struct Hardware: Sendable {
    private let sdk: RunAnywhereSDK?

    init(sdk: RunAnywhereSDK?) {
        self.sdk = sdk
    }

    /// This device's hardware now and where the engines can run on it (the original SDK's
    /// call and result; ``HardwareProfileResult/profile`` is the ``HardwareProfile``).
    public func getProfile() -> HardwareProfileResult {
        let profile = currentProfile()
        return HardwareProfileResult(profile: profile, accelerators: accelerators(of: profile))
    }

    /// The processor, then each GPU, with the registered engines that can run models on it.
    public func getAccelerators() -> [AcceleratorInfo] {
        accelerators(of: currentProfile())
    }

    private func currentProfile() -> HardwareProfile {
        HardwareProfile.current(diskPath: sdk?.paths.home)
    }

    private func accelerators(of profile: HardwareProfile) -> [AcceleratorInfo] {
        let engines = sdk?.registeredModules.map { $0.engineInfo() }.filter { $0.available && $0.runsOnDevice } ?? []
        let gpuEngines = engines.filter(\.gpuOffload).map(\.name)
        var accelerators = [AcceleratorInfo(kind: .cpu, name: profile.cpu, engines: engines.map(\.name))]
        for gpu in profile.gpus {
            accelerators.append(AcceleratorInfo(kind: .gpu, name: gpu.name, engines: gpuEngines))
        }
        // An engine can see a GPU the profile does not list (Metal, a GPU without a DRM node).
        if profile.gpus.isEmpty && !gpuEngines.isEmpty {
            accelerators.append(AcceleratorInfo(kind: .gpu, name: "GPU", engines: gpuEngines))
        }
        return accelerators
    }

    /// Where models loaded from now on run; `.auto` until set.
    public var acceleratorPreference: AcceleratorPreference {
        sdk.map { $0.live.services.acceleratorPreference } ?? .auto
    }

    /// Sets where models loaded from now on run. Models already loaded stay where they are:
    /// unload and load them again to move them.
    ///
    /// - Throws: `.acceleratorUnavailable` for `.gpu` when no registered engine can use a GPU
    ///   on this device (the message says whether the device has none or the engines were
    ///   built without support); `.notInitialized` on ``RunAnywhere/hardware`` before
    ///   initialization or on a shut-down instance.
    public func setAcceleratorPreference(_ preference: AcceleratorPreference) throws(SDKException) {
        guard let sdk else { throw RunAnywhere.notInitializedError }
        let runtime = try sdk.runtime()
        if preference == .gpu, let reason = gpuUnavailableReason {
            throw SDKException(.acceleratorUnavailable, reason, recovery: AcceleratorInfo.gpuRecovery)
        }
        runtime.services.acceleratorPreference = preference
    }

    /// Why ``setAcceleratorPreference(_:)`` refuses `.gpu` here, or nil when a GPU can be used.
    public var gpuUnavailableReason: String? {
        let profile = currentProfile()
        return Self.whyNoGPU(accelerators(of: profile), profile: profile)
    }

    /// Why no model could run on a GPU here, or nil when one can.
    static func whyNoGPU(_ accelerators: [AcceleratorInfo], profile: HardwareProfile) -> String? {
        guard !accelerators.contains(where: { $0.kind == .gpu && $0.usable }) else { return nil }
        let engines = accelerators.first { $0.kind == .cpu }?.engines ?? []
        let builds =
            engines.isEmpty
            ? "no engine is registered"
            : "the registered engines (\(engines.joined(separator: ", "))) are CPU-only builds"
        guard !profile.gpus.isEmpty else {
            return "This device has no GPU the SDK can find (no NVIDIA driver, no DRM GPU), and \(builds)"
        }
        return "This device has \(profile.gpus.map(\.name).joined(separator: ", ")), but \(builds)"
    }
}

extension RunAnywhereSDK {
    /// This instance's view of the hardware: the profile, the accelerators and the
    /// accelerator preference its engines follow.
    public var hardware: Hardware { Hardware(sdk: self) }
}

extension RunAnywhere {
    /// The shared instance's view of the hardware (see ``Hardware``). Before initialization
    /// it reads the profile; setting a preference then throws `.notInitialized`.
    public static var hardware: Hardware { Hardware(sdk: shared) }
}
