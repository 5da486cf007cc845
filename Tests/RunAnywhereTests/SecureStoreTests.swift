import Foundation
import RunAnywhereTestSupport
import Testing

@_spi(Backend) @testable import RunAnywhere

@Suite("Secure store")
struct SecureStoreTests {
    /// A fresh folder for a store, removed afterwards.
    static func withFolder<T>(_ body: (URL) async throws -> T) async throws -> T {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("ra-secure-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: parent) }
        return try await body(parent.appendingPathComponent("secure"))
    }

    static func mode(_ url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test("Secrets round-trip, sealed in 0600 files of a 0700 folder, with no plain text on disk")
    func roundTrip() async throws {
        try await Self.withFolder { folder in
            let store = try SecureStore(directory: folder)
            #expect(try store.string(for: "api-key") == nil)
            try store.set("sk-live-0123456789", for: "api-key")
            try store.setData(Data([0, 1, 2, 255]), for: "token.refresh")
            #expect(try store.string(for: "api-key") == "sk-live-0123456789")
            #expect(try store.data(for: "token.refresh") == Data([0, 1, 2, 255]))
            try store.set("sk-live-new", for: "api-key")
            #expect(try store.string(for: "api-key") == "sk-live-new")
            #expect(try store.names() == ["api-key", "token.refresh"])

            #expect(try Self.mode(folder) == 0o700)
            #expect(try Self.mode(folder.appendingPathComponent(".key")) == 0o600)
            let file = folder.appendingPathComponent("api-key.secret")
            #expect(try Self.mode(file) == 0o600)
            let raw = try Data(contentsOf: file)
            #expect(raw.range(of: Data("sk-live".utf8)) == nil)

            // Another store on the same folder reads what this one wrote.
            #expect(try SecureStore(directory: folder).string(for: "api-key") == "sk-live-new")
            #expect(try store.delete("api-key"))
            #expect(try !store.delete("api-key"))
            #expect(try store.string(for: "api-key") == nil)
            #expect(try store.names() == ["token.refresh"])
        }
    }

    @Test("A sealed file that was edited, cut short, replaced or renamed is refused as tampered")
    func tampering() async throws {
        try await Self.withFolder { folder in
            let store = try SecureStore(directory: folder)
            try store.set("hunter2", for: "password")
            try store.set("other", for: "other")
            let file = folder.appendingPathComponent("password.secret")
            let sealed = try Data(contentsOf: file)

            var flipped = sealed
            flipped[flipped.count - 20] ^= 0x01
            try flipped.write(to: file)
            await expectCode(.secretTampered) { _ = try store.string(for: "password") }

            try sealed.prefix(sealed.count - 5).write(to: file)
            await expectCode(.secretTampered) { _ = try store.string(for: "password") }

            try Data("plain text".utf8).write(to: file)
            await expectCode(.secretTampered) { _ = try store.string(for: "password") }

            // A valid file under another name: the name is authenticated with the value.
            try FileManager.default.removeItem(at: file)
            try FileManager.default.copyItem(at: folder.appendingPathComponent("other.secret"), to: file)
            await expectCode(.secretTampered) { _ = try store.string(for: "password") }

            // The untouched secret still reads.
            #expect(try store.string(for: "other") == "other")
        }
    }

    @Test("A secret sealed under another key is told apart from tampering, and left as it was")
    func wrongKey() async throws {
        try await Self.withFolder { folder in
            let store = try SecureStore(directory: folder)
            try store.set("value", for: "name")
            let before = try Data(contentsOf: folder.appendingPathComponent("name.secret"))
            let other = try SecureStore(directory: folder, key: .bytes(Data(repeating: 7, count: 32)))
            await expectCode(.secretKeyMismatch) { _ = try other.string(for: "name") }
            #expect(try Data(contentsOf: folder.appendingPathComponent("name.secret")) == before)
            #expect(try store.string(for: "name") == "value")
        }
    }

    @Test("A folder or key file others can open is refused, as is a key file that is a link")
    func insecurePermissions() async throws {
        try await Self.withFolder { folder in
            let store = try SecureStore(directory: folder)
            try store.set("value", for: "name")
            chmod(folder.path, 0o755)
            await expectCode(.insecurePermissions) { _ = try SecureStore(directory: folder) }
            chmod(folder.path, 0o700)
            let key = folder.appendingPathComponent(".key")
            chmod(key.path, 0o644)
            await expectCode(.insecurePermissions) { _ = try SecureStore(directory: folder) }
            chmod(key.path, 0o600)
            #expect(try SecureStore(directory: folder).string(for: "name") == "value")

            let elsewhere = folder.deletingLastPathComponent().appendingPathComponent("key-target")
            try Data(repeating: 1, count: 32).write(to: elsewhere)
            chmod(elsewhere.path, 0o600)
            let linked = folder.deletingLastPathComponent().appendingPathComponent("linked.key")
            try FileManager.default.createSymbolicLink(at: linked, withDestinationURL: elsewhere)
            await expectCode(.insecurePermissions) { _ = try SecureStore(directory: folder, key: .keyFile(linked)) }
        }
    }

    @Test("Bad names and bad keys are typed errors that write nothing")
    func badInput() async throws {
        try await Self.withFolder { folder in
            let store = try SecureStore(directory: folder)
            for name in [
                "", "../escape", ".hidden", "a/b", "-dash", "tab\there", "é", String(repeating: "a", count: 129),
            ] {
                await expectCode(.invalidInput) { try store.set("v", for: name) }
                await expectCode(.invalidInput) { _ = try store.string(for: name) }
            }
            #expect(try store.names().isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == [".key"])

            func keyed(_ variables: [String: String], _ key: SecureStore.KeySource) throws -> SecureStore {
                try SecureStore(directory: folder, key: key, environment: variables)
            }
            let name = "APP_SECURE_KEY"
            await expectCode(.invalidConfiguration) { _ = try keyed([:], .environment(name)) }
            await expectCode(.invalidConfiguration) { _ = try keyed([name: "not base64!"], .environment(name)) }
            let short = Data(repeating: 1, count: 16).base64EncodedString()
            await expectCode(.invalidConfiguration) { _ = try keyed([name: short], .environment(name)) }
            let key = Data(repeating: 1, count: 32)
            try keyed([name: key.base64EncodedString()], .environment(name)).set("v", for: "env")
            #expect(try keyed([:], .bytes(key)).string(for: "env") == "v")
            // .automatic prefers the SDK's variable to the key file.
            let automatic = [SecureStore.keyEnvironmentVariable: key.base64EncodedString()]
            #expect(try keyed(automatic, .automatic).string(for: "env") == "v")
            await expectCode(.secretKeyMismatch) { _ = try keyed([:], .automatic).string(for: "env") }
            await expectCode(.invalidConfiguration) {
                _ = try SecureStore(directory: folder, key: .bytes(Data(count: 31)))
            }

            let shortKey = folder.deletingLastPathComponent().appendingPathComponent("short.key")
            try Data(count: 8).write(to: shortKey)
            chmod(shortKey.path, 0o600)
            await expectCode(.invalidConfiguration) { _ = try SecureStore(directory: folder, key: .keyFile(shortKey)) }
        }
    }

    @Test("Concurrent writers and first users leave whole values, one key and no temporary files")
    func concurrentWriters() async throws {
        try await Self.withFolder { folder in
            // Stores made at once on a fresh folder all make (or take) the same key.
            let stores = try await withThrowingTaskGroup(of: SecureStore.self) { group in
                for _ in 0..<8 { group.addTask { try SecureStore(directory: folder) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let values = (0..<8).map { writer in String(repeating: Character("\(writer)"), count: 1000 + writer) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (writer, store) in stores.enumerated() {
                    group.addTask {
                        for round in 0..<40 {
                            try store.set(values[writer], for: "shared")
                            try store.set("\(writer)-\(round)", for: "own-\(writer)")
                            if let read = try store.string(for: "shared") {
                                #expect(values.contains(read), "a torn value of \(read.count) bytes")
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let reader = try SecureStore(directory: folder)
            #expect(values.contains(try #require(try reader.string(for: "shared"))))
            for writer in 0..<8 { #expect(try reader.string(for: "own-\(writer)") == "\(writer)-39") }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
                $0.hasPrefix(".tmp")
            }
            #expect(leftovers.isEmpty)

            // Of racing setIfAbsent calls exactly one value wins and every caller gets it.
            let winners = try await withThrowingTaskGroup(of: String.self) { group in
                for (writer, store) in stores.enumerated() {
                    group.addTask { try store.setIfAbsent("candidate-\(writer)", for: "once") }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(winners.count == 1)
            #expect(try reader.string(for: "once") == winners.first)
        }
    }

    @Test("The device id is made once, kept in the secure store and never in the registry")
    func deviceId() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("ra-device-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let first = try RunAnywhereSDK(home: home, environment: .development)
        let id = try first.deviceId
        #expect(UUID(uuidString: id) != nil)
        #expect(try first.deviceId == id)
        await first.shutdown()
        let second = try RunAnywhereSDK(home: home, environment: .development)
        #expect(try second.deviceId == id)
        #expect(try second.secureStore().names().contains("device-id"))
        let registry = (try? String(contentsOf: second.paths.registryFile, encoding: .utf8)) ?? ""
        #expect(!registry.contains(id))
        await second.shutdown()
    }
}
