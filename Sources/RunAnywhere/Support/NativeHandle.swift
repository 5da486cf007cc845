/// An engine's C handle, passed between a backend's actor and its ``WorkerThread``.
///
/// C handles are not `Sendable`. Backends dereference each one only on the engine's own
/// worker thread, which is what makes this wrapper's `@unchecked Sendable` true.
public final class NativeHandle: @unchecked Sendable {
    /// The handle.
    public let pointer: OpaquePointer

    public init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }
}
