import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A program the tests run as a child process: the `stratus` binary, moto, curl, a helper.
///
/// Started with `posix_spawn` instead of Foundation's `Process`: on Linux, `Process.run()` crashed
/// the whole test process (SIGSEGV in memcpy inside `Process.run()`) in loaded full-suite runs,
/// where several suites start children at once. Here the child gets exactly the environment
/// given, /dev/null as stdin, default signal handlers and no descriptor of the test process but
/// its own stdout and stderr, so a child never holds another test's pipe open. A thread per child
/// reaps it with `waitpid` and pipes are drained on threads of their own (`PipeReader`), so async
/// code awaits a child's output and exit instead of blocking a Swift concurrency thread.
public final class ChildProcess: Sendable {
    /// Where the child's stdout or stderr goes.
    public enum Output: Sendable {
        /// A pipe read by the test (`stdout` / `stderr`).
        case pipe
        /// /dev/null.
        case discard
        /// The test process's own stream.
        case inherit
        /// Appended to the file at this path (created when missing).
        case appending(to: String)
    }

    /// How the child ended.
    public enum Termination: Sendable, Equatable {
        case exited(Int32)
        case signaled(Int32)

        /// The shell's convention: the exit code, or 128 + the number of the signal that ended it.
        public var status: Int32 {
            switch self {
            case .exited(let code): code
            case .signaled(let signal): 128 + signal
            }
        }
    }

    public struct SpawnFailure: Error, CustomStringConvertible {
        public let description: String
    }

    public let pid: pid_t
    /// The child's stdout, when started with `.pipe`.
    public let stdout: PipeReader?
    /// The child's stderr, when started with `.pipe`.
    public let stderr: PipeReader?
    private let ended: Latch<Termination>

    /// Starts `executable` (a path, or a name looked up in PATH) with `arguments`.
    public init(
        _ executable: String, arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment,
        stdout: Output = .pipe, stderr: Output = .pipe
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var parentEnds: [Int32] = []
        var childEnds: [Int32] = []
        defer { childEnds.forEach { close($0) } }
        func route(_ output: Output, to target: Int32) throws -> Int32? {
            switch output {
            case .inherit:
                return nil
            case .discard:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
                return nil
            case .appending(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
                return nil
            case .pipe:
                var ends: [Int32] = [0, 0]
                guard pipe(&ends) == 0 else { throw SpawnFailure(description: "pipe() failed: \(String(cString: strerror(errno)))") }
                ends.forEach { _ = fcntl($0, F_SETFD, FD_CLOEXEC) }
                parentEnds.append(ends[0])
                childEnds.append(ends[1])
                posix_spawn_file_actions_adddup2(&actions, ends[1], target)
                return ends[0]
            }
        }
        let outRead: Int32?, errRead: Int32?
        do {
            outRead = try route(stdout, to: 1)
            errRead = try route(stderr, to: 2)
        } catch {
            parentEnds.forEach { close($0) }
            throw error
        }
        Self.closeEverythingElse(&actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The test runner ignores SIGPIPE (and servers in it may ignore more); a child must not
        // inherit that, nor a blocked signal mask.
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var spawnedPID: pid_t = 0
        let spawned =
            executable.contains("/")
            ? posix_spawn(&spawnedPID, executable, &actions, &attributes, argv, envp)
            : posix_spawnp(&spawnedPID, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            parentEnds.forEach { close($0) }
            throw SpawnFailure(description: "could not start \(executable): \(String(cString: strerror(spawned)))")
        }
        let pid = spawnedPID
        self.pid = pid
        self.stdout = outRead.map(PipeReader.init(reading:))
        self.stderr = errRead.map(PipeReader.init(reading:))
        let ended = Latch<Termination>()
        self.ended = ended
        Thread.detachNewThread {
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
            // WIFEXITED: the low 7 bits are 0 and the exit code is the next byte; else WTERMSIG.
            ended.set((raw & 0x7f) == 0 ? .exited((raw >> 8) & 0xff) : .signaled(raw & 0x7f))
        }
    }

    /// Adds "close every descriptor above stderr" (glibc's posix_spawn_file_actions_addclosefrom_np,
    /// which Swift's Glibc module does not import). Descriptors that other code opened without
    /// close-on-exec would otherwise leak into the child: a leaked pipe end keeps another test
    /// waiting for an end of file until this child exits.
    private static func closeEverythingElse(_ actions: inout posix_spawn_file_actions_t) {
        #if canImport(Glibc)
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        }
        #endif
    }

    /// False once the child has ended and been reaped.
    public var isRunning: Bool { ended.value == nil }

    /// Sends `signal` unless the child has already ended.
    public func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    /// Sends `signal` once `delay` has passed, unless the answered task is cancelled first: a
    /// watchdog for a child that should have said or done something by then.
    public func send(_ signal: Int32, after delay: Duration) -> Task<Void, Never> {
        Task {
            guard (try? await Task.sleep(for: delay)) != nil else { return }
            self.send(signal)
        }
    }

    /// Blocks until the child ends. For synchronous callers (a `defer`); async code awaits `termination`.
    @discardableResult
    public func waitUntilExit() -> Termination { ended.wait() }

    /// How the child ended, once it has.
    public var termination: Termination {
        get async { await ended.awaited() }
    }

    deinit {
        send(SIGKILL)
    }
}
