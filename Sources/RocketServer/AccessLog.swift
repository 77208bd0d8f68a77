#if canImport(Glibc)
    import Glibc
#endif
import RocketCore
import RocketJSON
import RocketPlatform
import RocketScenarioEngine
import Synchronization

/// How `rocket serve` writes its lines on standard error (`--log-format`), the access log's
/// among them.
public enum LogFormat: String, Sendable, CaseIterable {
    /// A line of text each (an access log line: `TIME CLIENT METHOD PATH STATUS BYTES DURATION`,
    /// separated by spaces).
    case text
    /// One JSON object a line: `time`, `level` and `message` (and an access log line's fields by
    /// name).
    case json
}

/// A line per answer, for an operator: when, to whom, what was asked, the status, the bytes of
/// the body and how long it took. Lines are made on the HTTP threads (a lock held only to read
/// or keep the second's date), appended to a buffer under a short one, and written by a thread of their own, so a log reader that
/// stalls never stalls a request: past ``RocketLimits/accessLogBufferBytes`` lines are dropped
/// and counted, and the next line written says how many.
///
/// Nothing a visitor is known by is written: no query string (a path only, its bytes outside
/// printable ASCII percent-encoded, so a line cannot be forged or broken), no header, no body.
package final class AccessLog: Sendable {
    private struct Pending {
        var bytes: [UInt8] = []
        var dropped = 0
        /// True while a drain is queued or running (the next line does not queue another).
        var draining = false
    }
    private let format: LogFormat
    private let descriptor: Int32
    private let pending = Mutex(Pending())
    private let writer = WorkThread(named: "rocket-log")
    /// The time of day, in seconds since 1970 (the service's clock).
    private let now: @Sendable () -> Double
    /// The last second a line was made in, and its date and time of day as bytes.
    private let lastSecond = Mutex<(second: Double, text: [UInt8])>((-1, []))

    /// A log in `format` written to `descriptor` (standard error by default), its times from
    /// `now`.
    package init(format: LogFormat, descriptor: Int32 = 2, now: @escaping @Sendable () -> Double) {
        self.format = format
        self.descriptor = descriptor
        self.now = now
    }

    /// How long lines gather before a write (a line reaches the log at most this much later).
    static let gatherMicroseconds: UInt32 = 25_000

    /// Starts the writing thread (lines logged before it are held until it runs; after
    /// ``finish()``, they are held and never written).
    package func start() { writer.start() }

    /// Writes what is held and ends the writing thread (waiting at most 5 s for a reader that
    /// has stalled: a server that stops is never held up by its log).
    package func finish() { writer.finish() }

    /// Logs an answer: `method` and `path` as the request gave them, `client` its address,
    /// `status`, `bytes` of its body, `seconds` from its head to its answer.
    package func answered(method: String, path: String, client: String, status: Int, bytes: Int, seconds: Double) {
        let line = self.line(method: method, path: path, client: client, status: status, bytes: bytes, seconds: seconds, now: now())
        let schedule = pending.withLock { p -> Bool in
            guard p.bytes.count + line.count <= RocketLimits.accessLogBufferBytes else {
                p.dropped += 1
                return false
            }
            p.bytes.append(contentsOf: line)
            guard !p.draining else { return false }
            p.draining = true
            return true
        }
        if schedule { _ = writer.submit { [self] in drain() } }
    }

    /// Writes what is held until nothing is (the lock is never held while writing), after a
    /// moment in which more lines gather: under load one write takes hundreds of lines, and the
    /// thread wakes a few dozen times a second at most.
    private func drain() {
        usleep(Self.gatherMicroseconds)
        while true {
            let (bytes, dropped) = pending.withLock { p -> ([UInt8], Int) in
                let taken = (p.bytes, p.dropped)
                p.bytes = []
                p.dropped = 0
                if taken.0.isEmpty && taken.1 == 0 { p.draining = false }
                return taken
            }
            if bytes.isEmpty && dropped == 0 { return }
            var out = dropped > 0 ? droppedLine(dropped) : []
            out += bytes
            _ = FileIO.writeAll(descriptor, out)  // a log that cannot be written loses its lines, nothing else
        }
    }

    /// The line that says `count` lines were dropped.
    private func droppedLine(_ count: Int) -> [UInt8] {
        let message = "rocket serve: \(count) access log line(s) dropped: standard error was not read fast enough"
        switch format {
        case .text: return Array((message + "\n").utf8)
        case .json:
            var w = JSONBytes(capacity: 160)
            w.open()
            w.key("time", first: true)
            w.string(WallTime.formatMilliseconds(now()))
            w.key("level")
            w.string("warning")
            w.key("message")
            w.string(String(message.dropFirst("rocket serve: ".count)))
            w.close()
            return w.out + [0x0A]
        }
    }

    /// The bytes of one line.
    func line(method: String, path: String, client: String, status: Int, bytes: Int, seconds: Double, now: Double) -> [UInt8] {
        let method = Self.printable(method, limit: 16), path = Self.printable(path, limit: RocketLimits.accessLogPathBytes)
        let client = Self.printable(client.isEmpty ? "-" : client, limit: 64)
        let millis = (max(0, seconds) * 10_000).rounded() / 10
        let time = stamp(now)
        switch format {
        case .text:
            // Made as bytes: a line is made for every answer.
            var out: [UInt8] = []
            out.reserveCapacity(time.count + client.utf8.count + method.utf8.count + path.utf8.count + 40)
            out += time
            for part in [client, method, path, String(status), String(bytes)] {
                out.append(0x20)
                out += part.utf8
            }
            out.append(0x20)
            out += "\(millis)ms\n".utf8
            return out
        case .json:
            var w = JSONBytes(capacity: 200 + path.utf8.count)
            w.open()
            w.key("time", first: true)
            w.string(String(decoding: time, as: UTF8.self))
            w.key("level")
            w.string("info")
            w.key("message")
            w.string("\(method) \(path) \(status)")
            w.key("client")
            w.string(client)
            w.key("method")
            w.string(method)
            w.key("path")
            w.string(path)
            w.key("status")
            w.number(status)
            w.key("bytes")
            w.number(bytes)
            w.key("ms")
            w.number(millis)
            w.close()
            return w.out + [0x0A]
        }
    }

    /// `seconds` as ``WallTime/formatMilliseconds(_:)`` writes it, as bytes: made once a second
    /// (the last one kept), its milliseconds put in for each line.
    private func stamp(_ seconds: Double) -> [UInt8] {
        let whole = seconds.rounded(.down)
        var made = lastSecond.withLock { $0.second == whole ? $0.text : nil }
        if made == nil {
            let text = Array(WallTime.formatMilliseconds(whole).utf8)
            lastSecond.withLock { $0 = (whole, text) }
            made = text
        }
        guard var out = made, out.count > 5, out[out.count - 5] == 0x2E else { return Array(WallTime.formatMilliseconds(seconds).utf8) }
        let millis = min(999, max(0, Int(((seconds - whole) * 1_000).rounded(.down))))
        out[out.count - 4] = UInt8(48 + millis / 100)
        out[out.count - 3] = UInt8(48 + millis / 10 % 10)
        out[out.count - 2] = UInt8(48 + millis % 10)
        return out
    }

    /// `text` with every byte outside printable ASCII, and `%`, `"` and `\`, percent-encoded
    /// (so a line cannot be broken or forged, and reads the same in text and JSON), at most
    /// `limit` bytes of it, then `...`.
    static func printable(_ text: String, limit: Int) -> String {
        // Most are plain already: kept as they are.
        if text.utf8.count <= limit, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x25 && $0 != 0x22 && $0 != 0x5C }) { return text }
        var out: [UInt8] = []
        out.reserveCapacity(min(text.utf8.count, limit) + 3)
        let hex = Array("0123456789ABCDEF".utf8)
        for b in text.utf8 {
            let plain = b > 0x20 && b < 0x7F && b != 0x25 && b != 0x22 && b != 0x5C
            let size = plain ? 1 : 3
            guard out.count + size <= limit else {
                out += Array("...".utf8)
                break
            }
            if plain {
                out.append(b)
            } else {
                out += [0x25, hex[Int(b >> 4)], hex[Int(b & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
