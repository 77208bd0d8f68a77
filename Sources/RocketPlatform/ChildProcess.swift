#if canImport(Glibc)
    import Glibc
#endif

/// A command run by `rocket spin`: spawned with `posix_spawnp`, its standard output and error
/// kept in unlinked temporary files while a spinner draws (so they never garble it), and written
/// out unchanged when it ends. Without capture it writes straight to ours.
package final class ChildProcess {
    /// The child's process id.
    package let pid: Int32
    private var captured: (out: Int32, err: Int32)?
    private var status: Int32?

    /// Why a command could not start.
    package struct SpawnError: Error {
        /// The errno of the failure.
        package let code: Int32
    }

    /// Starts `argv` (looked up in `PATH`), capturing its output when asked.
    package init(_ argv: [String], capture: Bool) throws(SpawnError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var files: (Int32, Int32)?
        if capture {
            let out = FileIO.anonymousFile(), err = FileIO.anonymousFile()
            guard out >= 0, err >= 0 else {
                let code = errno
                if out >= 0 { close(out) }
                if err >= 0 { close(err) }
                throw SpawnError(code: code)
            }
            posix_spawn_file_actions_adddup2(&actions, out, 1)
            posix_spawn_file_actions_adddup2(&actions, err, 2)
            files = (out, err)
        }
        // The command starts with default signal actions and nothing blocked, whatever ours are.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var pid = pid_t()
        let rc = withCStrings(argv) { cArgv in posix_spawnp(&pid, argv[0], &actions, &attributes, cArgv, environ) }
        guard rc == 0 else {
            if let files {
                close(files.0)
                close(files.1)
            }
            throw SpawnError(code: rc)
        }
        self.pid = pid
        captured = files
    }

    /// The shell's reading of a `waitpid` status: the exit code, or 128 + the signal that ended it.
    package static func exitStatus(_ raw: Int32) -> Int32 {
        let low = raw & 0x7F
        return low == 0 ? (raw >> 8) & 0xFF : 128 + low
    }

    /// Reaps the child if it has ended (waiting for it when `blocking`); its status, once known.
    private func reap(blocking: Bool) -> Int32? {
        if let status { return status }
        var raw: Int32 = 0
        let rc = waitpid(pid, &raw, blocking ? 0 : WNOHANG)
        if rc == pid {
            status = ChildProcess.exitStatus(raw)
        } else if rc < 0 && errno != EINTR {
            status = 127
        }
        return status
    }

    /// The exit status once the child has ended (128 + signal when a signal ended it), without
    /// waiting; nil while it runs.
    package func poll() -> Int32? { reap(blocking: false) }

    /// Waits for the child to end; its status.
    package func wait() -> Int32 {
        while true {
            if let s = reap(blocking: true) { return s }
        }
    }

    /// Stops the child: SIGTERM, then SIGKILL if it is still running after `grace` seconds; its status.
    package func terminate(grace: Double) -> Int32 {
        signal(SIGTERM)
        var waited = 0.0
        while poll() == nil && waited < grace {
            usleep(10_000)
            waited += 0.01
        }
        if poll() == nil { signal(SIGKILL) }
        return wait()
    }

    /// Sends a signal to the child (while it runs).
    private func signal(_ s: Int32) {
        if status == nil { kill(pid, s) }
    }

    /// Writes the captured output to our standard output and error; the errno of a failed write
    /// to standard output, or nil.
    package func replayOutput() -> Int32? {
        guard let (out, err) = captured else { return nil }
        captured = nil
        defer {
            close(out)
            close(err)
        }
        let failure = copy(out, to: 1)
        _ = copy(err, to: 2)
        return failure
    }

    /// Copies a whole file to `target` in 64 KiB pieces (bounded memory whatever its size).
    private func copy(_ fd: Int32, to target: Int32) -> Int32? {
        guard lseek(fd, 0, SEEK_SET) == 0 else { return errno }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n == 0 { return nil }
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if let code = FileIO.writeAll(target, Array(buffer[0..<n])) { return code }
        }
    }
}

/// Calls `body` with a NULL-terminated C array of the strings.
package func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for p in pointers { free(p) } }
    return body(pointers)
}
