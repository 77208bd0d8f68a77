import CMicroHTTPD
import RocketCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif
import RocketPlatform

/// The HTTP side of `rocket serve`: GNU libmicrohttpd (epoll, a thread pool, suspend/resume for
/// answers that wait) in front of a ``ConversationService``, plus one thread that advances
/// conversations when their timers are due and keeps event streams alive.
///
/// Requests are read (bodies up to the configured limit), handed to the service, and answered;
/// an admitted event stream leaves the library for a ``StreamPoller`` and is sent each change
/// of its conversation.
package final class HTTPServer: Sendable {
    /// Why the server cannot start.
    package struct Failure: Error, Sendable {
        /// A sentence naming the address and the cause.
        package var message: String
    }

    /// The logic.
    package let service: ConversationService
    private struct Handle: @unchecked Sendable {
        // The daemon pointer is set once in start and read-only afterwards; libmicrohttpd's
        // calls on it are thread-safe.
        let daemon: OpaquePointer
        /// The deadlines of its requests (rocket_mhd_start), freed after the daemon stops.
        let deadlines: OpaquePointer?
    }
    private let daemon = Mutex<Handle?>(nil)
    private let streams = Mutex<[String: [ObjectIdentifier: EventStream]]>([:])
    /// Open event streams per client address.
    private let streamsByAddress = Mutex<[String: Int]>([:])
    /// Admitted streams are served by this loop, outside libmicrohttpd.
    private let poller = StreamPoller()
    private let pollerDone = Mutex<Bool>(false)
    private let stopping = Atomic<Bool>(false)
    /// The event streams this server holds at once: `--max-streams`, or fewer when the open
    /// files the system allows would not hold them beside other connections (set at the start).
    private let streamLimit = Atomic<Int>(RocketLimits.eventStreams)
    private let wakePipe: (read: Int32, write: Int32)
    private let tickerDone = Mutex<Bool>(false)
    /// True once the checkpointer's thread has ended (or never ran).
    private let checkpointerDone = Mutex<Bool>(false)
    /// True once the webhook sender's thread has ended (or never ran).
    private let webhookDone = Mutex<Bool>(false)
    private let listenerDone = Mutex<Bool>(false)
    private let takeoverDone = Mutex<Bool>(false)
    /// The writer: its own thread commits what changed (each batch holds every change so far, so
    /// concurrent requests share a commit) and then sends the answers that waited for it.
    private let writerPipe: (read: Int32, write: Int32)
    private let writerSignalled = Atomic<Bool>(false)
    private let writerDone = Mutex<Bool>(false)
    /// The thread that runs work waiting for a database (deferred answers).
    private let database = WorkThread(named: "rocket-db")
    /// The thread for long deferred work (reports), apart from the database thread's short work.
    private let slowLane = WorkThread(named: "rocket-slow")
    /// A line per answer (`--access-log`), or nil.
    private let accessLog: AccessLog?
    /// Answers parked until the store holds their change (connections suspended meanwhile).
    private let waiters = Mutex<[Waiter]>([])
    private struct Waiter {
        let change: UInt64
        let context: RequestContext
        let connection: UInt
    }
    /// When the ticker will next wake by itself (a `Double`'s bits; 0 while it is deciding):
    /// a change wakes it only when it needs it sooner, not at every intent.
    private let plannedWake = Atomic<UInt64>(0)

    /// What the ticker calls now and then while it runs: a service manager's watchdog is told
    /// the server lives (the ticker, which also runs timers and ends late requests, is running).
    package struct Heartbeat: Sendable {
        /// Seconds between two calls.
        package var every: Double
        /// The call (on the ticker's thread, no lock held).
        package var beat: @Sendable () -> Void

        /// A call of `beat` every `every` seconds.
        package init(every: Double, beat: @escaping @Sendable () -> Void) {
            self.every = every
            self.beat = beat
        }
    }
    private let heartbeat: Heartbeat?

    /// A server for `service` (not listening until ``start(host:port:)``), whose ticker calls
    /// `heartbeat` while it runs.
    package init(service: ConversationService, heartbeat: Heartbeat? = nil) {
        self.service = service
        self.heartbeat = heartbeat
        let clock = service.clock
        accessLog = service.configuration.accessLog.map { AccessLog(format: $0, now: { clock.now }) }
        wakePipe = Self.wakingPipe()
        writerPipe = Self.wakingPipe()
    }

    /// A pipe that wakes a thread out of `poll`: both ends close on exec and never block (a
    /// write to a full pipe is dropped: a wake-up is already waiting). (-1, -1) when none could
    /// be made.
    static func wakingPipe() -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return (-1, -1) }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        return (fds[0], fds[1])
    }

    deinit {
        // The daemon's callbacks hold this object unretained; its threads (the ticker, the writer)
        // hold it strongly until stop() ends them, so it cannot go while the daemon runs. Should
        // it be dropped unstarted or already stopped, stop() does nothing.
        stop()
        for fd in [wakePipe.read, wakePipe.write, writerPipe.read, writerPipe.write] where fd >= 0 { close(fd) }
    }

    /// Open event streams.
    package var openStreams: Int { service.counters.streams.load(ordering: .relaxed) }

    /// Connections libmicrohttpd holds now (0 before `start` and after `stop`).
    package var openConnections: Int {
        daemon.withLock { handle in handle.map { Int(rocket_mhd_connections($0.daemon)) } ?? 0 }
    }

    /// Listens on `host` (an IP address) and `port` (0: any free port); returns the port.
    package func start(host: String, port: Int) throws(Failure) -> Int {
        guard (0...65535).contains(port) else { throw Failure(message: "the port must be from 0 to 65535") }
        return try begin(host: host, port: port, socket: -1)
    }

    /// Accepts on `socket`, a listening TCP socket a service manager passed (socket activation);
    /// returns the address and port it is bound to. A descriptor that is no such socket is refused.
    package func start(passedSocket socket: Int32) throws(Failure) -> (host: String, port: Int) {
        var host = [CChar](repeating: 0, count: 64)
        var port: UInt16 = 0
        var error = [CChar](repeating: 0, count: 256)
        guard rocket_mhd_listening_address(socket, &host, host.count, &port, &error, error.count) == 0 else {
            throw Failure(message: Self.text(error))
        }
        let address = Self.text(host)
        return (address, try begin(host: address, port: Int(port), socket: socket))
    }

    /// The text of a NUL-ended C buffer.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func begin(host: String, port: Int, socket: Int32) throws(Failure) -> Int {
        let c = service.configuration
        accessLog?.start()  // before the first answer can be logged
        // The webhook takes its place in the store before any request comes: a webhook new to the
        // store delivers every result written from now on.
        var webhookSender: WebhookSender?
        if let webhook = c.webhook, service.keepsResults, let archive = service.archive {
            let sender = WebhookSender(configuration: webhook, archive: archive, clock: service.clock, counters: service.counters, log: service.log)
            sender.register()
            webhookSender = sender
        }
        var error = [CChar](repeating: 0, count: 256)
        var deadlines: OpaquePointer?
        let me = Unmanaged.passUnretained(self).toOpaque()
        // Streams leave libmicrohttpd once admitted, each keeping a descriptor: what is left of
        // the descriptors beside the most streams allowed is for the library's connections.
        // Too few descriptors for --max-streams beside other connections: as many streams as
        // the rule of `descriptorsNeeded` lets fit, so connections keep their room (`rocket
        // serve` says so at its start).
        let descriptors = Self.descriptorLimit()
        let streams = c.descriptorsNeeded <= descriptors ? c.maxStreams : min(c.maxStreams, ServerConfiguration.streamsFitting(descriptors: descriptors))
        streamLimit.store(streams, ordering: .relaxed)
        let limit = UInt32(max(16, min(streams + 1_000, descriptors - 64 - streams)))
        // 12 KiB of memory per connection (RocketLimits.connectionMemoryBytes): room for a
        // request's line and 8 KiB of headers and more (what MHD keeps there; bodies are copied
        // out as they arrive). libmicrohttpd zeroes a connection's whole pool between requests,
        // so a larger pool costs every keep-alive request (64 KiB: 6 % of the server's time under
        // load). An event stream gives its connection (and that memory) back once it is admitted.
        // Connections per address: behind a trusted proxy every client comes through its
        // connections, so the proxy limits them instead.
        let perAddress = UInt32(c.trustsProxies ? 0 : c.connectionsPerAddress)
        let d = rocket_mhd_start(
            host, UInt16(port), socket, 2, max(16, limit), perAddress, UInt32(max(1, c.idleConnectionSeconds)), RocketLimits.connectionMemoryBytes,
            { cls, connection, url, method, version, data, size, context in
                guard let cls, let connection, let url, let method, let size, let context else { return .NO }
                let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
                return server.access(connection, url, method, version, data, size, context)
            }, me,
            { _, connection, context, _ in
                // The connection's next request must come whole in time (the idle time, then the
                // request's own).
                if let connection { rocket_mhd_request_done(connection) }
                guard let context, let raw = context.pointee else { return }
                Unmanaged<RequestContext>.fromOpaque(raw).release()
                context.pointee = nil
            }, nil, UInt32(max(1, c.idleConnectionSeconds) * 1_000) + Self.milliseconds(c.requestSeconds), Self.milliseconds(c.requestSeconds),
            &deadlines, &error, error.count)
        guard let d else {
            accessLog?.finish()
            throw Failure(message: Self.text(error))
        }
        daemon.withLock { $0 = Handle(daemon: d, deadlines: deadlines) }
        service.onChange { [weak self] change in
            self?.push(change)
            self?.wakeIfNeeded(for: change)
            self?.wakeWriter()
        }
        // A forgotten visitor's streams end: nothing of theirs is sent again.
        service.onForgotten { [weak self] ids in self?.endStreams(of: ids) }
        startTicker()
        if !OffThread.detach(
            named: "rocket-streams",
            { [self] in
                poller.run(stopping: { stopping.load(ordering: .relaxed) }, ended: { forget($0) })
                pollerDone.withLock { $0 = true }
            })
        {
            pollerDone.withLock { $0 = true }
        }
        database.start()
        slowLane.start()
        if !service.persists || !OffThread.detach(named: "rocket-checkpoint", { [self] in checkpointLoop() }) {
            checkpointerDone.withLock { $0 = true }
        }
        if service.persists, !OffThread.detach(named: "rocket-writer", { [self] in writeLoop() }) { writerDone.withLock { $0 = true } }
        // Results go to the webhook from a thread of their own: a slow endpoint holds up nothing else.
        if let sender = webhookSender {
            if !OffThread.detach(named: "rocket-webhook", { [self] in webhookLoop(sender) }) { webhookDone.withLock { $0 = true } }
        } else {
            webhookDone.withLock { $0 = true }
        }
        // A store other servers share tells of their changes: the streams here follow them.
        if !startListener() {
            listenerDone.withLock { $0 = true }
            takeoverDone.withLock { $0 = true }
        }
        if !service.persists { writerDone.withLock { $0 = true } }
        let bound = Int(rocket_mhd_port(d))
        service.listening(host: host, port: bound)
        return bound
    }

    private static func descriptorLimit() -> Int {
        var r = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &r) == 0 else { return 1024 }
        return r.rlim_cur > 1 << 20 ? 1 << 20 : Int(r.rlim_cur)
    }

    /// Stops: no new connections, open streams end, requests under way finish, the ticker ends.
    package func stop() {
        guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
        guard let handle = daemon.withLock({ $0 }) else { return }
        // The listening socket is closed after the daemon has stopped (libmicrohttpd's threads
        // may use it until then; closed early, its number could go to another file meanwhile).
        let listening = rocket_mhd_quiesce(handle.daemon)
        let all = streams.withLock { Array($0.values.flatMap(\.values)) }
        for s in all where s.finish() { forget(s) }
        wake()
        // The ticker notices `stopping` at its next wake-up (at once: the pipe was written).
        for _ in 0..<200 where !tickerDone.withLock({ $0 }) { usleep(5_000) }
        // The database thread finishes its work (its answers resume their connections).
        database.finish()
        slowLane.finish()
        // The writer commits what is left and sends the answers waiting for it.
        signalWriter()
        for _ in 0..<1_000 where !writerDone.withLock({ $0 }) { usleep(5_000) }
        for _ in 0..<1_000 where !checkpointerDone.withLock({ $0 }) { usleep(5_000) }
        // A delivery under way ends by its own deadline; the thread stops after it.
        for _ in 0..<200 where !webhookDone.withLock({ $0 }) { usleep(5_000) }
        for _ in 0..<1_000 where !listenerDone.withLock({ $0 }) { usleep(5_000) }
        for _ in 0..<1_000 where !takeoverDone.withLock({ $0 }) { usleep(5_000) }
        MHD_stop_daemon(handle.daemon)
        accessLog?.finish()
        if listening >= 0 { close(listening) }
        daemon.withLock { $0 = nil }
        rocket_mhd_deadlines_free(handle.deadlines)
        // Streams still sending when the stream loop ended are closed as they are.
        for _ in 0..<1_000 where !pollerDone.withLock({ $0 }) { usleep(5_000) }
        for s in poller.all where s.hangUp() { forget(s) }
        service.flush()  // the last changes reach the store before the process ends
    }

    // MARK: Requests

    final class RequestContext: @unchecked Sendable {
        // Used by one connection at a time: libmicrohttpd calls its handler for a connection on
        // one thread, and the writer touches `saved` only while the connection is suspended.
        /// When the request's headers were in (monotonic seconds): its body must arrive within
        /// ``ServerConfiguration/requestSeconds`` of it.
        let started = HTTPServer.monotonic()
        var body: [UInt8] = []
        var tooLarge = false
        var query = [String: String]()
        /// Made once the request's headers are in, for as many as there are.
        var headers = [String: String]()
        /// A header the request gives more than once that it may give only once.
        var repeated: String?
        /// A query parameter the request gives more than once.
        var repeatedParameter: String?
        /// An answer waiting for the store, and whether its change was saved.
        var parked: HTTPResponse?
        var saved = true
        /// The request, kept for an answer delivered after the connection was parked.
        var request: HTTPRequest?
        /// True once the request ran again after the store refused its change.
        var retried = false

        /// Lets go of the request's parts (an event stream's connection outlives them).
        func trim() {
            body = []
            query = [String: String]()
            headers = [String: String]()
            request = nil
            parked = nil
        }
    }

    private func access(
        _ connection: OpaquePointer, _ url: UnsafePointer<CChar>, _ methodBytes: UnsafePointer<CChar>, _ version: UnsafePointer<CChar>?,
        _ data: UnsafePointer<CChar>?,
        _ size: UnsafeMutablePointer<Int>, _ context: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        let limit = service.configuration.maxBodyBytes
        // An answer made before the request is (its line is logged as the library read it).
        let early = Early(method: methodBytes, target: url)
        func refuse(_ response: HTTPResponse) -> MHD_Result { queue(connection, response, early: early) }
        guard let raw = context.pointee else {
            // The framing is checked before a byte of the body is read: shapes that a proxy and
            // this server could read as different requests are refused.
            switch rocket_mhd_framing(connection, methodBytes, version) {
            case 0: break
            case 1: return refuse(.error(400, "bad-framing", "a request may not have both Transfer-Encoding and Content-Length"))
            case 2: return refuse(.error(400, "bad-framing", "Content-Length or Transfer-Encoding is given more than once"))
            case 3: return refuse(.error(400, "bad-header", "a header line is folded (obs-fold); send each header on one line"))
            case 5: return refuse(.error(400, "bad-framing", "Transfer-Encoding may only be chunked"))
            case 6: return refuse(.error(501, "unsupported-coding", "the only Transfer-Encoding taken is chunked"))
            case 7: return refuse(.error(400, "bad-target", "the request's path or query holds an encoded NUL (%00)"))
            case 8: return refuse(.error(400, "bad-header", "a header's name is not a token (a space before its colon?)"))
            default: return refuse(.error(400, "bad-host", "an HTTP/1.1 request must name its Host exactly once (HTTP/1.0: at most once)"))
            }
            // So many header lines or query parameters are refused whole: none is ever dropped
            // unread (a credential or an Origin past the hundredth would have been).
            if Int(MHD_get_connection_values(connection, .HEADER_KIND, nil, nil)) > RocketLimits.requestHeaders {
                return refuse(.error(431, "too-many-headers", "a request may have at most \(RocketLimits.requestHeaders) header lines"))
            }
            if Int(MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, nil, nil)) > RocketLimits.queryParameters {
                return refuse(.error(400, "bad-query", "a request may have at most \(RocketLimits.queryParameters) query parameters"))
            }
            // A declared body over the limit is refused before a byte of it is read.
            if let declared = Self.contentLength.withCString({ MHD_lookup_connection_value(connection, .HEADER_KIND, $0) }).map({ String(cString: $0) }),
                let n = Int(declared), n > limit
            {
                return refuse(HTTPResponse.bodyTooLarge(limit))
            }
            let ctx = RequestContext()
            context.pointee = Unmanaged.passRetained(ctx).toOpaque()
            return .YES
        }
        let ctx = Unmanaged<RequestContext>.fromOpaque(raw).takeUnretainedValue()
        // Resumed: by the writer (the change is saved, or could not be) or by the database
        // thread (the deferred work is done); the answer goes now.
        if let parked = ctx.parked {
            ctx.parked = nil
            guard ctx.saved else { return queue(connection, ConversationService.storeUnavailable, timing: ctx) }
            // A change the store refused (another server changed the conversation first).
            if let change = parked.durableAfter, service.wasRefused(change), let request = ctx.request { return retryRefused(connection, ctx, request) }
            return deliver(connection, ctx.request ?? HTTPRequest(method: "GET", path: "/"), parked, timing: ctx)
        }
        if size.pointee > 0 {
            // A body trickled in byte by byte is cut off by one deadline for all of it.
            if Self.monotonic() - ctx.started > service.configuration.requestSeconds { return .NO }
            if let data, !ctx.tooLarge {
                if ctx.body.count + size.pointee > limit {
                    ctx.tooLarge = true
                    ctx.body = []
                } else {
                    data.withMemoryRebound(to: UInt8.self, capacity: size.pointee) { p in
                        ctx.body.append(contentsOf: UnsafeBufferPointer(start: p, count: size.pointee))
                    }
                }
            }
            size.pointee = 0
            return .YES
        }
        // Read whole: the connection's deadline is lifted (an answer may take its time).
        rocket_mhd_request_read(connection)
        // A body past the limit (sent in chunks, so not declared) is refused whatever the route:
        // one that takes no body does not answer as if none had come.
        if ctx.tooLarge { return refuse(HTTPResponse.bodyTooLarge(limit)) }
        let me = Unmanaged.passUnretained(ctx).toOpaque()
        // Counted first (a call without an iterator), so the table is made once at its size
        // (it was made for 16 with every request's context: 3 % of the request threads' samples).
        let count = Int(MHD_get_connection_values(connection, .HEADER_KIND, nil, nil))
        ctx.headers = Dictionary(minimumCapacity: min(max(count, 0), RocketLimits.requestHeaders))
        _ = MHD_get_connection_values(
            connection, .HEADER_KIND,
            { cls, _, key, value in
                guard let cls, let key else { return .YES }
                let c = Unmanaged<RequestContext>.fromOpaque(cls).takeUnretainedValue()
                let name = key.withMemoryRebound(to: UInt8.self, capacity: 1) { HTTPRequest.lowercased(UnsafeBufferPointer(start: $0, count: strlen(key))) }
                if c.headers.updateValue(value.map { String(cString: $0) } ?? "", forKey: name) != nil,
                    HTTPRequest.Name.singleValued.contains(name)
                {
                    c.repeated = name
                }
                return .YES
            }, me)
        _ = MHD_get_connection_values(
            connection, .GET_ARGUMENT_KIND,
            { cls, _, key, value in
                guard let cls, let key else { return .YES }
                let c = Unmanaged<RequestContext>.fromOpaque(cls).takeUnretainedValue()
                let name = String(cString: key)
                if c.query.updateValue(value.map { String(cString: $0) } ?? "", forKey: name) != nil, c.repeatedParameter == nil {
                    c.repeatedParameter = name
                }
                return .YES
            }, me)
        if let name = ctx.repeated {
            return refuse(.error(400, "bad-header", "\(name) is given more than once; a request may give it once"))
        }
        var request = HTTPRequest(
            method: String(cString: methodBytes), path: HTTPRequest.path(ofTarget: String(cString: url)), query: ctx.query, lowercasedHeaders: ctx.headers,
            body: ctx.body,
            bodyTooLarge: ctx.tooLarge)
        if let peer = Self.peer(of: connection) { request.peer = peer }
        request.repeatedParameter = ctx.repeatedParameter
        ctx.request = request
        return respond(connection, ctx, request, service.handleDeferring(request))
    }

    /// A change of this request that the store refused (another server changed the
    /// conversation first): the request runs once more, on the conversation as the store now
    /// holds it (a tap meant for the conversation as the visitor sees it is applied then, in
    /// order); refused again, it is answered 409 `stale-step`.
    private func retryRefused(_ connection: OpaquePointer, _ ctx: RequestContext, _ request: HTTPRequest) -> MHD_Result {
        guard !ctx.retried else { return queue(connection, ConversationService.changedElsewhere, timing: ctx) }
        ctx.retried = true
        return respond(connection, ctx, request, service.handleDeferring(request))
    }

    /// Answers `request` with `response`: deferred work goes to the database thread, an answer
    /// whose change is not yet durable is parked until it is, anything else is sent.
    private func respond(_ connection: OpaquePointer, _ ctx: RequestContext, _ request: HTTPRequest, _ response: HTTPResponse) -> MHD_Result {
        if let work = response.deferred {
            // Work that waits for a database runs on the database thread; the connection is
            // parked meanwhile and the answer goes once it is done (and durable).
            MHD_suspend_connection(connection)
            let bits = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
            let submitted = (response.slow ? slowLane : database).submit { [self] in
                let answer = work().resolved()
                if let change = answer.durableAfter, change > service.saved {
                    ctx.parked = answer
                    ctx.saved = true
                    let queued = waiters.withLock { list -> Bool in
                        guard change > service.saved else { return false }
                        list.append(Waiter(change: change, context: ctx, connection: bits))
                        return true
                    }
                    if queued {
                        wakeWriter()
                        return
                    }
                }
                ctx.parked = answer
                ctx.saved = true
                if let c = OpaquePointer(bitPattern: bits) { MHD_resume_connection(c) }
            }
            if !submitted {
                ctx.parked = HTTPResponse.error(503, "stopping", "the server is stopping")
                MHD_resume_connection(connection)
            }
            return .YES
        }
        if let change = response.durableAfter, change > service.saved {
            // Acknowledged means durable: the answer waits, its connection suspended (no thread
            // waits), until the writer has committed the change. Suspended before the writer
            // can see it (a resume must follow a suspend), outside the waiters' lock (the
            // library's suspension is a system call the writer need not wait for).
            ctx.parked = response
            let bits = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
            MHD_suspend_connection(connection)
            let parked = waiters.withLock { list -> Bool in
                guard change > service.saved else { return false }
                list.append(Waiter(change: change, context: ctx, connection: bits))
                return true
            }
            // One pipe write per batch, not per answer (the change's publication has usually
            // signalled the writer already). Saved meanwhile: the parked answer goes at once.
            if parked { wakeWriter() } else { MHD_resume_connection(connection) }
            return .YES
        }
        // A stream lives long: its connection keeps nothing of the request it no longer needs.
        if response.stream != nil { ctx.trim() }
        if let change = response.durableAfter, service.wasRefused(change) { return retryRefused(connection, ctx, request) }
        return deliver(connection, request, response, timing: ctx)
    }

    /// Sends `response`: an event stream is opened (within its address's share), anything else
    /// is queued (timed from `timing`'s start).
    private func deliver(_ connection: OpaquePointer, _ request: HTTPRequest, _ answer: HTTPResponse, timing: RequestContext) -> MHD_Result {
        var response = answer
        if let id = response.stream {
            let address = service.clientAddress(request)
            let limit = service.configuration.streamsPerAddress
            let admitted = streamsByAddress.withLock { held -> Bool in
                guard held[address, default: 0] < limit else { return false }
                held[address, default: 0] += 1
                return true
            }
            if !admitted {
                response = service.quotaFull("event streams")
            } else if stopping.load(ordering: .relaxed) || openStreams >= streamLimit.load(ordering: .relaxed) {
                release(address)
                response = .error(503, "too-many-streams", "the server holds its maximum of event streams; try again later")
                // A page tries again after this (a stopping server's successor is soon up).
                response.headers.append(("Retry-After", stopping.load(ordering: .relaxed) ? "2" : "10"))
            } else {
                return openStream(connection, id: id, address: address, response: response, request: request, started: timing.started)
            }
        }
        return queue(connection, response, timing: timing)
    }

    /// The address of `connection`'s peer, or nil when it cannot be read.
    private static func peer(of connection: OpaquePointer) -> String? {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer -> String? in
            guard let base = buffer.baseAddress, rocket_mhd_client_address(connection, base, 64) != 0 else { return nil }
            base[63] = 0
            return String(cString: base)
        }
    }

    /// The request line of an answer made before its request was read whole (a refusal of its
    /// framing or headers), for the access log.
    private struct Early {
        let method: UnsafePointer<CChar>
        let target: UnsafePointer<CChar>
    }

    /// Queues `response` on `connection`; counted by status, and, with `timing` (the request's
    /// context), timed from its head to now on its route; logged with `--access-log` (the
    /// request `timing` holds, else the `early` request line).
    private func queue(_ connection: OpaquePointer, _ response: HTTPResponse, timing: RequestContext? = nil, early: Early? = nil) -> MHD_Result {
        let made: OpaquePointer?
        if let file = response.file {
            // The library closes its own descriptor once the answer is sent (by sendfile: no
            // copy of the file is held while a slow client reads it).
            let own = dup(file.descriptor)
            guard own >= 0 else {
                return queue(connection, .error(503, "busy", "the server has no file descriptor to spare; try again"), timing: timing, early: early)
            }
            made = MHD_create_response_from_fd_at_offset64(UInt64(file.size), own, 0)
            if made == nil { close(own) }
        } else if let shared = response.shared {
            // The library holds the bytes (a retain its free callback gives back) for as long as
            // it sends them: one copy for every answer, however slowly each is read.
            let held = Unmanaged.passRetained(shared)
            made = MHD_create_response_from_buffer_with_free_callback_cls(
                shared.count, UnsafeMutableRawPointer(mutating: shared.baseAddress),
                { cls in
                    if let cls { Unmanaged<SharedBytes>.fromOpaque(cls).release() }
                }, held.toOpaque())
            if made == nil { held.release() }
        } else {
            made = response.body.withUnsafeBytes { raw in
                MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
            }
        }
        guard let r = made else { return .NO }
        defer { MHD_destroy_response(r) }
        addHeaders(response, to: r)
        if let timing, let path = timing.request?.path, let route = TimedRoutes.index(of: path) {
            service.counters.answered(response.status, route: route, seconds: Self.monotonic() - timing.started)
        } else {
            service.counters.answered(response.status)
        }
        if let accessLog {
            let bytes = response.file.map { Int($0.size) } ?? response.shared?.count ?? response.body.count
            log(accessLog, connection, response.status, bytes: bytes, request: timing?.request, started: timing?.started, early: early)
        }
        return MHD_queue_response(connection, UInt32(response.status), r)
    }

    /// Writes an answer's line to the access log: `request`'s (its client as the limits name it,
    /// before an IPv6 address is cut to its /64), else the `early` request line and the peer;
    /// timed from `started` (monotonic seconds) when known.
    private func log(
        _ log: AccessLog, _ connection: OpaquePointer, _ status: Int, bytes: Int, request: HTTPRequest?, started: Double?, early: Early? = nil
    ) {
        let seconds = started.map { Self.monotonic() - $0 } ?? 0
        if let request {
            log.answered(
                method: request.method, path: request.path, client: service.namedClient(request), status: status, bytes: bytes, seconds: seconds)
        } else {
            let method = early.map { String(cString: $0.method) } ?? "-"
            let path = early.map { HTTPRequest.path(ofTarget: String(cString: $0.target)) } ?? "-"
            log.answered(method: method, path: path, client: Self.peer(of: connection) ?? "", status: status, bytes: bytes, seconds: seconds)
        }
    }

    /// `seconds` in whole milliseconds for the C side (at least 1, at most a day).
    static func milliseconds(_ seconds: Double) -> UInt32 {
        UInt32(max(1, min(86_400_000, (seconds * 1_000).rounded(.up))))
    }

    /// The header a body's declared size is read from.
    private static let contentLength = "Content-Length"

    /// What every answer carries, whatever route or layer made it.
    static let everyAnswer: [(String, String)] = [("X-Content-Type-Options", "nosniff")]

    /// Puts `response`'s headers and ``everyAnswer`` on the library's response.
    private func addHeaders(_ response: HTTPResponse, to r: OpaquePointer) {
        // Explicit C strings: a short Swift string handed to C as an argument is copied to the
        // heap first (one allocation per name and value, per answer).
        func add(_ k: String, _ v: String) { _ = k.withCString { name in v.withCString { value in MHD_add_response_header(r, name, value) } } }
        for (k, v) in response.headers { add(k, Self.headerValue(v)) }
        for (k, v) in Self.everyAnswer { add(k, v) }
    }

    /// A header value without line breaks or other control characters.
    static func headerValue(_ s: String) -> String {
        var text = s
        guard text.withUTF8({ $0.contains { $0 < 0x20 || $0 == 0x7F } }) else { return s }
        return String(String.UnicodeScalarView(s.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }))
    }

    // MARK: Event streams

    /// Seconds on the monotonic clock (deadlines of the HTTP layer, which no manual clock drives).
    static func monotonic() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// One stream of `address` closed.
    private func release(_ address: String) {
        streamsByAddress.withLock { held in
            let n = held[address, default: 0] - 1
            held[address] = n > 0 ? n : nil
        }
    }

    /// Opens an admitted stream: its socket leaves libmicrohttpd (which closes its own
    /// descriptor of it, told so by the access handler's `.NO`), and the answer's head and first
    /// frames go out through the stream loop.
    private func openStream(
        _ connection: OpaquePointer, id: String, address: String, response: HTTPResponse, request: HTTPRequest, started: Double
    ) -> MHD_Result {
        // Sent bytes the client does not acknowledge in time end the stream.
        let socket = rocket_mhd_take_socket(connection, UInt32(RocketLimits.streamAckSeconds * 1_000))
        guard socket >= 0, let stream = poller.adopt(socket: socket, conversation: id, address: address) else {
            release(address)
            return .NO
        }
        // Counted before its first byte goes: however soon it ends, it is forgotten once.
        streams.withLock { $0[id, default: [:]][ObjectIdentifier(stream)] = stream }
        service.counters.streams.add(1, ordering: .relaxed)
        service.counters.answered(response.status)
        if let accessLog { log(accessLog, connection, response.status, bytes: response.body.count, request: request, started: started) }
        if stream.open(head: Self.streamHead(response) + response.body) {
            forget(stream)
            return .NO
        }
        // A change between the first frames and the registration is sent now (nothing when the
        // conversation is still at the first frame's version).
        if let frames = service.currentFrames(id, after: response.streamVersion), stream.append(frames) { forget(stream) }
        return .NO
    }

    /// The head of an event stream's answer, as bytes on the wire: its headers and
    /// ``everyAnswer``'s; the body runs until the connection closes.
    static func streamHead(_ response: HTTPResponse, now: time_t = time(nil)) -> [UInt8] {
        var head = "HTTP/1.1 \(response.status) OK\r\nDate: \(httpDate(now))\r\n"
        for (k, v) in response.headers + everyAnswer { head += "\(k): \(headerValue(v))\r\n" }
        head += "Connection: close\r\n\r\n"
        return Array(head.utf8)
    }

    /// An HTTP date (RFC 9110: IMF-fixdate), whatever the process's locale.
    static func httpDate(_ t: time_t) -> String {
        var clock = t
        var parts = tm()
        gmtime_r(&clock, &parts)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let day = days[Int(parts.tm_wday) % 7]
        let month = months[Int(parts.tm_mon) % 12]
        return "\(day), \(two(parts.tm_mday)) \(month) \(1900 + parts.tm_year) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }

    private func forget(_ stream: EventStream) {
        let removed = streams.withLock { table -> Bool in
            guard table[stream.conversation]?.removeValue(forKey: ObjectIdentifier(stream)) != nil else { return false }
            if table[stream.conversation]?.isEmpty == true { table[stream.conversation] = nil }
            return true
        }
        poller.remove(stream)
        if removed {
            service.counters.streams.subtract(1, ordering: .relaxed)
            release(stream.address)
        }
    }

    /// Starts the threads of a store other servers share: one hears of their changes, one takes
    /// over the timers of conversations whose server stopped. False when the store is not shared.
    private func startListener() -> Bool {
        guard let archive = service.archive, archive.isShared else { return false }
        return OffThread.detach(named: "rocket-listen") { [self] in
            archive.listen(
                stopping: { [weak self] in self?.stopping.load(ordering: .relaxed) ?? true },
                changed: { [weak self] changes in
                    guard let self else { return }
                    self.service.counters.changesHeard.add(1, ordering: .releasing)
                    self.refreshStreams(self.service.storeChanged(changes))
                    // Copies dropped with unsaved changes: their parked answers are due now.
                    self.wakeWriter()
                },
                reconnected: { [weak self] in
                    guard let self else { return }
                    self.service.storeReconnected()
                    self.refreshStreams(self.streams.withLock { Array($0.keys) })
                })
            listenerDone.withLock { $0 = true }
        }
            && OffThread.detach(named: "rocket-takeover") { [self] in
                // Four times a second: the timers of conversations whose server stopped run here.
                while !stopping.load(ordering: .relaxed) {
                    if service.takeOverDue() { wake() }
                    usleep(250_000)
                }
                takeoverDone.withLock { $0 = true }
            }
    }

    /// Ends the event streams of conversations (or alerts) `ids`.
    private func endStreams(of ids: [String]) {
        let ending = streams.withLock { all in ids.flatMap { all[$0].map { Array($0.values) } ?? [] } }
        for s in ending where s.finish() { forget(s) }
    }

    /// Sends the streams that follow these conversations their state as the store now holds it
    /// (read again: another server changed them), and ends those of conversations that cannot
    /// go on (another server erased, expired or removed them): their pages learn it at once.
    private func refreshStreams(_ ids: [String]) {
        var gone: [String] = []
        for id in ids where streams.withLock({ $0[id] != nil }) {
            switch service.refresh(id) {
            case .changed(let change):
                push(change)
                wakeIfNeeded(for: change)
            case .gone: gone.append(id)
            case .unreadable: break
            }
        }
        if !gone.isEmpty { endStreams(of: gone) }
    }

    private func push(_ change: ConversationService.Change) {
        // No stream open: no lock to take. (A stream counted after this look still gets the
        // change: it sends the conversation's current frames once it is registered.)
        guard service.counters.streams.load(ordering: .acquiring) > 0 else { return }
        let targets = streams.withLock { $0[change.id].map { Array($0.values) } ?? [] }
        guard !targets.isEmpty else { return }  // nothing to write for a conversation no page follows
        let bytes = change.frames
        for s in targets where s.append(bytes) { forget(s) }
    }

    private func keepAlive() {
        let all = streams.withLock { Array($0.values.flatMap(\.values)) }
        let ping = Array(": keep-alive\n\n".utf8)
        for s in all where s.append(ping) { forget(s) }
    }

    // MARK: Ticker

    /// Wakes the ticker when `change` needs it before it would wake by itself: a timer due
    /// sooner. (Saves are the writer's: it is woken by every change.)
    private func wakeIfNeeded(for change: ConversationService.Change) {
        let planned = plannedWake.load(ordering: .acquiring)
        if Self.needsWake(planned: planned, deadline: change.deadline) { wake() }
    }

    /// True when a change with the conversation's next `deadline` needs the ticker sooner than
    /// `planned` (the bits of its wake-up time; 0 while it decides, when it may have read the
    /// state before the change).
    static func needsWake(planned: UInt64, deadline: Double?) -> Bool {
        guard planned != 0 else { return true }
        return (deadline ?? .infinity) < Double(bitPattern: planned)
    }

    private func wake() {
        guard wakePipe.write >= 0 else { return }
        var b: UInt8 = 1
        _ = write(wakePipe.write, &b, 1)
    }

    /// Wakes the writer once per batch of changes (a pipe write only when it is not already
    /// signalled).
    private func wakeWriter() {
        guard service.persists, !writerSignalled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        signalWriter()
    }

    private func signalWriter() {
        guard writerPipe.write >= 0 else { return }
        var b: UInt8 = 1
        _ = write(writerPipe.write, &b, 1)
    }

    /// The writer commits again once it has spent this long on expired rows (seconds): in
    /// practice after each batch (``ConversationService/expiryBatch``, about 8 ms).
    static let expirySlice = 0.005

    /// The least time from one commit's start to the next one's (seconds) while batches hold
    /// several changes. Batches of a busy server grow, so a change costs fewer pages of the log
    /// and fewer wake-ups (intents +5–10 %, p99 7 → 5 ms in alternating runs); an answer waits at
    /// most this much longer.
    static let commitSpacing = 0.0005

    /// How long the writer waits before its next commit: `lastBatch` changes were in the last
    /// one, which started `since` seconds ago.
    static func commitWait(lastBatch: UInt64, since: Double) -> Double {
        lastBatch > 1 && since < commitSpacing ? commitSpacing - max(0, since) : 0
    }

    /// The writer's loop: commit what changed, then answer the requests that waited for it; when
    /// a commit fails, try again every second (the answers waiting meanwhile get 503).
    private func writeLoop() {
        var sink = [UInt8](repeating: 0, count: 256)
        var lastExpiry = -Double.infinity
        var expiryBehind = false
        var lastCommit = -Double.infinity
        var lastThrough: UInt64 = 0
        var lastBatch: UInt64 = 0
        while true {
            let ending = stopping.load(ordering: .acquiring)
            // Expired conversations and visitor statistics leave the stores every minute, in
            // slices of at most about `expirySlice` with commits between them.
            if expiryBehind || Self.monotonic() - lastExpiry >= 60 {
                let began = Self.monotonic()
                expiryBehind = service.expireStored(enough: { Self.monotonic() - began >= Self.expirySlice }).more
                lastExpiry = Self.monotonic()
            }
            // Under load (the last batch held changes of several requests), commits start at
            // most every `commitSpacing`: what comes meanwhile joins the batch. One client's
            // changes one after the other are each committed at once.
            let wait = ending ? 0 : Self.commitWait(lastBatch: lastBatch, since: Self.monotonic() - lastCommit)
            if wait > 0 { usleep(UInt32(wait * 1e6)) }
            lastCommit = Self.monotonic()
            writerSignalled.store(false, ordering: .releasing)
            let result: ConversationService.FlushResult? = service.hasUnsavedChanges ? service.flush() : nil
            lastBatch = result.map { $0.saved ? $0.through &- lastThrough : 0 } ?? 0
            if let result { lastThrough = result.through }
            resolveWaiters(result, ending: ending)
            if let refused = result?.refused, !refused.isEmpty { refreshStreams(refused) }
            if ending { break }
            var fd = pollfd(fd: writerPipe.read, events: Int16(POLLIN), revents: 0)
            if poll(&fd, 1, service.isFailing ? 1_000 : expiryBehind ? 10 : 60_000) > 0 {
                while read(writerPipe.read, &sink, sink.count) > 0 {}
            }
        }
        writerDone.withLock { $0 = true }
    }

    /// The webhook sender's loop: a turn, then the pause it asks for, until the server stops.
    private func webhookLoop(_ sender: WebhookSender) {
        let counters = service.counters
        while !stopping.load(ordering: .acquiring) {
            // What was written before the turn: a result written after it ends the wait.
            let results = counters.resultsTotal.load(ordering: .acquiring)
            let heard = counters.changesHeard.load(ordering: .acquiring)
            let pause = sender.turn()
            var waited = 0.0
            while !stopping.load(ordering: .acquiring),
                !WebhookSender.endsWait(
                    pause: pause, waited: waited, resultsChanged: counters.resultsTotal.load(ordering: .acquiring) != results,
                    othersChanged: counters.changesHeard.load(ordering: .acquiring) != heard)
            {
                usleep(20_000)
                waited += 0.02
            }
        }
        webhookDone.withLock { $0 = true }
    }

    /// The checkpointer's loop: five passive checkpoints a second, beside the writer's commits,
    /// until the server stops.
    private func checkpointLoop() {
        while !stopping.load(ordering: .acquiring) {
            service.checkpoint()
            for _ in 0..<20 where !stopping.load(ordering: .acquiring) { usleep(10_000) }
        }
        checkpointerDone.withLock { $0 = true }
    }

    /// Sends the parked answers whose change is now saved; after a failed commit, those it held
    /// are answered 503; when the server stops, every one is answered.
    private func resolveWaiters(_ result: ConversationService.FlushResult?, ending: Bool) {
        let saved = service.saved
        let ready = waiters.withLock { list -> [Waiter] in
            var out: [Waiter] = []
            list.removeAll { w in
                // A change the store refused (its conversation left memory with it unsaved) is
                // answered too: its request runs again, or is a 409.
                let done = w.change <= saved || service.wasRefused(w.change)
                let failed = result.map { !$0.saved && w.change <= $0.through } ?? false
                guard done || failed || ending else { return false }
                w.context.saved = done
                out.append(w)
                return true
            }
            return out
        }
        for w in ready {
            if let c = OpaquePointer(bitPattern: w.connection) { MHD_resume_connection(c) }
        }
    }

    /// The answers libmicrohttpd made itself since the last look (requests the access handler
    /// never saw, so neither the access log nor the answer counters did): counted with the
    /// others for `/metrics`, and said in the server's log at most once a minute.
    private func takeLibraryAnswers(_ deadlines: OpaquePointer, into answers: inout LibraryAnswers, at now: Double) {
        var counts = [UInt](repeating: 0, count: Int(ROCKET_LIBRARY_STATUSES))
        guard rocket_mhd_take_library_answers(deadlines, &counts) > 0 else { return }
        var taken: [Int: UInt64] = [:]
        for (i, n) in counts.enumerated() where n > 0 { taken[i + 100] = UInt64(n) }
        for (status, n) in taken { service.counters.answered(status, count: n) }
        if let line = answers.add(taken, at: now) { service.log(line) }
    }

    private func startTicker() {
        if !OffThread.detach(named: "rocket-ticker", { [self] in tick() }) { tickerDone.withLock { $0 = true } }
    }

    private func tick() {
        // The ticker's work (timers, saves) yields to the threads answering requests.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 5)  // on Linux: this thread only
        let clock = WallClock()
        let every = max(1, service.configuration.keepAlive)
        var lastPing = clock.now
        var lastCut = clock.now
        var lastBeat = -Double.infinity
        var sink = [UInt8](repeating: 0, count: 256)
        let deadlines = daemon.withLock { $0?.deadlines }
        var libraryAnswers = LibraryAnswers()
        while !stopping.load(ordering: .relaxed) {
            service.advanceDue()
            var now = clock.now
            if now - lastPing >= every {
                keepAlive()
                lastPing = now
            }
            // Once a second (the ticker wakes at least that often): connections whose request
            // has not come whole in time are ended, however steadily it trickles in.
            if now - lastCut >= 1, let deadlines {
                _ = rocket_mhd_cut_late(deadlines)
                takeLibraryAnswers(deadlines, into: &libraryAnswers, at: now)
                lastCut = now
            }
            if let line = service.counters.flowErrorLine(at: now) { service.log(line) }
            if let heartbeat, now - lastBeat >= heartbeat.every {
                heartbeat.beat()
                lastBeat = now
            }
            // Decide when to wake, with `plannedWake` at 0 meanwhile: a change made while the
            // state is read wakes the ticker (see wakeIfNeeded), so none waits past its time.
            // Intervals are measured on the wall clock; timers and `plannedWake` are on the
            // service's clock.
            plannedWake.store(0, ordering: .sequentiallyConsistent)
            now = clock.now
            let serviceNow = service.clock.now
            var wait = min(every - (now - lastPing), 1)
            if let heartbeat { wait = min(wait, heartbeat.every - (now - lastBeat)) }
            if let next = service.nextDeadline { wait = min(wait, next - serviceNow) }
            wait = max(0, wait)
            plannedWake.store((serviceNow + wait).bitPattern, ordering: .sequentiallyConsistent)
            var fd = pollfd(fd: wakePipe.read, events: Int16(POLLIN), revents: 0)
            let ms = Int32(min(1_000, (wait * 1_000).rounded(.up)))
            if poll(&fd, 1, ms) > 0 {
                while read(wakePipe.read, &sink, sink.count) > 0 {}
            }
        }
        // What the log held back for its minute is said as the server stops.
        if let deadlines { takeLibraryAnswers(deadlines, into: &libraryAnswers, at: .infinity) }
        if let line = service.counters.flowErrorLine(at: .infinity) { service.log(line) }
        tickerDone.withLock { $0 = true }
    }
}

