#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A detached POSIX thread, for work that blocks (engines, transfers, hashing).
///
/// Foundation's `Thread` does the same, but on Linux it lives in full Foundation
/// (`libFoundation.so`), and its first use there runs CoreFoundation's dictionary, string
/// and run-loop machinery: about a megabyte of pages that a generation otherwise never
/// touches (`runanywhere bench startup`).
enum NativeThread {
    /// What the new thread runs, handed over through `pthread_create`'s context pointer.
    private final class Start {
        let name: String
        let body: () -> Void

        init(name: String, body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts `body` on a new detached thread named `name` (cut to the 15 bytes Linux keeps).
    ///
    /// - Parameter stackSize: bytes of stack; the system's default when it refuses the size.
    /// - Throws: `.internalError` when the system starts no thread (`EAGAIN`: too many).
    static func detach(
        name: String,
        stackSize: Int = 8 << 20,
        _ body: @escaping @Sendable () -> Void
    )
        throws(SDKException)
    {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        // EINVAL (below PTHREAD_STACK_MIN) leaves the system's default stack.
        _ = pthread_attr_setstacksize(&attributes, stackSize)
        let context = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        let result = pthread_create(&thread, &attributes, { NativeThread.enter($0) }, context)
        guard result == 0 else {
            Unmanaged<Start>.fromOpaque(context).release()
            throw SDKException(
                .internalError,
                "Could not start the thread \(name): \(String(cString: strerror(result)))"
            )
        }
    }

    private static func enter(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
        guard let context else { return nil }
        let start = Unmanaged<Start>.fromOpaque(context).takeRetainedValue()
        setCurrentName(start.name)
        start.body()
        return nil
    }

    /// Names the calling thread (for `top -H`, gdb and crash reports); a name longer than the
    /// system keeps is cut at a character boundary.
    private static func setCurrentName(_ name: String) {
        var short = ""
        for character in name {
            guard short.utf8.count + character.utf8.count <= 15 else { break }
            short.append(character)
        }
        #if canImport(Darwin)
        _ = pthread_setname_np(short)
        #else
        // What glibc's pthread_setname_np does; the Glibc module leaves that GNU extension out.
        let descriptor = open("/proc/thread-self/comm", O_WRONLY)
        guard descriptor >= 0 else { return }
        _ = short.withCString { write(descriptor, $0, strlen($0)) }
        close(descriptor)
        #endif
    }
}
