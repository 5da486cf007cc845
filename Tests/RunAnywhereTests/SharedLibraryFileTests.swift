import Foundation
import Testing

@testable import RunAnywhere

#if os(Linux)
@Suite("Plugin files checked from their ELF headers")
struct SharedLibraryFileTests {
    /// A shared library compiled from `source` with the C compiler, its symbols hashed in `style`.
    private func library(_ source: String, hashStyle style: String, in folder: URL) throws -> URL {
        let file = folder.appendingPathComponent("lib-\(style)-\(UUID().uuidString).so")
        let code = folder.appendingPathComponent("\(UUID().uuidString).c")
        try source.write(to: code, atomically: true, encoding: .utf8)
        let outcome = try ChildProcess(
            executable: "/usr/bin/cc",
            arguments: ["-shared", "-fPIC", "-Wl,--hash-style=\(style)", "-o", file.path, code.path]
        ).run()
        try #require(outcome.succeeded, "cc: \(outcome.errorText)")
        return file
    }

    @Test("The entry point is found through the GNU hash table and without one; a library lacking it is refused")
    func entryPointLookup() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ra-elf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // Many other exports, so the lookup must walk buckets and chains, not stumble on the name.
        let others = (0..<500).map { "int exported_\($0)(void) { return \($0); }" }.joined(separator: "\n")
        let plugin = others + "\nchar *runanywhere_plugin_entry(void *registrar) { return 0; }\n"
        let imports =
            others
            + "\nextern char *runanywhere_plugin_entry(void *);\nvoid *use(void) { return runanywhere_plugin_entry; }\n"
        for style in ["gnu", "sysv"] {
            let withEntry = try library(plugin, hashStyle: style, in: folder)
            #expect(try SharedLibraryFile.check(withEntry, entryPoint: "runanywhere_plugin_entry") == nil)
            // Importing the name is not defining it.
            let importing = try library(imports, hashStyle: style, in: folder)
            let refused = #expect(throws: SDKException.self) {
                try SharedLibraryFile.check(importing, entryPoint: "runanywhere_plugin_entry")
            }
            #expect(refused?.code == .invalidPlugin && refused?.message.contains("does not define") == true)
            #expect(throws: SDKException.self) {
                try SharedLibraryFile.check(withEntry, entryPoint: "runanywhere_plugin_entry_not_there")
            }
        }
    }

    @Test("A description section of megabytes is refused before it is copied or parsed; a real one is read")
    func oversizedDescription() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ra-elf-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let plugin = try library(
            "char *runanywhere_plugin_entry(void *registrar) { return 0; }\n",
            hashStyle: "gnu",
            in: folder
        )
        func withSection(_ contents: Data) throws -> URL {
            let section = folder.appendingPathComponent("\(UUID().uuidString).json")
            try contents.write(to: section)
            let copy = folder.appendingPathComponent("lib\(UUID().uuidString).so")
            let outcome = try ChildProcess(
                executable: "/usr/bin/objcopy",
                arguments: [
                    "--add-section", "\(SharedLibraryFile.manifestSection)=\(section.path)", plugin.path, copy.path,
                ]
            ).run()
            try #require(outcome.succeeded, "objcopy: \(outcome.errorText)")
            return copy
        }
        let small = Data(#"{"api_version":"1","name":"x"}"#.utf8)
        #expect(try SharedLibraryFile.check(try withSection(small), entryPoint: "runanywhere_plugin_entry") == small)
        // 8 MiB of `[0,0,…`: as a JSON tree it would be many times that.
        let huge = Data("[".utf8) + Data(repeating: UInt8(ascii: "0"), count: 8 << 20)
        let refused = #expect(throws: SDKException.self) {
            try SharedLibraryFile.check(try withSection(huge), entryPoint: "runanywhere_plugin_entry")
        }
        #expect(
            refused?.code == .invalidPlugin && refused?.message.contains("section has") == true,
            "\(String(describing: refused))"
        )
    }
}
#endif