/// One thread that runs jobs in order: the HTTP server's database thread, so that no thread
/// answering requests waits for SQLite.
final class WorkThread: Sendable {
    private struct Queue {
        var jobs: [@Sendable () -> Void] = []
        var started = false
        var finishing = false
        var running = false
    }
    private let queue = Mutex(Queue())
    private let wake: (read: Int32, write: Int32)
    private let name: String

    /// A thread named `name` (as `top -H` shows it), not started yet.
    init(named name: String) {
        self.name = name
        wake = HTTPServer.wakingPipe()
    }

    deinit {
        for fd in [wake.read, wake.write] where fd >= 0 { close(fd) }
    }

    /// Starts the thread.
    func start() {
        queue.withLock { $0.started = true }
        if !OffThread.detach(named: name, { [self] in loop() }) { queue.withLock { $0.started = false } }
    }

    /// Queues `job`; false when the thread does not run (not started, or finishing): the caller
    /// answers itself.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let queued = queue.withLock { q -> Bool in
            guard q.started, !q.finishing else { return false }
            q.jobs.append(job)
            return true
        }
        if queued { signal() }
        return queued
    }

    /// Runs what is queued, then ends the thread (waits at most 5 s).
    func finish() {
        queue.withLock { $0.finishing = true }
        signal()
        for _ in 0..<1_000 where queue.withLock({ $0.running || !$0.jobs.isEmpty }) { usleep(5_000) }
    }

    private func signal() {
        guard wake.write >= 0 else { return }
        var b: UInt8 = 1
        _ = write(wake.write, &b, 1)
    }

    private func loop() {
        var sink = [UInt8](repeating: 0, count: 64)
        while true {
            let (jobs, ending) = queue.withLock { q -> ([@Sendable () -> Void], Bool) in
                let taken = q.jobs
                q.jobs = []
                q.running = !taken.isEmpty
                return (taken, q.finishing)
            }
            for job in jobs { job() }
            queue.withLock { $0.running = false }
            if ending && jobs.isEmpty { break }
            if !jobs.isEmpty { continue }
            var fd = pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)
            if poll(&fd, 1, 1_000) > 0 { while read(wake.read, &sink, sink.count) > 0 {} }
        }
        queue.withLock { $0.started = false }
    }
}
