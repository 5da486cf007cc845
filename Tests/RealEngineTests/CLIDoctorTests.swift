import Foundation
import Testing

@_spi(Backend) @testable import RunAnywhere

extension RealEngineTests {
    @Suite("The CLI's doctor")
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
    }
}
