import Foundation
import RealEngineTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

extension RealEngineTests {
    @Suite("The CLI's doctor", .tags(.cli))
    struct CLIDoctorTests {
        @Test("doctor --json reports the hardware profile: cpu, cores, memory and gpu")
        func doctorHardware() throws {
            try #require(FileManager.default.isExecutableFile(atPath: cliBinary.path), "build the CLI first")
            let home = FileManager.default.temporaryDirectory.appendingPathComponent(
                "ra-cli-doctor-\(UUID().uuidString)"
            )
            defer { try? FileManager.default.removeItem(at: home) }
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            let run = try cli(["doctor", "--json", "--home", home.path])
            try #require(run.status == 0, "\(run.err)")
            let hardware = try #require(try JSONValue(parsing: run.out)["hardware"], "\(run.out)")
            let expected = HardwareProfile.current(diskPath: home)
            #expect(hardware["cpu"]?.stringValue == expected.cpu)
            #expect(hardware["cores"]?.integerValue == Int64(expected.cores))
            #expect(hardware["memory_total_bytes"]?.integerValue == expected.memoryTotalBytes)
            let available = try #require(hardware["memory_available_bytes"]?.integerValue)
            #expect(available > 0 && available <= expected.memoryTotalBytes)
            guard case .array(let gpus) = hardware["gpus"] else {
                Issue.record("no gpus array in \(run.out)")
                return
            }
            #expect(gpus.count == expected.gpus.count)
            #expect(hardware["gpu"] == (gpus.first ?? .null))
            #expect(hardware["simd_features"] == .array(expected.simdFeatures.map(JSONValue.string)))
        }

        @Test("doctor explains why the GPU is unavailable, and --accelerator gpu is a typed error while cpu runs")
        func accelerators() async throws {
            try #require(FileManager.default.isExecutableFile(atPath: cliBinary.path), "build the CLI first")
            let home = FileManager.default.temporaryDirectory.appendingPathComponent(
                "ra-cli-doctor-\(UUID().uuidString)"
            )
            defer { try? FileManager.default.removeItem(at: home) }
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            let doctor = try cli(["doctor", "--json", "--home", home.path])
            try #require(doctor.status == 0, "\(doctor.err)")
            let report = try JSONValue(parsing: doctor.out)
            #expect(report["accelerator_preference"]?.stringValue == "auto")
            guard case .array(let accelerators) = report["accelerators"] else {
                Issue.record("no accelerators in \(doctor.out)")
                return
            }
            #expect(accelerators.first?["kind"]?.stringValue == "cpu")
            let reason = try #require(report["gpu_unavailable_reason"]?.stringValue)
            #expect(reason.contains("CPU-only"), "\(reason)")
            let text = try cli(["doctor", "--home", home.path])
            #expect(text.out.contains("gpu:    unavailable: \(reason)"), "\(text.out)")

            var model = try DefaultModels.llm()
            model.lastUsedAt = nil
            let sdk = try RunAnywhereSDK(home: home)
            try sdk.registerModel(model)
            await sdk.shutdown()
            let generate = [
                "generate", "--home", home.path, "--model", model.id, "--prompt", "Hi", "--max-tokens", "3",
            ]
            let refused = try cli(generate + ["--accelerator", "gpu"])
            #expect(refused.status == 1)
            #expect(refused.out.isEmpty)
            #expect(refused.err.contains("[accelerator_unavailable]"), "\(refused.err)")
            let ran = try cli(generate + ["--accelerator", "cpu", "--json"])
            #expect(ran.status == 0, "\(ran.err)")
            #expect(try JSONValue(parsing: ran.out)["tokens_generated"]?.integerValue ?? 0 > 0, "\(ran.out)")
        }
    }
}
