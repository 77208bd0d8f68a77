#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import Synchronization
import RocketTerminalCore
import RocketCore

/// The process-wide terminal state that signal handlers need: the saved settings, the bytes
/// that restore the screen, and the pipe that turns signals into input for the event loop.
/// Signal handlers may only touch plain globals, so these are globals, written before any
/// handler is installed.
enum TerminalGlobals {
    nonisolated(unsafe) static var savedTermios = termios()
    nonisolated(unsafe) static var rawModeActive: Int32 = 0
    nonisolated(unsafe) static var ttyFD: Int32 = 0
    nonisolated(unsafe) static var signalWriteFD: Int32 = -1
    /// Show the cursor, reset styles, leave bracketed paste and mouse reporting, new line.
    static let restoreBytes: [UInt8] = Array("\u{1B}[0m\u{1B}[?25h\u{1B}[?2004l\u{1B}[?1000l\u{1B}[?1006l\r\n".utf8)
    nonisolated(unsafe) static var restorePointer: UnsafeMutablePointer<UInt8>? = nil
}

/// The C handler for termination signals and SIGWINCH: it writes the signal number to the
/// self-pipe; the event loop does the rest.
private func forwardSignal(_ signo: Int32) {
    var byte = UInt8(truncatingIfNeeded: signo)
    let fd = TerminalGlobals.signalWriteFD
    if fd >= 0 { _ = write(fd, &byte, 1) }
}

/// The byte ``Terminal/wake()`` writes to the self-pipe: no signal has that number, so it only
/// ends a wait (which then reports a timeout).
private let wakeByte: UInt8 = 0xFF

/// The C handler for crashes: restore the terminal with async-signal-safe calls, then let the
/// default action run (so the crash and its backtrace still happen).
private func crashHandler(_ signo: Int32) {
    if TerminalGlobals.rawModeActive != 0, let p = TerminalGlobals.restorePointer {
        if TerminalGlobals.rawModeActive == 1 { _ = write(TerminalGlobals.ttyFD, p, TerminalGlobals.restoreBytes.count) }  // where the UI was drawn
        _ = tcsetattr(TerminalGlobals.ttyFD, TCSAFLUSH, &TerminalGlobals.savedTermios)
    }
    signal(signo, SIG_DFL)
    raise(signo)
}

/// A small POSIX terminal layer: size, raw mode with guaranteed restore, signals as events,
/// and a poll-based wait on input, signals and a deadline.
///
/// ```swift
/// let terminal = Terminal()
/// if terminal.isInteractive { try terminal.enterRawMode() }
/// defer { terminal.restore() }
/// ```
public final class Terminal: Sendable {
    /// The input descriptor (stdin).
    public let inputFD: Int32
    /// The output descriptor (stdout).
    public let outputFD: Int32
    private struct State {
        var signalReadFD: Int32 = -1
        var rawMode = false
        var echoOff = false
        var mouse = false
    }
    /// Mutable state behind a lock: a session may wait for input on another thread.
    private let state = Mutex(State())
    private var signalReadFD: Int32 { state.withLock { $0.signalReadFD } }

    /// Wraps stdin and stdout.
    public init(inputFD: Int32 = 0, outputFD: Int32 = 1) {
        self.inputFD = inputFD
        self.outputFD = outputFD
    }

    /// The terminal a user interface should use, in the manner of gum and whiptail: stdin and
    /// stdout when both are a terminal; when only stdin is (`choice=$(rocket alert …)`,
    /// `rocket play f.json > out`), the controlling terminal `/dev/tty` for keys and drawing, so
    /// that stdout carries only the result; otherwise stdin and stdout (line mode).
    ///
    /// With `inputTaken` (standard input carries data, such as a flow read from `-`), the
    /// terminal is `/dev/tty` whenever there is one; without one, standard input is used and
    /// reads as ended.
    public static func forUserInterface(inputTaken: Bool = false) -> Terminal {
        if !inputTaken && isatty(0) == 1 && isatty(1) == 1 { return Terminal() }
        if isatty(0) == 1 || inputTaken, let fd = openControllingTerminal() { return Terminal(inputFD: fd, outputFD: fd) }
        return Terminal()
    }

