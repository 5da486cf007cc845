import Foundation
import Testing

@_spi(Backend) @testable import RunAnywhere

#if canImport(Glibc)
import Glibc
#endif

/// A fresh folder (0755) under the temporary folder, removed afterwards.
private func withFolder<T>(_ body: (URL) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ra-trust-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    #expect(chmod(folder.path, 0o755) == 0)
    defer {
        _ = chmod(folder.path, 0o755)
        try? FileManager.default.removeItem(at: folder)
    }
    return try await body(folder)
}

/// Expects `body` to throw `.insecurePermissions` with a message naming `place`.
private func expectRefused(
    naming place: String,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) {
    do {
        try body()
        Issue.record("not refused", sourceLocation: sourceLocation)
    } catch let error as SDKException {
        #expect(error.code == .insecurePermissions, "\(error)", sourceLocation: sourceLocation)
        #expect(error.message.contains(place), "\(error.message)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("\(error)", sourceLocation: sourceLocation)
    }
}

@Suite("Code is loaded only from files other users cannot change")
struct TrustedCodeFileTests {
    @Test("A file only its owner can write, in folders only their owners can write, is accepted with links resolved")
    func ownFileAccepted() async throws {
        try await withFolder { folder in
            let file = folder.appendingPathComponent("libplugin.so")
            try Data("x".utf8).write(to: file)
            #expect(chmod(file.path, 0o755) == 0)
            let link = folder.appendingPathComponent("link.so")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
            let resolved = try TrustedCodeFile.check(link.path, what: "The plugin")
            #expect(resolved == (try TrustedCodeFile.check(file.path, what: "The plugin")))
            #expect(resolved.hasSuffix("/libplugin.so"))
        }
    }

    @Test(
        "A file that others can write, or that sits in a folder they can write, is refused naming what they can write"
    )
    func writableRefused() async throws {
        try await withFolder { folder in
            let file = folder.appendingPathComponent("libplugin.so")
            try Data("x".utf8).write(to: file)
            for mode: mode_t in [0o666, 0o646, 0o664] {
                #expect(chmod(file.path, mode) == 0)
                expectRefused(naming: "the file can be written by other users") {
                    try TrustedCodeFile.check(file.path, what: "The plugin")
                }
            }
            #expect(chmod(file.path, 0o644) == 0)
            for mode: mode_t in [0o777, 0o775] {
                #expect(chmod(folder.path, mode) == 0)
                expectRefused(naming: "its folder \(folder.resolvingSymlinksInPath().path) can be written") {
                    try TrustedCodeFile.check(file.path, what: "The plugin")
                }
            }
            // A link in a safe folder to a file in an unsafe one: the file's real place counts.
            #expect(chmod(folder.path, 0o777) == 0)
            try await withFolder { safe in
                let link = safe.appendingPathComponent("libplugin.so")
                try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
                expectRefused(naming: "can be written by other users") {
                    try TrustedCodeFile.check(link.path, what: "The plugin")
                }
            }
        }
    }

    @Test("A folder others can write but with the sticky bit, as /tmp, is accepted above a folder of ours")
    func stickyFolderAccepted() async throws {
        try await withFolder { folder in
            #expect(chmod(folder.path, 0o1777) == 0)
            let inner = folder.appendingPathComponent("mine")
            try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: false)
            #expect(chmod(inner.path, 0o755) == 0)
            let file = inner.appendingPathComponent("libplugin.so")
            try Data("x".utf8).write(to: file)
            #expect(chmod(file.path, 0o644) == 0)
            #expect(throws: Never.self) { try TrustedCodeFile.check(file.path, what: "The plugin") }
        }
    }

    @Test("A file owned by another user is refused (checked when the tests run as root)")
    func otherOwnerRefused() async throws {
        guard geteuid() == 0 else { return }
        try await withFolder { folder in
            let file = folder.appendingPathComponent("libplugin.so")
            try Data("x".utf8).write(to: file)
            #expect(chown(file.path, 4242, 4242) == 0)
            expectRefused(naming: "is owned by user 4242") { try TrustedCodeFile.check(file.path, what: "The plugin") }
        }
    }

    @Test("A folder, a device or a missing path is not code to run")
    func notAFile() async throws {
        try await withFolder { folder in
            expectRefused(naming: "is not a regular file") {
                try TrustedCodeFile.check(folder.path, what: "The plugin")
            }
            expectRefused(naming: "is not a regular file") {
                try TrustedCodeFile.check("/dev/null", what: "The plugin")
            }
            #expect {
                try TrustedCodeFile.check(folder.appendingPathComponent("absent.so").path, what: "The plugin")
            } throws: { ($0 as? SDKException)?.code == .fileSystemError }
        }
    }

    @Test("The plugin loader refuses a plugin others could change before any of its code runs")
    func pluginLoaderChecksBeforeOpening() async throws {
        try await withFolder { folder in
            let home = folder.appendingPathComponent("home")
            let sdk = try RunAnywhereSDK(home: home, environment: .development, modules: [])
            // A real shared library exporting the plugin entry point, which describes itself as
            // nothing usable: opened, it is refused for what it says.
            let source = folder.appendingPathComponent("plugin.c")
            let library = folder.appendingPathComponent("libplugin.so")
            try #"const void *rac_plugin_entry(void) { return 0; }"#.write(
                to: source,
                atomically: true,
                encoding: .utf8
            )
            let cc = Process()
            cc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            cc.arguments = ["cc", "-shared", "-fPIC", "-o", library.path, source.path]
            try cc.run()
            cc.waitUntilExit()
            try #require(cc.terminationStatus == 0)
            #expect(chmod(library.path, 0o755) == 0)
            // From a trusted folder it is opened, and its entry point's empty answer refused.
            #expect { try sdk.pluginLoader.load(path: library.path) } throws: {
                ($0 as? SDKException)?.code == .invalidPlugin
                    && ($0 as? SDKException)?.message.contains("returned no description") == true
            }
            // From a folder anyone can write, it is refused before it is opened.
            #expect(chmod(folder.path, 0o777) == 0)
            #expect { try sdk.pluginLoader.load(path: library.path) } throws: {
                ($0 as? SDKException)?.code == .insecurePermissions
            }
            #expect(chmod(folder.path, 0o755) == 0)
            #expect(sdk.pluginLoader.registeredNames().isEmpty)
            await sdk.shutdown()
        }
    }
}
