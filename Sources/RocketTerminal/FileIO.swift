#if canImport(Glibc)
import Glibc
#endif

/// Plain POSIX file access for the front end and the CLI (Foundation's FileHandle would pull ICU
/// into a static binary).
///
/// ```swift
/// switch FileIO.read("flow.json") {
/// case .success(let bytes): print(bytes.count)
/// case .failure(let f): print(f.reason)   // "no such file"
/// }
/// ```
public enum FileIO {
    /// Why a file could not be read or written: the errno text.
    public struct Failure: Error {
        /// A short reason, for messages.
        public let reason: String
        /// Wraps an errno value.
        public init(_ code: Int32) {
            switch code {
            case ENOENT: reason = "no such file"
            case EACCES, EPERM: reason = "permission denied"
            case EISDIR: reason = "is a directory"
            case EROFS: reason = "read-only file system"
            case ENOSPC: reason = "no space left on device"
            default: reason = String(decoding: strerror(code).map { UnsafeRawBufferPointer(start: $0, count: strlen($0)) } ?? UnsafeRawBufferPointer(start: nil, count: 0), as: UTF8.self)
            }
        }
    }

    /// The size of a regular file, or a failure (a directory is one).
    public static func size(_ path: String) -> Result<Int, Failure> {
        var st = stat()
        guard stat(path, &st) == 0 else { return .failure(Failure(errno)) }
        if (st.st_mode & S_IFMT) == S_IFDIR { return .failure(Failure(EISDIR)) }
        return .success(Int(st.st_size))
    }

    /// The whole file.
    public static func read(_ path: String) -> Result<[UInt8], Failure> {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(Failure(errno)) }
        defer { close(fd) }
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0 { if errno == EINTR { continue }; return .failure(Failure(errno)) }
            if n == 0 { return .success(out) }
            out += buffer[..<n]
        }
    }

    /// An open file written line by line (events).
    public final class Writer {
        private let fd: Int32

        /// Creates or truncates the file.
        public init(path: String) throws(Failure) {
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw Failure(errno) }
        }

        deinit { close(fd) }

        /// Writes all bytes.
        public func write(_ text: String) {
            let bytes = Array(text.utf8)
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, bytes.count - offset) }
                if n < 0 { if errno == EINTR { continue }; return }
                offset += n
            }
        }
    }

    /// Writes a whole file (created or truncated).
    public static func write(_ text: String, to path: String) -> Result<Void, Failure> {
        do {
            let w = try Writer(path: path)
            w.write(text)
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// Writes to standard output or error.
    public static func print(_ text: String, toError: Bool = false) {
        let line = text.hasSuffix("\n") ? text : text + "\n"
        let bytes = Array(line.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(toError ? 2 : 1, $0.baseAddress! + offset, bytes.count - offset) }
            if n < 0 { if errno == EINTR { continue }; return }
            offset += n
        }
    }
}

/// The process environment, read from `environ` without Foundation.
public enum Environment {
    /// Every variable.
    public static var current: [String: String] {
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
