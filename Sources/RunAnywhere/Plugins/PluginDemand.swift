import Synchronization

/// What a lookup found no provider for: a plugin registered to open on first use may bring one.
enum PluginNeed: Sendable, Equatable {
    /// A model of this framework is to be loaded.
    case framework(InferenceFramework)
    /// A model file of this framework is to be inspected (import, download) or a folder of
    /// it recognized (discovery): only plugins that inspect it are opened, so an unrecognized
    /// folder in the store does not open an engine at every start.
    case inspection(InferenceFramework)
    /// A service that takes no model: ``systemTTS``, ``wakeWord``, ``ragStore``,
    /// ``telemetryQueue``, ``solutionParser`` or ``controlPlane``.
    case service(String)

    /// The system voice.
    static let systemTTS = PluginNeed.service("system-tts")
    /// A keyword spotter.
    static let wakeWord = PluginNeed.service("wake-word")
    /// The database of RAG indexes.
    static let ragStore = PluginNeed.service("rag-store")
    /// The on-disk queue of telemetry and error reports.
    static let telemetryQueue = PluginNeed.service("telemetry-queue")
    /// The reader of solutions' YAML.
    static let solutionParser = PluginNeed.service("solution-parser")
    /// The connection to a control plane, for phase 2 of initialization.
    static let controlPlane = PluginNeed.service("control-plane")
}

/// How an instance's service registry asks its closed plugins for what it lacks.
///
/// Lookups ask only after no registered provider could serve, so a plugin stays closed, and
/// its engine unmapped, while a linked backend or an open plugin does the work.
final class PluginDemand: Sendable {
    /// What asking for a need did.
    struct Outcome: Sendable {
        /// Whether a plugin serving the need is open now.
        var opened: Bool
        /// Why the plugins serving it that were tried could not be opened.
        var failures: [String] = []
    }

    private let handler = Mutex<(@Sendable (PluginNeed) -> Outcome)?>(nil)

    /// Sets what opens plugins.
    func set(_ handler: @escaping @Sendable (PluginNeed) -> Outcome) {
        self.handler.withLock { $0 = handler }
    }

    /// Opens the closed plugins that serve `need`; whether any is now open.
    func open(for need: PluginNeed) -> Bool {
        openReporting(need).opened
    }

    /// Opens the closed plugins that serve `need`, with the failures, for error messages.
    func openReporting(_ need: PluginNeed) -> Outcome {
        guard let handler = handler.withLock({ $0 }) else { return Outcome(opened: false) }
        return handler(need)
    }
}