    /// True when the process has a controlling terminal it can open (`/dev/tty`): a person may
    /// be there even though standard input is not it.
    public static func controllingTerminalExists() -> Bool {
        guard let fd = openControllingTerminal() else { return false }
        close(fd)
        return true
    }

    /// `/dev/tty`, opened for reading and writing, or nil when there is none.
    private static func openControllingTerminal() -> Int32? {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        if fd >= 0, isatty(fd) == 1 { return fd }
        if fd >= 0 { close(fd) }
        return nil
    }

    /// The same input with standard error as output: in line mode prompts and the transcript
    /// go to stderr, so that stdout carries only results.
    public func forLineMode() -> Terminal { Terminal(inputFD: inputFD, outputFD: 2) }

    /// True when both input and output are terminals.
    public var isInteractive: Bool { isatty(inputFD) == 1 && isatty(outputFD) == 1 }

    /// True when a front end should read and write lines instead of drawing: the input or the
    /// output is no terminal, the terminal is `TERM=dumb`, or the user asks for lines always with
    /// `ROCKET_PLAIN=1` (a screen reader's user: nothing is redrawn, every line is said once). A
    /// command's `--plain` asks the same for one run.
    public func prefersLineMode(_ environment: [String: String]) -> Bool {
        !isInteractive || environment["TERM"] == "dumb" || EnvironmentFlag.value("ROCKET_PLAIN", in: environment) == true
    }

    /// Whether `fd` writes to the same terminal device as this terminal's output (so what is
    /// written there lands in the drawn screen).
    package func sharesDevice(withDescriptor fd: Int32) -> Bool {
        var a = stat(), b = stat()
        guard isatty(fd) == 1, fstat(fd, &a) == 0, fstat(outputFD, &b) == 0 else { return false }
        return a.st_rdev == b.st_rdev && (a.st_mode & S_IFMT) == S_IFCHR
    }

    /// Columns and rows of the output terminal (80×24 when unknown).
    public var size: (columns: Int, rows: Int) {
        var ws = winsize()
        if ioctl(outputFD, UInt(TIOCGWINSZ), &ws) == 0, ws.ws_col > 0, ws.ws_row > 0 {
            return (Int(ws.ws_col), Int(ws.ws_row))
        }
        return (80, 24)
    }

