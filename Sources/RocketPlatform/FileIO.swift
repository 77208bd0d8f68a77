#if canImport(Glibc)
    import Glibc
#endif
import RocketCore
import Synchronization

/// Plain POSIX file access for the front end and the CLI (Foundation's FileHandle would pull ICU
/// into a static binary).
///
/// ```swift
/// switch FileIO.read("flow.json") {
/// case .success(let bytes): print(bytes.count)
/// case .failure(let f): print(f.reason)   // "no such file"
/// }
/// ```
package enum FileIO {
    /// Why a file could not be read or written: the errno text.
    package struct Failure: Error {
        /// A short reason, for messages.
        package let reason: String
        /// The errno value, when the failure came from one.
        package let code: Int32?
        /// True when the content is wrong (a line too long), not the file's access.
        package var isContent = false
        /// A failure with its own reason.
        package init(reason: String) {
            self.reason = reason
            code = nil
        }

        /// Line `line` is longer than `limit` bytes.
        package init(lineTooLong line: Int, limit: Int) {
            self.init(reason: "line \(line) is longer than \(limit) bytes")
            isContent = true
        }

        /// Wraps an errno value.
        package init(_ code: Int32) {
            self.code = code
            switch code {
            case ENOENT: reason = "no such file"
            case EACCES, EPERM: reason = "permission denied"
            case EISDIR: reason = "is a directory"
            case EROFS: reason = "read-only file system"
            case ENOSPC: reason = "no space left on device"
            case EPIPE: reason = "its reader has gone (a closed pipe)"
            case EEXIST: reason = "it exists"
            default:
                reason = String(
                    decoding: strerror(code).map { UnsafeRawBufferPointer(start: $0, count: strlen($0)) } ?? UnsafeRawBufferPointer(start: nil, count: 0),
                    as: UTF8.self)
            }
        }
    }

    /// The size of a regular file, or a failure (a directory is one).
    package static func size(_ path: String) -> Result<Int, Failure> {
        var st = stat()
        guard stat(path, &st) == 0 else { return .failure(Failure(errno)) }
        if (st.st_mode & S_IFMT) == S_IFDIR { return .failure(Failure(EISDIR)) }
        return .success(Int(st.st_size))
    }

    /// The most a user file is read into memory unless the caller asks for less: a flow, a
    /// picture, a `--state` snapshot or an import (each has its own smaller limit where one is
    /// documented).
    package static let defaultLimit = RocketLimits.fileBytes

    /// The whole file, or standard input for `-`, as the one way user files are read: a path
    /// must name a regular file (a folder, a device such as `/dev/zero`, a FIFO or a socket is
    /// refused at once: opening never waits for a FIFO's writer, and a device's size says
    /// nothing), and reading stops with a failure once more than `limit` bytes have arrived, so a
    /// file that grows or lies about its size costs at most `limit` bytes.
    package static func read(_ path: String, limit: Int = defaultLimit) -> Result<[UInt8], Failure> {
        let fd: Int32
        switch openForReading(path, pipes: false) {
        case .failure(let f): return .failure(f)
        case .success(let d): fd = d
        }
        defer { if fd != 0 { close(fd) } }
        return readAll(fd, limit: limit)
    }

    /// `path` opened for reading, blocking (standard input, descriptor 0, for `-`): a regular
    /// file; with `pipes`, a FIFO too, opened as `cat` opens it, waiting for its writer (a read
    /// before one has come would see the end at once). A folder, a device or a socket is refused
    /// at once (the first open never waits: it is non-blocking).
    private static func openForReading(_ path: String, pipes: Bool) -> Result<Int32, Failure> {
        guard path != "-" else { return .success(0) }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { return .failure(Failure(errno)) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let e = errno
            close(fd)
            return .failure(Failure(e))
        }
        switch st.st_mode & S_IFMT {
        case S_IFREG:
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
            return .success(fd)
        case S_IFIFO where pipes:
            close(fd)
            let blocking = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)
            return blocking >= 0 ? .success(blocking) : .failure(Failure(errno))
        case S_IFDIR:
            close(fd)
            return .failure(Failure(EISDIR))
        default:
            close(fd)
            return .failure(Failure(reason: pipes ? "not a file or a pipe (a device or socket)" : "not a regular file (a device, FIFO or socket)"))
        }
    }

    /// The file at `relative` (a path made by ``FilePath/relative(_:)``) inside `folder`, read as
    /// ``read(_:limit:)`` reads, where no component may be a symbolic link: each folder on the
    /// way is opened with `O_NOFOLLOW | O_DIRECTORY` from the one before, the file with
    /// `O_NOFOLLOW | O_NONBLOCK` (a FIFO never blocks) and then checked to be a regular file. For
    /// what a server serves from a folder it was given: nothing outside it is reached, whatever
    /// links are placed in it.
    package static func read(inside folder: String, _ relative: String, limit: Int = defaultLimit) -> Result<[UInt8], Failure> {
        switch openRegular(inside: folder, relative) {
        case .failure(let f): return .failure(f)
        case .success(let opened):
            defer { close(opened.descriptor) }
            return readAll(opened.descriptor, limit: limit)
        }
    }

    /// The first `count` bytes (all of them when the file is shorter) of the regular file
    /// `relative` inside `folder`, opened as ``openRegular(inside:_:)`` opens it: for a header,
    /// without reading the rest of a file of any size.
    package static func head(inside folder: String, _ relative: String, count: Int) -> Result<[UInt8], Failure> {
        switch openRegular(inside: folder, relative) {
        case .failure(let f): return .failure(f)
        case .success(let opened):
            defer { close(opened.descriptor) }
            return head(of: opened.descriptor, count: min(count, opened.size))
        }
    }

    /// The first `count` bytes (all of them when the file is shorter) of the regular file at
    /// `path`, opened as ``read(_:limit:)`` opens it (a folder, device, FIFO or socket is refused
    /// at once).
    package static func head(_ path: String, count: Int) -> Result<[UInt8], Failure> {
        guard path != "-" else { return .failure(Failure(reason: "not a file")) }
        switch openForReading(path, pipes: false) {
        case .failure(let f): return .failure(f)
        case .success(let fd):
            defer { close(fd) }
            return head(of: fd, count: count)
        }
    }

    /// Up to `count` bytes from the start of the open file `fd`.
    private static func head(of fd: Int32, count: Int) -> Result<[UInt8], Failure> {
        var out = [UInt8](repeating: 0, count: max(0, count))
        var filled = 0
        while filled < out.count {
            let n = out.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + filled, $0.count - filled, off_t(filled)) }
            if n < 0 { if errno == EINTR { continue }; return .failure(Failure(errno)) }
            if n == 0 { break }
            filled += n
        }
        return .success(Array(out.prefix(filled)))
    }

    /// Opens the regular file `relative` inside `folder` for reading, as ``read(inside:_:limit:)``
    /// reads it: no symbolic link followed on the way, no FIFO or device opened. The caller
    /// closes the descriptor; `size` is the file's size when it was opened, and `version` names
    /// that state of the file (its inode, size and change time, in hex): it differs once the file
    /// is written or replaced.
    package static func openRegular(inside folder: String, _ relative: String) -> Result<(descriptor: Int32, size: Int, version: String), Failure> {
        guard let relative = FilePath.relative(relative) else { return .failure(Failure(reason: "not a path inside the folder")) }
        var dir = Glibc.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dir >= 0 else { return .failure(Failure(errno)) }
        defer { close(dir) }
        let parts = relative.split(separator: "/").map(String.init)
        for part in parts.dropLast() {
            let next = openat(dir, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard next >= 0 else { return .failure(errno == ELOOP ? Failure(reason: "a symbolic link is not followed") : Failure(errno)) }
            close(dir)
            dir = next
        }
        let fd = openat(dir, parts.last ?? "", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(errno == ELOOP ? Failure(reason: "a symbolic link is not followed") : Failure(errno)) }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let e = errno
            close(fd)
            return .failure(Failure(e))
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            return .failure(Failure(reason: "not a regular file (a folder, device, FIFO or socket)"))
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        let version = [UInt64(st.st_ino), UInt64(st.st_size), UInt64(bitPattern: Int64(st.st_ctim.tv_sec)), UInt64(st.st_ctim.tv_nsec)]
            .map { String($0, radix: 16) }.joined(separator: "-")
        return .success((fd, Int(st.st_size), version))
    }

    /// Takes an exclusive `flock` on the existing file `path` for the rest of the process's life,
    /// without waiting: true when taken, false when another process (or another descriptor of
    /// this one) holds it, nil when the file cannot be opened. The descriptor is never closed:
    /// closing any descriptor of a file drops the process's POSIX locks on it, which SQLite's
    /// connections to the same file hold (a `flock` lock and those do not touch each other on
    /// Linux). The kernel lets go when the process ends, however it ends.
    package static func holdExclusively(_ path: String) -> Bool? {
        let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        return flock(fd, LOCK_EX | LOCK_NB) == 0
    }

    /// Takes an exclusive `flock` on the lock file `path`, made empty and for its owner alone when
    /// missing, for the rest of the process's life, without waiting: true when taken, false when
    /// another process holds it. The kernel lets go when the process ends, however it ends, so a
    /// lock file left behind holds nothing. A failure to open or make it (a folder that does not
    /// exist, one that cannot be written, a link or something else in its place) is returned.
    package static func holdLockFile(_ path: String) -> Result<Bool, Failure> {
        let fd = Glibc.open(path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, FileAccess.owner.creationMode)
        guard fd >= 0 else { return .failure(Failure(errno)) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            return .failure(Failure(reason: "not a regular file"))
        }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { return .success(true) }
        let code = errno
        close(fd)
        return code == EWOULDBLOCK ? .success(false) : .failure(Failure(code))
    }

    /// Reads `path` (standard input for `-`) a line at a time, in 1 MiB chunks, so memory does not
    /// grow with the file: `body` gets each line without its newline and its number (from 1), and
    /// returns false to stop. A regular file, a FIFO or a pipe is read; a folder, a device or a
    /// socket is refused. A line longer than `maxLineBytes` is a failure naming it.
    package static func forEachLine(_ path: String, maxLineBytes: Int, _ body: ([UInt8], Int) -> Bool) -> Result<Void, Failure> {
        let fd: Int32
        switch openForReading(path, pipes: true) {
        case .failure(let f): return .failure(f)
        case .success(let d): fd = d
        }
        defer { if fd != 0 { close(fd) } }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var pending: [UInt8] = []
        var number = 0
        while true {
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0 { if errno == EINTR { continue }; return .failure(Failure(errno)) }
            if n == 0 { break }
            var start = 0
            // Newlines found with memchr (the C library's vectorised search), not byte by byte.
            while start < n {
                let found = buffer.withUnsafeBytes { raw in memchr(raw.baseAddress! + start, 0x0A, n - start) }
                guard let found else { break }
                let i = buffer.withUnsafeBytes { raw in raw.baseAddress!.distance(to: UnsafeRawPointer(found)) }
                number += 1
                let line: [UInt8]
                if pending.isEmpty {
                    line = Array(buffer[start..<i])
                } else {
                    line = pending + buffer[start..<i]
                    pending.removeAll(keepingCapacity: true)
                }
                guard line.count <= maxLineBytes else { return .failure(Failure(lineTooLong: number, limit: maxLineBytes)) }
                if !body(line, number) { return .success(()) }
                start = i + 1
            }
            pending += buffer[start..<n]
            guard pending.count <= maxLineBytes else { return .failure(Failure(lineTooLong: number + 1, limit: maxLineBytes)) }
        }
        if !pending.isEmpty { _ = body(pending, number + 1) }
        return .success(())
    }

    /// Reads `fd` to its end, failing once more than `limit` bytes have arrived.
    private static func readAll(_ fd: Int32, limit: Int) -> Result<[UInt8], Failure> {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0 { if errno == EINTR { continue }; return .failure(Failure(errno)) }
            if n == 0 { return .success(out) }
            guard out.count <= limit - n else { return .failure(Failure(reason: "larger than \(limit) bytes")) }
            out += buffer[..<n]
        }
    }

    /// An open file written line by line (events).
    package final class Writer {
        private let fd: Int32
        /// The first write that failed (a full disk, a closed pipe): nothing is written after it,
        /// and the caller reports it.
        package private(set) var failure: Failure?

        /// Creates or truncates the file, as the shell's `>` does (a new file is made as
        /// ``FileAccess/umask`` says; one that exists keeps its mode); `-` is standard output.
        package init(path: String) throws(Failure) {
            fd = path == "-" ? 1 : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, FileAccess.umask.creationMode)
            guard fd >= 0 else { throw Failure(errno) }
        }

        deinit { if fd != 1 { close(fd) } }

        /// Writes all bytes; a failure is kept in ``failure``.
        package func write(_ text: String) {
            guard failure == nil else { return }
            if let code = FileIO.writeAll(fd, Array(text.utf8)) { failure = Failure(code) }
        }
    }

    /// Writes a whole file (created or truncated).
    package static func write(_ text: String, to path: String) -> Result<Void, Failure> {
        do {
            let w = try Writer(path: path)
            w.write(text)
            if let failure = w.failure { return .failure(failure) }
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// The first failed write to standard output, if any (a full disk, a closed pipe): commands
    /// end with exit status 74 and say so, instead of losing output silently.
    package static var standardOutputFailure: Failure? { outputFailure.withLock { $0 } }
    private static let outputFailure = Mutex<Failure?>(nil)

    /// Writes a whole file so that a crash at any moment leaves either the old content or the new,
    /// never a torn file: a temporary file beside it, written, fsync'd, renamed over the target,
    /// then the directory fsync'd.
    ///
    /// A new file is made as `access` says: for its owner only, or as the shell's `>` would make
    /// it (0666 less the umask). A file replaced keeps its permission bits (and, for a writer
    /// allowed to give it away, its owner and group), as an editor's save does: a page a web
    /// server reads stays readable to it after the next write.
    ///
    /// With `replacing: false` an existing file is never replaced, even one created a moment
    /// before: the temporary file is hard-linked to the name, which fails with `EEXIST` (the
    /// failure's `code`) when the name is taken. On a file system without hard links the file is
    /// created with `O_EXCL` and written in place.
    ///
    /// A symbolic link at `path` is written through: its target is replaced, the link stays.
    /// Temporary files that writers killed before their rename left beside the target
    /// (`NAME.tmp-PID` of a process that no longer runs) are removed at the first write.
    ///
    /// What is not a regular file is never replaced: a FIFO, a device or a socket at `path` (or
    /// at the end of its links: `/dev/stdout`, `/dev/fd/3`) is written into as the shell's `>`
    /// would (opening a FIFO waits for its reader), and a folder is `EISDIR`. `/dev/stdout`,
    /// `/dev/stderr` and `/dev/fd/N` name this process's open descriptor, which is written at its
    /// position, as `awk` does: `{ echo head; rocket report --html /dev/stdout; } > f` keeps the head.
    package static func writeAtomically(
        _ text: String, to requested: String, replacing: Bool = true, access: FileAccess
    ) -> Result<Void, Failure> {
        if replacing, let fd = openDescriptor(named: requested) {
            return writeAll(fd, Array(text.utf8)).map { .failure(Failure($0)) } ?? .success(())
        }
        if replacing, let kind = existingKind(requested), kind != S_IFREG {
            return kind == S_IFDIR ? .failure(Failure(EISDIR)) : writeInto(text, existing: requested)
        }
        let path = replacing ? linkTarget(requested) : requested
        removeStaleTemporaries(of: path)
        if path != requested { removeStaleTemporaries(of: requested) }
        let temporary = path + temporarySuffix + String(getpid())
        var old = stat()
        let replaced = replacing && stat(path, &old) == 0 && (old.st_mode & S_IFMT) == S_IFREG
        // Taking the place of a file, the copy is its owner's alone until it has that file's mode:
        // never, even for a moment, readable by more than the file it replaces.
        // Made new, never opened through a link or over another's file: one planted under this
        // name in a shared folder (a link to a file of the person running rocket) is not
        // followed, and a name that cannot be taken is a failure.
        unlink(temporary)
        let fd = open(
            temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, replaced ? FileAccess.owner.creationMode : access.creationMode)
        guard fd >= 0 else { return .failure(Failure(errno)) }
        func fail(_ code: Int32) -> Result<Void, Failure> {
            close(fd)
            unlink(temporary)
            return .failure(Failure(code))
        }
        if replaced {
            // Owner and group first: a change of owner clears the set-id bits the mode then sets.
            if old.st_uid != geteuid() || old.st_gid != getegid() { _ = fchown(fd, old.st_uid, old.st_gid) }
            guard fchmod(fd, old.st_mode & 0o7777) == 0 else { return fail(errno) }
        }
        if let code = writeAll(fd, Array(text.utf8)) { return fail(code) }
        guard fsync(fd) == 0 else { return fail(errno) }
        guard close(fd) == 0 else {
            let code = errno
            unlink(temporary)
            return .failure(Failure(code))
        }
        if replacing {
            guard rename(temporary, path) == 0 else {
                let code = errno
                unlink(temporary)
                return .failure(Failure(code))
            }
        } else if link(temporary, path) == 0 {
            unlink(temporary)
        } else {
            let code = errno
            unlink(temporary)
            guard [EPERM, EOPNOTSUPP, ENOSYS].contains(code) else { return .failure(Failure(code)) }
            return writeExclusively(text, to: path, access: access)
        }
        syncFolder(of: path)
        return .success(())
    }

    /// What follows a file's name in the name of a temporary file beside it, before the writer's
    /// PID (`NAME.tmp-PID`): written files and copies alike, so one left by a killed process is
    /// recognised and removed.
    static let temporarySuffix = ".tmp-"

    /// Makes a new, empty file beside `path` that only its owner may read (`NAME.tmp-PID`, the
    /// name ``writeAtomically(_:to:replacing:access:)`` uses, so one a killed process left is removed by
    /// the next write), for a writer that fills it by name; its path. A stale one is removed first.
    package static func emptyTemporary(beside path: String) -> Result<String, Failure> {
        removeStaleTemporaries(of: path)
        let temporary = path + temporarySuffix + String(getpid())
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return .failure(Failure(errno)) }
        close(fd)
        return .success(temporary)
    }

    /// Puts the filled `temporary` at `path`, durably: its bytes synced (fsync); then, when
    /// `replacing`, the files `stale` removed first and that made durable (so a crash never leaves
    /// them beside the new file: an SQLite log of the old database) and the file renamed over
    /// `path`; otherwise hard-linked to `path`, which must not exist (never replacing a file, even
    /// one made a moment before: `EEXIST`). Then the folder synced. The temporary is gone either way.
    package static func put(_ temporary: String, at path: String, replacing: Bool, removingFirst stale: [String] = []) -> Result<Void, Failure> {
        func fail(_ code: Int32) -> Result<Void, Failure> {
            unlink(temporary)
            return .failure(Failure(code))
        }
        let fd = open(temporary, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return fail(errno) }
        let synced = fsync(fd) == 0 ? 0 : errno
        close(fd)
        if synced != 0 { return fail(synced) }
        if replacing {
            for file in stale where unlink(file) != 0 && errno != ENOENT { return fail(errno) }
            if !stale.isEmpty { syncFolder(of: path) }
            guard rename(temporary, path) == 0 else { return fail(errno) }
        } else {
            guard link(temporary, path) == 0 else { return fail(errno) }
            unlink(temporary)
        }
        syncFolder(of: path)
        return .success(())
    }

    /// Makes the entries of the folder holding `path` durable (a new name, a rename, a removal);
    /// nothing happens when it cannot be opened.
    static func syncFolder(of path: String) {
        let directory = PathName.directory(path)
        let dfd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            _ = fsync(dfd)
            close(dfd)
        }
    }

    /// The file a chain of symbolic links at `path` ends at (the path itself when it is none);
    /// a relative link is relative to its folder. At most 40 links are followed, as the kernel does.
    package static func linkTarget(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            var st = stat()
            guard lstat(current, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buffer, buffer.count - 1)
            guard n > 0 else { return current }
            let target = String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let directory = PathName.directory(current)
            current = target.hasPrefix("/") || directory.isEmpty ? target : directory + "/" + target
        }
        return current
    }

    private static let cleanedTemporaries = Mutex<Set<String>>([])

    /// Removes `NAME.tmp-PID` files beside `path` whose PID no longer runs (once per path and
    /// process).
    static func removeStaleTemporaries(of path: String) {
        guard cleanedTemporaries.withLock({ $0.insert(path).inserted }) else { return }
        let directory = PathName.directory(path)
        let prefix = PathName.lastComponent(path) + temporarySuffix
        guard let dir = opendir(directory.isEmpty ? "." : directory) else { return }
        defer { closedir(dir) }
        var stale: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasPrefix(prefix), let pid = Int32(name.dropFirst(prefix.count)), pid > 0, pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH { stale.append(name) }
        }
        for name in stale { unlink(directory.isEmpty ? name : directory + "/" + name) }
    }

    /// The descriptor `/dev/stdout`, `/dev/stderr`, `/dev/fd/N` or `/proc/self/fd/N` names, when
    /// it is open in this process.
    private static func openDescriptor(named path: String) -> Int32? {
        let fd: Int32? =
            switch path {
            case "/dev/stdout": 1
            case "/dev/stderr": 2
            default:
                ["/dev/fd/", "/proc/self/fd/"].lazy.compactMap { prefix in
                    path.hasPrefix(prefix) ? Int32(path.dropFirst(prefix.count)) : nil
                }.first
            }
        guard let fd, fd >= 0, fcntl(fd, F_GETFD) >= 0 else { return nil }
        return fd
    }

    /// The type bits (`S_IFMT`) of what `path` names, links followed; nil when nothing is there.
    private static func existingKind(_ path: String) -> mode_t? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return st.st_mode & S_IFMT
    }

    /// Writes `text` into something that exists and is not a regular file (a FIFO, a device),
    /// without creating, truncating or renaming anything.
    private static func writeInto(_ text: String, existing path: String) -> Result<Void, Failure> {
        let fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else { return .failure(Failure(errno)) }
        let code = writeAll(fd, Array(text.utf8))
        if close(fd) != 0, code == nil, errno != EINTR { return .failure(Failure(errno)) }
        return code.map { .failure(Failure($0)) } ?? .success(())
    }

    /// Creates `path` (never an existing one) and writes `text` into it; on a failed write the
    /// half-written file is removed.
    private static func writeExclusively(_ text: String, to path: String, access: FileAccess) -> Result<Void, Failure> {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, access.creationMode)
        guard fd >= 0 else { return .failure(Failure(errno)) }
        var code = writeAll(fd, Array(text.utf8))
        if code == nil, fsync(fd) != 0 { code = errno }
        if close(fd) != 0, code == nil { code = errno }
        if let code {
            unlink(path)
            return .failure(Failure(code))
        }
        return .success(())
    }

    /// Removes a file (through a symbolic link: the file it names, so the link stays for the next
    /// ``writeAtomically(_:to:replacing:access:)``); a file that is already gone is not an error.
    package static func remove(_ path: String) -> Result<Void, Failure> {
        if unlink(linkTarget(path)) == 0 || errno == ENOENT { return .success(()) }
        return .failure(Failure(errno))
    }

    /// The names of the regular files in `folder` that end in `suffix`, sorted: links and
    /// anything else in it are left out (what a server may serve from a folder it was given).
    package static func regularFiles(in folder: String, endingIn suffix: String) -> Result<[String], Failure> {
        entries(in: folder, endingIn: suffix).map { found in found.filter(\.regular).map(\.name) }
    }

    /// The names in `folder` that end in `suffix` (and are longer than it), sorted as people
    /// sort names (``PathName/naturalOrder(_:_:)``: "step2" before "step10"), each with
    /// whether it is a regular file (not a link, a folder, a FIFO or a device).
    package static func entries(in folder: String, endingIn suffix: String) -> Result<[(name: String, regular: Bool)], Failure> {
        guard let dir = opendir(folder) else { return .failure(Failure(errno)) }
        defer { closedir(dir) }
        var out: [(name: String, regular: Bool)] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.hasSuffix(suffix), name.utf8.count > suffix.utf8.count else { continue }
            var regular = entry.pointee.d_type == UInt8(DT_REG)
            if entry.pointee.d_type == UInt8(DT_UNKNOWN) {
                var st = stat()
                regular = lstat(folder + "/" + name, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG
            }
            out.append((name, regular))
        }
        return .success(out.sorted { PathName.naturalOrder($0.name, $1.name) })
    }

    /// Who besides the owner and the group may use the file at `path` (links followed): nil when
    /// it cannot be looked at.
    package static func openToOthers(_ path: String) -> (read: Bool, write: Bool)? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return (st.st_mode & S_IROTH != 0, st.st_mode & S_IWOTH != 0)
    }

    /// True when `path` names a folder (links followed).
    package static func isFolder(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// True when something exists at `path`.
    /// True when nothing is at `path`, or a regular file (through its links): a file the program
    /// names for itself may be written there without waiting on a FIFO or filling a device.
    package static func isRegularOrAbsent(_ path: String) -> Bool {
        var st = stat()
        guard stat(path, &st) == 0 else { return errno == ENOENT }
        return (st.st_mode & S_IFMT) == S_IFREG
    }

    package static func exists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }

    /// Writes to standard output or error, with a line break at the end unless the text ends in
    /// one (its last byte: a CR LF ending, one character to Swift, counts).
    package static func print(_ text: String, toError: Bool = false) {
        let line = text.utf8.last == 0x0A ? text : text + "\n"
        if let code = writeAll(toError ? 2 : 1, Array(line.utf8)), !toError {
            outputFailure.withLock { if $0 == nil { $0 = Failure(code) } }
        }
    }

    /// Waits up to `seconds` (a follower between two reads); true as soon as nobody reads
    /// standard output any more (the reader of its pipe has gone), false after the wait. A
    /// terminal or a file never ends the wait early.
    package static func standardOutputGone(within seconds: Double) -> Bool {
        var fd = pollfd(fd: 1, events: 0, revents: 0)
        guard poll(&fd, 1, Int32(max(0, min(seconds, 3_600)) * 1000)) > 0 else { return false }
        return fd.revents & Int16(POLLERR | POLLHUP) != 0
    }

    /// Writes the whole regular file `path` to `fd` (standard output), a block at a time, until
    /// its end or until `stopping()`; the failure, if any (of the file or of `fd`: `output`).
    package static func pour(_ path: String, into fd: Int32, stopping: () -> Bool) -> (failure: Failure, output: Bool)? {
        let source = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard source >= 0 else { return (Failure(errno), false) }
        defer { close(source) }
        var block = [UInt8](repeating: 0, count: 1 << 16)
        while !stopping() {
            let n = block.withUnsafeMutableBytes { Glibc.read(source, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return (Failure(errno), false)
            }
            if n == 0 { return nil }
            if let code = writeAll(fd, Array(block[..<n])) { return (Failure(code), true) }
        }
        return nil
    }

    /// Writes every byte to `fd`, retrying partial writes and EINTR, and waiting for a descriptor
    /// left non-blocking (by whoever shares it) to take more; the errno of a failure, or nil.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&ready, 1, 1_000)
                    continue
                }
                return errno
            }
            offset += n
        }
        return nil
    }

    /// Asks the kernel to let go of the file's pages from byte `from` up to `to` (nil: the end)
    /// it holds in memory and that are already on disk (`POSIX_FADV_DONTNEED`; pages not yet
    /// written are kept). The file is unchanged; a later read takes its pages from the disk again.
    /// False when it cannot be opened or the call fails.
    @discardableResult
    package static func dropCachedPages(_ path: String, from: Int = 0, to: Int? = nil) -> Bool {
        guard from >= 0, (to ?? Int.max) > from else { return true }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return posix_fadvise(fd, off_t(from), off_t(to.map { $0 - from } ?? 0), Int32(POSIX_FADV_DONTNEED)) == 0
    }

    /// How many of the file's pages from byte `from` up to `to` (nil: the end) the kernel holds in
    /// memory now (`mincore` over a mapping of it), and how many there are; nil when it cannot be
    /// mapped (an empty file has (0, 0)).
    package static func cachedPages(_ path: String, from: Int = 0, to: Int? = nil) -> (cached: Int, pages: Int)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        let size = Int(st.st_size)
        guard size > 0 else { return (0, 0) }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard let map = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), map != MAP_FAILED else { return nil }
        defer { munmap(map, size) }
        var resident = [UInt8](repeating: 0, count: (size + page - 1) / page)
        guard mincore(map, size, &resident) == 0 else { return nil }
        let first = min(max(from, 0) / page, resident.count)
        let last = min(((to ?? size) + page - 1) / page, resident.count)
        let range = resident[first..<max(first, last)]
        return (range.reduce(0) { $0 + Int($1 & 1) }, range.count)
    }

    /// A new, already unlinked temporary file in `$TMPDIR` (or /tmp), open for reading and
    /// writing and closed on exec: a command's output kept without a name left behind. -1 with
    /// `errno` set when none could be made.
    package static func anonymousFile() -> Int32 {
        var base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        if base.isEmpty { base = "/tmp" }
        var template = Array((base + "/rocket-out-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        if fd >= 0 { template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) } }
        return fd
    }
}

/// Who may read a file this program makes (``FileIO/writeAtomically(_:to:replacing:access:)``).
package enum FileAccess: Sendable {
    /// Its owner alone (mode 600): what holds a person's answers or a server's secrets — a
    /// conversation's saved state, the visitor id, a store and its copies.
    case owner
    /// As the shell's `>` would make it: 0666 less the umask. What is made to be read, served or
    /// shared — a report's page, a starter flow and its cases, a test report for CI.
    case umask

    /// The mode handed to `open(2)` (which takes the umask away).
    var creationMode: mode_t {
        switch self {
        case .owner: 0o600
        case .umask: 0o666
        }
    }
}

/// The process environment, read from `environ` without Foundation.
package enum Environment {
    /// Seconds the host's local time is ahead of UTC at wall time `t` (its time zone, `TZ`
    /// included; summer time as it is then).
    package static func utcOffset(at t: Double) -> Int {
        var seconds = time_t(t.isFinite && abs(t) < 1e14 ? t : 0)
        var parts = tm()
        guard localtime_r(&seconds, &parts) != nil else { return 0 }
        return parts.tm_gmtoff
    }

    /// Every variable.
    package static var current: [String: String] {
        var env: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let s = String(cString: entry)
            if let eq = s.firstIndex(of: "=") { env[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
            p += 1
        }
        return env
    }
}
