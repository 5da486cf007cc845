import Synchronization

/// What a lookup found no provider for: a plugin registered to open on first use may bring one.
enum PluginNeed: Sendable, Equatable {
    /// A model of this framework is to be loaded, inspected or discovered.
    case framework(InferenceFramework)
    /// A service that takes no model: ``systemTTS`` or ``wakeWord``.
    case service(String)

    /// The system voice.
    static let systemTTS = PluginNeed.service("system-tts")
    /// A keyword spotter.
    static let wakeWord = PluginNeed.service("wake-word")
}

/// How an instance's service registry asks its closed plugins for what it lacks.
///
/// Lookups ask only after no registered provider could serve, so a plugin stays closed, and
/// its engine unmapped, while a linked backend or an open plugin does the work.
final class PluginDemand: Sendable {
    private let handler = Mutex<(@Sendable (PluginNeed) -> Bool)?>(nil)

    /// Sets what opens plugins: it returns whether a plugin serving the need is now open.
    func set(_ handler: @escaping @Sendable (PluginNeed) -> Bool) {
        self.handler.withLock { $0 = handler }
    }

    /// Opens the closed plugins that serve `need`; whether any is now open.
    func open(for need: PluginNeed) -> Bool {
        guard let handler = handler.withLock({ $0 }) else { return false }
        return handler(need)
    }
}
