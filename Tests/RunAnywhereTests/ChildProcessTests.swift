import Foundation
import Synchronization
import Testing

@testable import RunAnywhere

#if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS))
@Suite("Child processes", .timeLimit(.minutes(1)))
struct ChildProcessTests {
    @Test("A child's input reaches it, and its output, error output and exit status come back")
    func roundTrip() throws {
        let outcome = try ChildProcess(
            executable: "/bin/sh",
            arguments: ["-c", "cat; echo err >&2; exit 3"],
            input: .bytes(Array("hello".utf8))
        ).run()
        #expect(outcome.termination == .exited(3))
        #expect(outcome.outputText == "hello")
        #expect(outcome.errorText == "err")
        #expect(!outcome.timedOut && !outcome.stopped && !outcome.succeeded)
    }

    @Test("Both streams are read as they come, and what passes the limit is read and dropped")
    func largeOutput() throws {
        let script = "head -c 300000 /dev/zero; head -c 300000 /dev/zero >&2; echo done >&2"
        let whole = try ChildProcess(executable: "/bin/sh", arguments: ["-c", script]).run()
        #expect(whole.succeeded)
        #expect(whole.output.count == 300_000 && whole.errors.count == 300_005)
        let cut = try ChildProcess(executable: "/bin/sh", arguments: ["-c", script], outputLimit: 1000).run()
        #expect(cut.succeeded)
        #expect(cut.output.count == 1000 && cut.errors.count == 1000)
    }

    @Test("The environment is the one given, and input nobody reads does no harm")
    func environmentAndUnreadInput() throws {
        let outcome = try ChildProcess(
            executable: "/usr/bin/env",
            environment: ["ONLY": "this"],
            input: .bytes(Array(repeating: 65, count: 1_000_000))
        ).run()
        #expect(outcome.succeeded)
        #expect(outcome.outputText == "ONLY=this")
    }

    @Test("A signal that ends the child is reported, and a program that is not there does not start")
    func signalsAndMissingPrograms() throws {
        let killed = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "kill -KILL $$"]).run()
        #expect(killed.termination == .signaled(SIGKILL))
        #expect(throws: POSIXError(.ENOENT)) { try ChildProcess(executable: "/nonexistent/program").run() }
    }

    @Test("A timeout ends the child and its group, SIGKILL after the grace period when SIGTERM is ignored")
    func timeout() throws {
        let outcome = try ChildProcess(
            executable: "/bin/sh",
            arguments: ["-c", "trap '' TERM; sleep 30 & sleep 30"],
            // Long enough that the shell has set its trap, however busy the machine: a SIGTERM
            // before it would end the child without the SIGKILL this test is about.
            timeout: .seconds(2),
            gracePeriod: .milliseconds(200),
            ownProcessGroup: true
        ).run()
        #expect(outcome.timedOut && !outcome.stopped)
        #expect(outcome.termination == .signaled(SIGKILL))
    }

    @Test("A stopper ends a running child, and one asked before the start ends it as it starts")
    func stopper() async throws {
        let (started, starting) = AsyncStream.makeStream(of: Void.self)
        let stopper = ChildProcess.Stopper(started: { starting.yield() })
        let run = Task.detached { try ChildProcess(executable: "/bin/sleep", arguments: ["30"]).run(stopper: stopper) }
        for await _ in started { break }
        stopper.stop()
        let outcome = try await run.value
        #expect(outcome.stopped && !outcome.timedOut)
        #expect(outcome.termination == .signaled(SIGTERM))

        let early = ChildProcess.Stopper()
        early.stop()
        let stoppedEarly = try ChildProcess(executable: "/bin/sleep", arguments: ["30"]).run(stopper: early)
        #expect(stoppedEarly.stopped && stoppedEarly.termination == .signaled(SIGTERM))
    }

    #if os(Linux)
    @Test("A run closes only its own descriptors: files another thread opens meanwhile stay open")
    func closesOnlyItsOwnDescriptors() throws {
        // A second close of a stream's number, after the loop closed it at its end, would hit
        // whatever file the other thread had just opened under that number.
        let running = Atomic<Bool>(true)
        let lost = Atomic<Int>(0)
        let checked = Atomic<Int>(0)
        let opener = Thread {
            while running.load(ordering: .acquiring) {
                let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else { continue }
                var status = stat()
                for _ in 0..<50 {
                    if fstat(descriptor, &status) != 0 {
                        lost.add(1, ordering: .relaxed)
                        break
                    }
                }
                checked.add(1, ordering: .relaxed)
                if fcntl(descriptor, F_GETFD) >= 0 { close(descriptor) }
            }
        }
        opener.start()
        var runs = 0
        while runs < 200 || checked.load(ordering: .relaxed) < 1000 {
            let outcome = try ChildProcess(executable: "/bin/sh", arguments: ["-c", "echo out; echo err >&2"]).run()
            #expect(outcome.outputText == "out")
            runs += 1
        }
        running.store(false, ordering: .releasing)
        #expect(lost.load(ordering: .relaxed) == 0)
    }

    @Test("The child starts with no signal ignored or blocked, whatever this process ignores")
    func signalDefaults() throws {
        // Servers and the Swift runtime ignore SIGPIPE; a child must not inherit that.
        signal(SIGPIPE, SIG_IGN)
        let outcome = try ChildProcess(
            executable: "/bin/sh",
            arguments: ["-c", "exec grep -E '^Sig(Ign|Blk)' /proc/self/status"]
        ).run()
        // The standard signals, 1 to 31: glibc keeps 32 and 33 for itself, out of any program's reach.
        let masks = outcome.outputText.split(separator: "\n").compactMap { line in
            line.split(separator: "\t").last.flatMap { UInt64($0, radix: 16) }.map { $0 & 0x7fff_ffff }
        }
        #expect(masks == [0, 0])
    }
    #endif
}
#endif