    /// Installs the signal self-pipe for SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM
    /// and SIGWINCH, and crash
    /// handlers that restore the terminal.
    public func installSignalHandlers() {
        let fds: [Int32]? = state.withLock { s in
            guard s.signalReadFD < 0 else { return nil }
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { return nil }
            // Never blocking, and never handed to a command rocket starts (an --on-action hook,
            // rocket spin's command), nor to what that leaves running.
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
            s.signalReadFD = fds[0]
            return fds
        }
        guard let fds else { return }
        TerminalGlobals.signalWriteFD = fds[1]
        if TerminalGlobals.restorePointer == nil {
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: TerminalGlobals.restoreBytes.count)
            p.initialize(from: TerminalGlobals.restoreBytes, count: TerminalGlobals.restoreBytes.count)
            TerminalGlobals.restorePointer = p
        }
        // A parent may have started us with signals blocked (Foundation's Process does):
        // unblock the ones we handle, or Ctrl-C, SIGTERM and resizes would never arrive.
        var set = sigset_t()
        sigemptyset(&set)
        // Every signal that would end the process is turned into an event, so the terminal is
        // restored first (SIGQUIT also never reaches the backtracer's prompt).
        // SIGTSTP (Ctrl-Z from another process, or the line discipline in line mode) too: the
        // wait restores the terminal, stops, and puts it back (``suspend()``).
        for sig in [SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGTSTP] {
            signal(sig, forwardSignal)
            sigaddset(&set, sig)
        }
        sigprocmask(SIG_UNBLOCK, &set, nil)
        for sig in [SIGSEGV, SIGILL, SIGTRAP, SIGBUS, SIGFPE, SIGABRT] {
            signal(sig, crashHandler)
        }
        signal(SIGPIPE, SIG_IGN)
    }

    /// Puts the input terminal in raw mode (no echo, no line buffering, Ctrl-C as a byte) and
    /// enables bracketed paste and SGR mouse reports.
    public func enterRawMode(mouse: Bool = true) throws(TerminalError) {
        guard !state.withLock({ $0.rawMode }) else { return }
        var saved = termios()
        guard tcgetattr(inputFD, &saved) == 0 else { throw TerminalError(operation: "tcgetattr", code: errno) }
        TerminalGlobals.savedTermios = saved
        TerminalGlobals.ttyFD = inputFD
        var raw = saved
        cfmakeraw(&raw)
        raw.c_oflag |= tcflag_t(OPOST) | tcflag_t(ONLCR)  // keep "\n" → "\r\n" for any stray output
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        // TCSANOW, not TCSAFLUSH: keys typed before the first frame are kept, not thrown away.
        guard tcsetattr(inputFD, TCSANOW, &raw) == 0 else { throw TerminalError(operation: "tcsetattr", code: errno) }
        state.withLock {
            $0.rawMode = true
            $0.mouse = mouse
        }
        TerminalGlobals.rawModeActive = 1
        write("\u{1B}[?2004h" + (mouse ? "\u{1B}[?1000h\u{1B}[?1006h" : ""))
    }

    /// Restores the saved settings and screen modes; safe to call more than once.
    public func restore() {
        let (wasRaw, wasEchoOff) = state.withLock { s in
            defer {
                s.rawMode = false
                s.echoOff = false
            }
            return (s.rawMode, s.echoOff)
        }
        if wasEchoOff && !wasRaw {
            _ = tcsetattr(inputFD, TCSAFLUSH, &TerminalGlobals.savedTermios)
            TerminalGlobals.rawModeActive = 0
            return
        }
        guard wasRaw else { return }
        write(Array("\u{1B}[0m\u{1B}[?25h\u{1B}[?2004l\u{1B}[?1000l\u{1B}[?1006l".utf8))
        _ = tcsetattr(inputFD, TCSAFLUSH, &TerminalGlobals.savedTermios)
        TerminalGlobals.rawModeActive = 0
    }

    /// Ctrl-Z: restores the terminal, stops the process as SIGTSTP's default would, and when it is
    /// continued puts the terminal back as it was (raw mode with the same mouse setting, or echo
    /// off). A process group without a job-control shell is not stopped; the terminal is still
    /// restored and taken back, so the caller redraws either way.
    ///
    /// `first` is written before anything else (while the terminal is still as the caller set
    /// it): a drawn region erases itself there, so the shell's lines take its place
    /// (`InlineRenderer/suspend()`).
    public func suspend(writingFirst first: [UInt8] = []) {
        let (wasRaw, wasEchoOff, mouse) = state.withLock { ($0.rawMode, $0.echoOff, $0.mouse) }
        if !first.isEmpty { write(first) }
        restore()
        signal(SIGTSTP, SIG_DFL)
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTSTP)
        sigprocmask(SIG_UNBLOCK, &set, nil)
        raise(SIGTSTP)
        // Continued (SIGCONT): catch the next one again and take the terminal back.
        signal(SIGTSTP, forwardSignal)
        if wasRaw {
            try? enterRawMode(mouse: mouse)
        } else if wasEchoOff {
            setEcho(false)
        }
    }

    /// Line mode on a terminal: turns the echo of typed characters off (a secret answer) or back
    /// on. Off is undone by ``restore()`` and by every signal and crash path, like raw mode.
    public func setEcho(_ on: Bool) {
        guard isatty(inputFD) == 1, !state.withLock({ $0.rawMode }) else { return }
        if on {
            restore()
            return
        }
        guard !state.withLock({ $0.echoOff }) else { return }
        var saved = termios()
        guard tcgetattr(inputFD, &saved) == 0 else { return }
        TerminalGlobals.savedTermios = saved
        TerminalGlobals.ttyFD = inputFD
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        guard tcsetattr(inputFD, TCSAFLUSH, &quiet) == 0 else { return }
        state.withLock { $0.echoOff = true }
        TerminalGlobals.rawModeActive = 2  // 2: settings only; no screen bytes to undo
    }

    /// Writes all bytes (retrying on partial writes and EINTR) in as few calls as possible.
    public func write(_ bytes: [UInt8]) {
        var offset = 0
        bytes.withUnsafeBytes { buffer in
            while offset < buffer.count {
                #if canImport(Glibc)
                    let n = Glibc.write(outputFD, buffer.baseAddress! + offset, buffer.count - offset)
                #else
                    let n = Darwin.write(outputFD, buffer.baseAddress! + offset, buffer.count - offset)
                #endif
                if n < 0 { if errno == EINTR { continue }; return }
                offset += n
            }
        }
    }

    /// Writes a string.
    public func write(_ s: String) { write(Array(s.utf8)) }

    /// What woke the event loop.
    public enum Wake: Equatable, Sendable {
        /// Bytes arrived on the input (empty = end of input).
        case input([UInt8])
        /// A signal arrived.
        case signal(Int32)
        /// The timeout passed.
        case timeout
    }

    /// Ends the ``wait(timeout:wantInput:suspending:)`` under way, from any thread (a cancelled task's
    /// handler): it returns `.timeout` and its caller looks again at what changed. A wake that
    /// arrives with no wait under way ends the next one early, which is harmless.
    public func wake() {
        var byte = wakeByte
        let fd = TerminalGlobals.signalWriteFD
        if fd >= 0 { _ = Glibc.write(fd, &byte, 1) }
    }

    /// Waits for input (when `wantInput`), a signal, or the timeout (seconds; nil = forever).
    ///
    /// Ctrl-Z (typed in raw mode, or SIGTSTP) suspends here (``suspend(writingFirst:)``) and comes
    /// back as `.signal(SIGWINCH)`: the terminal may have changed meanwhile, so the caller
    /// redraws. With `suspending` false it comes back as `.signal(SIGTSTP)` instead, and the
    /// caller suspends (a screen that erases what it drew first: `TTYScreen`).
    public func wait(timeout: Double?, wantInput: Bool = true, suspending: Bool = true) -> Wake {
        var fds: [pollfd] = []
        let signalReadFD = self.signalReadFD
        if signalReadFD >= 0 { fds.append(pollfd(fd: signalReadFD, events: Int16(POLLIN), revents: 0)) }
        if wantInput { fds.append(pollfd(fd: inputFD, events: Int16(POLLIN), revents: 0)) }
        let ms: Int32 = timeout.map { Int32(max(0, min(Double(Int32.max), ($0 * 1000).rounded(.up)))) } ?? -1
        let n = poll(&fds, nfds_t(fds.count), ms)
        if n < 0 { return errno == EINTR ? .timeout : .input([]) }
        if n == 0 { return .timeout }
        for fd in fds where fd.revents != 0 {
            if fd.fd == signalReadFD {
                var byte: UInt8 = 0
                if read(signalReadFD, &byte, 1) == 1 {
                    if byte == wakeByte { return .timeout }
                    if Int32(byte) == SIGTSTP {
                        guard suspending else { return .signal(SIGTSTP) }
                        suspend()
                        return .signal(SIGWINCH)
                    }
                    return .signal(Int32(byte))
                }
            } else {
                var buffer = [UInt8](repeating: 0, count: 4096)
                let r = read(inputFD, &buffer, buffer.count)
                if r < 0 { return errno == EINTR || errno == EAGAIN ? .timeout : .input([]) }
                if r == 1 && buffer[0] == 0x1A && state.withLock({ $0.rawMode }) {
                    // Ctrl-Z typed in raw mode, where it is a byte, not a signal.
                    guard suspending else { return .signal(SIGTSTP) }
                    suspend()
                    return .signal(SIGWINCH)
                }
                return .input(Array(buffer[..<r]))
            }
        }
        return .timeout
    }
}

/// A failed terminal call, with its errno.
public struct TerminalError: Error, Hashable, Sendable {
    /// The call that failed.
    public var operation: String
    /// errno.
    public var code: Int32
}
