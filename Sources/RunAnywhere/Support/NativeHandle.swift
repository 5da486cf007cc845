/// An engine's C handle, passed between a backend's actor and its ``WorkerThread``.
///
/// C handles are not `Sendable`. Backends dereference each one only on the engine's own
/// worker thread, which is what makes this wrapper's `@unchecked Sendable` true.
package final class NativeHandle: @unchecked Sendable {
    /// The handle.
    package let pointer: OpaquePointer

    package init(_ pointer: OpaquePointer) {
        self.pointer = pointer
    }
}
