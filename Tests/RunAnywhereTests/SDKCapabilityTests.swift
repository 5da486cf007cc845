import Foundation
import RunAnywhere
import RunAnywhereTestSupport
import Testing

@testable import RunAnywhereTesting

@Suite("What the build can do")
struct SDKCapabilityTests {
    @Test(
        "Capabilities follow the registered modules: none without one, each with its engine, and what is still missing said"
    )
    func followModules() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: home) }
        let bare = try RunAnywhereSDK(home: home.appendingPathComponent("bare"), modules: [])
        let nothing = bare.capabilities()
        #expect(nothing.map(\.kind) == SDKCapability.Kind.allCases)
        #expect(nothing.allSatisfy { !$0.available && $0.providers.isEmpty && $0.reason != nil })
        let voice = try #require(nothing.first { $0.kind == .voiceAgent })
        #expect(
            voice.reason == "it needs speech recognition, text generation, speech synthesis, voice activity detection"
        )

        let sdk = try RunAnywhereSDK(home: home.appendingPathComponent("full"), modules: [DeterministicBackend()])
        let all = Dictionary(uniqueKeysWithValues: sdk.capabilities().map { ($0.kind, $0) })
        for kind in SDKCapability.Kind.allCases where kind != .wakeWord {
            #expect(all[kind]?.available == true, "\(kind)")
            #expect(all[kind]?.providers == ["deterministic"], "\(kind)")
        }
        // The test backend spots no keywords.
        #expect(all[.wakeWord]?.available == false)
        #expect(all[.wakeWord]?.reason == "no registered module offers wake word")
    }
}
