import Foundation
@_spi(Backend) import RunAnywhere

// A host with the RunAnywhere core and no engine backend linked: it runs the steps it is
// given in order, on one SDK instance, and prints one JSON object per step. The plugin tests
// run it; it is also a small way to try a plugin by hand.
//
//   runanywhere-plugin-host --home DIR STEP…
//     load PATH                 load a plugin
//     defer PATH                register a plugin to open on first use
//     describe PATH             the description its entry point gives (what build_plugins.sh
//                               writes into its manifest section)
//     mapped                    the shared libraries this process has mapped
//     unload NAME               unload a loaded plugin (its models first)
//     transcribe MODEL FILE     load a speech-recognition model and transcribe a WAV file
//     list                      the registered modules and the loaded plugins

struct StepReport: Encodable {
    var step: String
    var ok = true
    var errorCode: String?
    var error: String?
    var plugin: PluginInfo?
    var registeredNames: [String]?
    var plugins: [PluginInfo]?
    /// The service the plugin's factory made is the host's `STTService`: one core, one type.
    var serviceIsHostType: Bool?
    var serviceType: String?
    var transcript: String?
    var description: [String: String]?
    /// File names of the shared libraries mapped, from /proc/self/maps.
    var mappedLibraries: [String]?
}

/// What a plugin's entry point says with no registrar: read without registering anything.
func describe(_ path: String) throws(SDKException) -> [String: String] {
    typealias Entry = @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutablePointer<CChar>?
    guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
        throw SDKException(.invalidPlugin, "\(path): \(dlerror().map { String(cString: $0) } ?? "cannot be opened")")
    }
    guard let symbol = dlsym(handle, PluginLoader.entryPoint),
        let reply = unsafeBitCast(symbol, to: Entry.self)(nil)
    else { throw SDKException(.invalidPlugin, "\(path) gives no description") }
    defer { free(reply) }
    guard let object = try? JSONSerialization.jsonObject(with: Data(String(cString: reply).utf8)) as? [String: String]
    else { throw SDKException(.invalidPlugin, "\(path) gives a description that is not JSON") }
    return object
}

/// The file names of the shared libraries mapped into this process.
func mappedLibraries() -> [String] {
    // Read to the end: a /proc file reports size 0, so a read sized by stat stops early.
    let data = FileHandle(forReadingAtPath: "/proc/self/maps")?.readDataToEndOfFile() ?? Data()
    let maps = String(decoding: data, as: UTF8.self)
    let names = maps.split(separator: "\n").compactMap { line -> String? in
        guard let path = line.split(separator: " ", omittingEmptySubsequences: true).last, path.hasPrefix("/"),
            path.contains(".so")
        else { return nil }
        return String(path.split(separator: "/").last ?? "")
    }
    return Array(Set(names)).sorted()
}

func emit(_ report: StepReport) {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data = (try? encoder.encode(report)) ?? Data(#"{"ok":false}"#.utf8)
    FileHandle.standardOutput.write(data + Data("\n".utf8))
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2, arguments[0] == "--home" else {
    FileHandle.standardError.write(Data("usage: runanywhere-plugin-host --home DIR STEP…\n".utf8))
    exit(2)
}
let home = URL(fileURLWithPath: arguments[1], isDirectory: true)
arguments.removeFirst(2)
RunAnywhere.setLogLevel(ProcessInfo.processInfo.environment["RA_TEST_LOG"] == "debug" ? .debug : .error)

var failed = false
do {
    let sdk = try RunAnywhereSDK(home: home)
    while !arguments.isEmpty {
        let step = arguments.removeFirst()
        var report = StepReport(step: step)
        func operand() throws(SDKException) -> String {
            guard !arguments.isEmpty else { throw SDKException(.invalidInput, "\(step) needs an operand") }
            return arguments.removeFirst()
        }
        do {
            switch step {
            case "load":
                report.plugin = try sdk.pluginLoader.load(path: try operand())
            case "defer":
                report.plugin = try sdk.pluginLoader.load(path: try operand(), opening: .onFirstUse)
            case "describe":
                report.description = try describe(try operand())
            case "mapped":
                report.mappedLibraries = mappedLibraries()
            case "unload":
                try await sdk.pluginLoader.unload(name: try operand())
            case "transcribe":
                let model = try sdk.model(try operand())
                let file = URL(fileURLWithPath: try operand())
                // The factory's product, cast to the host's protocol: a second core would fail this.
                let service: Any = try await sdk.serviceRegistry.sttProvider(for: model).factory(model)
                report.serviceIsHostType = service is any STTService
                report.serviceType = String(reflecting: type(of: service))
                try await sdk.loadSTTModel(model.id)
                report.transcript = try await sdk.transcribe(try WAVFile.read(contentsOf: file)).text
            case "list":
                break
            default:
                throw SDKException(.invalidInput, "unknown step \(step)")
            }
        } catch {
            report.ok = false
            report.errorCode = (error as? SDKException)?.code.rawValue
            report.error = "\(error)"
            failed = true
        }
        report.registeredNames = sdk.pluginLoader.registeredNames()
        report.plugins = sdk.pluginLoader.listLoaded()
        emit(report)
    }
    await sdk.shutdown()
} catch {
    emit(StepReport(step: "initialize", ok: false, error: "\(error)"))
    failed = true
}
exit(failed ? 1 : 0)
