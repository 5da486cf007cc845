import Foundation
import RunAnywhereTestSupport
import RunAnywhereTesting
import Synchronization
import Testing

@_spi(Backend) @testable import RunAnywhere

/// A backend built "for a GPU": it runs the deterministic LLM and records the accelerator
/// preference each load saw, and the decision its engine would take.
private final class GPUBuildModule: BackendModule {
    let name = "gpu-build"
    let loads = Mutex<[(preference: AcceleratorPreference, usesGPU: Bool)]>([])
    /// Where the deterministic LLM it runs comes from.
    private let engine: ServiceRegistry = {
        let registry = ServiceRegistry()
        DeterministicBackend().register(with: registry)
        return registry
    }()

    func register(with registry: ServiceRegistry) {
        registry.registerLLM(
            name: name,
            priority: 500,
            canHandle: { $0.category == .llm },
            factory: { model, configuration in
                let preference = registry.acceleratorPreference
                let usesGPU = try preference.usesGPU(engine: self.name, engineHasGPU: true)
                self.loads.withLock { $0.append((preference, usesGPU)) }
                return try await self.engine.llmProvider(for: model).factory(model, configuration)
            }
        )
    }

    func engineInfo() -> EngineInfo {
        EngineInfo(name: name, version: nil, available: true, gpuOffload: true)
    }
}

@Suite("Accelerator preference")
struct AcceleratorTests {
    @Test("The preference maps to the GPU only where the engine has one, and .gpu without one is a typed error")
    func mapping() throws {
        #expect(try AcceleratorPreference.auto.usesGPU(engine: "e", engineHasGPU: true))
        #expect(try !AcceleratorPreference.auto.usesGPU(engine: "e", engineHasGPU: false))
        #expect(try !AcceleratorPreference.cpu.usesGPU(engine: "e", engineHasGPU: true))
        #expect(try AcceleratorPreference.gpu.usesGPU(engine: "e", engineHasGPU: true))
        #expect(throws: SDKException.self) { try AcceleratorPreference.gpu.usesGPU(engine: "e", engineHasGPU: false) }
        do throws(SDKException) {
            _ = try AcceleratorPreference.gpu.usesGPU(engine: "llama.cpp", engineHasGPU: false)
        } catch {
            #expect(error.code == .acceleratorUnavailable)
            #expect(error.message.contains("llama.cpp"))
            #expect(error.category == .backend)
        }
    }

    @Test("With CPU-only engines .gpu is refused with the reason and the preference is unchanged; .cpu is taken")
    func cpuOnlyEngines() async throws {
        try await withDeterministicSDK { sdk in
            let hardware = sdk.hardware
            #expect(hardware.acceleratorPreference == .auto)
            let accelerators = hardware.getAccelerators()
            #expect(accelerators.first?.kind == .cpu)
            #expect(accelerators.first?.engines == ["deterministic"])
            #expect(!accelerators.contains { $0.kind == .gpu && $0.usable })
            // The seed's result carries the same accelerators beside the profile.
            let result = hardware.getProfile()
            #expect(result.accelerators == accelerators)
            #expect(result.accelerators.first?.name == result.profile.cpu)
            #expect(result.hasProfile && result.profile.cores > 0)
            let reason = try #require(hardware.gpuUnavailableReason)
            #expect(reason.contains("deterministic") && reason.contains("CPU-only"))
            do throws(SDKException) {
                try hardware.setAcceleratorPreference(.gpu)
                Issue.record(".gpu was accepted with CPU-only engines")
            } catch {
                #expect(error.code == .acceleratorUnavailable)
                #expect(error.message == reason)
                #expect(error.recoverySuggestion?.contains("README") == true)
            }
            #expect(hardware.acceleratorPreference == .auto)
            try hardware.setAcceleratorPreference(.cpu)
            #expect(sdk.hardware.acceleratorPreference == .cpu)
        }
    }

    @Test("An engine built for a GPU makes .gpu possible, and each load sees the preference set before it")
    func preferenceReachesTheEngine() async throws {
        let module = GPUBuildModule()
        try await withDeterministicSDK { sdk in
            sdk.register(module)
            let gpu = try #require(sdk.hardware.getAccelerators().first { $0.kind == .gpu })
            #expect(gpu.engines == ["gpu-build"])
            #expect(sdk.hardware.gpuUnavailableReason == nil)
            for preference in [AcceleratorPreference.gpu, .cpu, .auto] {
                try sdk.hardware.setAcceleratorPreference(preference)
                try await sdk.loadModel("test-llm")
                #expect(try await !sdk.generate("Hi", options: LLMGenerationOptions(maxTokens: 3)).text.isEmpty)
                // A loaded model stays where it is until it is loaded again.
                try await sdk.unloadModel()
            }
            let loads = module.loads.withLock { $0 }
            #expect(loads.map(\.preference) == [.gpu, .cpu, .auto])
            #expect(loads.map(\.usesGPU) == [true, false, true])
        }
    }

    @Test("A shut-down instance refuses a new preference")
    func shutDown() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-det-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let sdk = try RunAnywhereSDK(home: home, modules: [DeterministicBackend()])
        await sdk.shutdown()
        #expect(throws: SDKException.self) { try sdk.hardware.setAcceleratorPreference(.cpu) }
    }
}
