import Synchronization

/// Where the SDK's warning and error lines go besides the log, whatever the local log level:
/// remote error reporting (`RunAnywhereControlPlane`) installs itself here while it is on.
package enum LogTap {
    /// What receives a line: its level, logger (category), text and source (`file:line`).
    package typealias Receiver = @Sendable (LogLevel, String, String, String) -> Void

    private static let receiver = Mutex<Receiver?>(nil)
    private static let active = Atomic<Bool>(false)

    /// Whether a receiver is installed; cheap, so loggers can skip building a line.
    package static var isActive: Bool { active.load(ordering: .relaxed) }

    /// Installs `receiver` in place of any other, or removes it with `nil`.
    package static func install(_ newReceiver: Receiver?) {
        receiver.withLock { $0 = newReceiver }
        active.store(newReceiver != nil, ordering: .relaxed)
    }

    /// Hands a line to the receiver, if any.
    package static func forward(level: LogLevel, logger: String, message: String, source: String) {
        guard let receiver = receiver.withLock({ $0 }) else { return }
        receiver(level, logger, message, source)
    }
}
