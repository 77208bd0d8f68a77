import CMicroHTTPD
import RocketCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One open event stream, served outside libmicrohttpd once admitted: its socket (taken from the
/// library, see `rocket_mhd_take_socket`) and the bytes the socket has not taken yet. An idle
/// stream holds this object and a descriptor, nothing more.
///
/// Every call that can end the stream returns true exactly once, from the call that ended it:
/// the caller then forgets the stream (its address's share and the count of open streams).
final class EventStream: Sendable {
    /// The conversation it follows.
    let conversation: String
    /// The client address it counts against.
    let address: String
    /// Its number in the poller's events (never reused, unlike descriptors).
    let id: UInt64
    private let poll: Int32
    private struct State {
        var fd: Int32
        var buffer: [UInt8] = []
        var sent = 0
        var watchingWrites = false
        var finished = false
        /// False until ``EventStream/open(head:)``: bytes appended before it wait behind the head.
        var opened = false
        /// Bytes the client sent after its request (read and dropped).
        var ignored = 0
    }
    private let state: Mutex<State>
    /// Bytes a slow client may leave unread (beyond what the kernel holds) before its stream is
    /// closed.
    static let maxBacklog = RocketLimits.streamBacklogBytes
    /// Bytes a client may send on a stream after its request before it is cut off.
    static let maxIgnored = RocketLimits.streamIgnoredBytes
    /// Sent bytes past which the buffer drops them before it grows (a copy per 64 KiB sent, not
    /// per frame).
    private static let compactAfter = 64 << 10

    init(conversation: String, address: String, id: UInt64, socket: Int32, poll: Int32) {
        self.conversation = conversation
        self.address = address
        self.id = id
        self.poll = poll
        state = Mutex(State(fd: socket))
    }

    deinit {
        // A stream let go of without ending (its server gone) does not keep its socket.
        state.withLock { s in if s.fd >= 0 { close(s.fd) } }
    }

    /// Starts watching the socket and sends `head`. True when the stream ended at once.
    func open(head: [UInt8]) -> Bool {
        state.withLock { s -> Bool in
            guard s.fd >= 0 else { return false }
            guard !s.opened else { return false }
            s.opened = true
            guard rocket_poll_watch(poll, s.fd, id, 1, 0) == 0 else { return end(&s, watched: false) }
            s.buffer = head + s.buffer
            s.sent = 0
            return send(&s)
        }
    }

    /// Queues `bytes` and sends what the socket takes now. A client that leaves more than
    /// ``maxBacklog`` unread is cut off. True when the stream ended.
    func append(_ bytes: [UInt8]) -> Bool {
        state.withLock { s -> Bool in
            guard s.fd >= 0, !s.finished else { return false }
            let waiting = s.buffer.count - s.sent
            if waiting + bytes.count > Self.maxBacklog { return end(&s, watched: s.opened) }
            if waiting == 0 {
                s.buffer = bytes
                s.sent = 0
            } else {
                // What was sent goes before the buffer grows past it (the cap counts what waits).
                if s.sent >= Self.compactAfter {
                    s.buffer.removeFirst(s.sent)
                    s.sent = 0
                }
                s.buffer += bytes
            }
            return s.opened ? send(&s) : false
        }
    }

    /// The socket has room again. True when the stream ended.
    func writable() -> Bool {
        state.withLock { s -> Bool in s.fd >= 0 && s.opened ? send(&s) : false }
    }

    /// The client sent something (it should not): read and dropped, up to ``maxIgnored``; the
    /// end of its input ends the stream. True when the stream ended.
    func readable() -> Bool {
        state.withLock { s -> Bool in
            guard s.fd >= 0 else { return false }
            var sink = [UInt8](repeating: 0, count: 2_048)
            for _ in 0..<16 {
                let n = recv(s.fd, &sink, sink.count, Int32(MSG_DONTWAIT))
                if n > 0 {
                    s.ignored += n
                    if s.ignored > Self.maxIgnored { return end(&s, watched: s.opened) }
                    continue
                }
                if n < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return false }
                return end(&s)
            }
            return false
        }
    }

    /// The client hung up or the socket failed. True when the stream ended now.
    func hangUp() -> Bool {
        state.withLock { s -> Bool in s.fd >= 0 ? end(&s, watched: s.opened) : false }
    }

    /// Ends the stream after what is queued. True when it ended now.
    func finish() -> Bool {
        state.withLock { s -> Bool in
            guard s.fd >= 0 else { return false }
            s.finished = true
            return s.sent == s.buffer.count ? end(&s, watched: s.opened) : false
        }
    }

    /// Sends what the socket takes without waiting; watches for room when some is left.
    private func send(_ s: inout State) -> Bool {
        while s.sent < s.buffer.count {
            let n = s.buffer.withUnsafeBytes { raw in
                Glibc.send(s.fd, raw.baseAddress! + s.sent, raw.count - s.sent, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if n > 0 {
                s.sent += n
            } else if n < 0, errno == EINTR {
                continue
            } else if n < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                if !s.watchingWrites {
                    s.watchingWrites = true
                    if rocket_poll_watch(poll, s.fd, id, 0, 1) != 0 { return end(&s) }
                }
                return false
            } else {
                return end(&s)
            }
        }
        // All sent: an idle stream keeps no buffer.
        s.buffer = []
        s.sent = 0
        if s.finished { return end(&s) }
        if s.watchingWrites {
            s.watchingWrites = false
            if rocket_poll_watch(poll, s.fd, id, 0, 0) != 0 { return end(&s) }
        }
        return false
    }

    private func end(_ s: inout State, watched: Bool = true) -> Bool {
        if watched { _ = rocket_poll_forget(poll, s.fd) }
        close(s.fd)
        s.fd = -1
        s.buffer = []
        s.sent = 0
        return true
    }
}

/// The event streams' own epoll loop: hang-ups, room to write, and input nobody asked for.
final class StreamPoller: Sendable {
    private let poll: Int32
    private let table = Mutex<[UInt64: EventStream]>([:])
    private let lastID = Atomic<UInt64>(0)

    init() {
        poll = rocket_poll_open()
    }

    deinit {
        if poll >= 0 { close(poll) }
    }

    /// A stream over `socket` (owned by it from now on), known to the loop but not yet watched
    /// (``EventStream/open(head:)`` starts it). Nil when there is no epoll instance.
    func adopt(socket: Int32, conversation: String, address: String) -> EventStream? {
        guard poll >= 0 else {
            close(socket)
            return nil
        }
        let id = lastID.add(1, ordering: .relaxed).newValue
        let stream = EventStream(conversation: conversation, address: address, id: id, socket: socket, poll: poll)
        table.withLock { $0[id] = stream }
        return stream
    }

    /// Lets go of an ended stream.
    func remove(_ stream: EventStream) {
        _ = table.withLock { $0.removeValue(forKey: stream.id) }
    }

    /// The streams it knows.
    var all: [EventStream] { table.withLock { Array($0.values) } }

    /// Serves events until `stopping` says so (checked at least every 200 ms); `ended` is called
    /// with each stream that ended here.
    func run(stopping: () -> Bool, ended: (EventStream) -> Void) {
        guard poll >= 0 else { return }
        var ids = [UInt64](repeating: 0, count: 256)
        var events = [UInt32](repeating: 0, count: 256)
        while !stopping() {
            let n = Int(rocket_poll_wait(poll, &ids, &events, 256, 200))
            guard n > 0 else { continue }
            for k in 0..<n {
                // Looked up by number: a stream that ended meanwhile is no longer found.
                guard let stream = table.withLock({ $0[ids[k]] }) else { continue }
                let e = events[k]
                var over = false
                if e & 4 != 0 {
                    over = stream.hangUp()
                } else {
                    if e & 2 != 0 { over = stream.writable() }
                    if !over, e & 1 != 0 { over = stream.readable() }
                }
                if over { ended(stream) }
            }
        }
    }
}
