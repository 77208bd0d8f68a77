import CPostgres
import Synchronization
import RocketCore

#if canImport(Glibc)
    import Glibc
#endif

/// Why PostgreSQL, or the way to it, refused: the server's SQLSTATE (when it answered) and a
/// sentence. A password of the store's URL never appears in one.
package struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// The five-character SQLSTATE ("23505"), nil when the server did not answer.
    package var sqlState: String?
    /// What went wrong.
    package var message: String
    /// True when the connection is gone (or could not be made): the database is unreachable.
    package var connectionLost: Bool

    package init(sqlState: String? = nil, message: String, connectionLost: Bool = false) {
        self.sqlState = sqlState
        self.message = message
        self.connectionLost = connectionLost
    }

    package var description: String { message }

    /// The database cannot be reached now (no connection, the server shutting down or starting).
    package var isUnavailable: Bool {
        connectionLost || sqlState?.hasPrefix("08") == true || ["57P01", "57P02", "57P03", "53300"].contains(sqlState ?? "")
    }
    /// A concurrent transaction won: running it again may succeed (serialization failure, deadlock).
    package var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }
    /// A unique key was already taken.
    package var isUniqueViolation: Bool { sqlState == "23505" }
    /// The server's disk is full.
    package var isFull: Bool { sqlState == "53100" }
    /// The server refuses writes (a read-only transaction or a standby).
    package var isReadOnly: Bool { sqlState == "25006" }
    /// The rows needed were locked by another transaction for longer than allowed.
    package var isBusy: Bool { sqlState == "55P03" || sqlState == "57014" }
}

/// A value for a statement's parameter, sent as text.
package enum PostgresValue: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    case text(String), integer(Int), real(Double), null
    /// An array of texts (for `= ANY($1::text[])` or `unnest`), each element quoted and escaped.
    case texts([String])
    /// An array of whole numbers (`$1::bigint[]`).
    case integers([Int])
    /// An array of numbers or NULLs (`$1::float8[]`).
    case reals([Double?])

    package init(stringLiteral value: String) { self = .text(value) }
    package init(integerLiteral value: Int) { self = .integer(value) }

    /// A number or NULL.
    package static func optional(_ d: Double?) -> PostgresValue { d.map { .real($0) } ?? .null }

    /// The text PostgreSQL reads (nil for NULL).
    var wire: String? {
        switch self {
        case .text(let s): return s
        case .integer(let n): return String(n)
        case .real(let d):
            if d.isNaN { return "NaN" }
            if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
            return "\(d)"
        case .null: return nil
        case .integers(let items): return "{" + items.map { String($0) }.joined(separator: ",") + "}"
        case .reals(let items): return "{" + items.map { $0.flatMap { PostgresValue.real($0).wire } ?? "NULL" }.joined(separator: ",") + "}"
        case .texts(let items):
            return "{" + items.map { "\"" + $0.replacingAll("\\", with: "\\\\").replacingAll("\"", with: "\\\"") + "\"" }.joined(separator: ",") + "}"
        }
    }
}

/// The rows a statement returned, copied out of libpq (text form).
package struct PostgresRows: Sendable {
    /// Row-major values; nil for NULL.
    package var values: [String?]
    /// Columns per row.
    package var columns: Int
    /// Rows an INSERT, UPDATE or DELETE touched (`PQcmdTuples`), or the rows returned.
    package var affected: Int

    /// The number of rows.
    package var count: Int { columns == 0 ? 0 : values.count / columns }
    /// Row `r`, column `c`: text, nil for NULL.
    package subscript(_ r: Int, _ c: Int) -> String? { values[r * columns + c] }
    /// Row `r`, column `c` as text ("" for NULL).
    package func text(_ r: Int, _ c: Int) -> String { self[r, c] ?? "" }
    /// Row `r`, column `c` as a whole number (0 for NULL).
    package func int(_ r: Int, _ c: Int) -> Int { self[r, c].flatMap { Int($0) } ?? 0 }
    /// Row `r`, column `c` as a number, nil for NULL.
    package func double(_ r: Int, _ c: Int) -> Double? {
        guard let s = self[r, c] else { return nil }
        switch s {
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        default: return Double(s)
        }
    }
    /// The first column of the first row as a whole number, nil without rows or for NULL.
    package var firstInt: Int? { count > 0 ? self[0, 0].flatMap { Int($0) } : nil }
}

/// A store's address: a `postgresql://` (or `postgres://`) URL as libpq reads it, kept with a form
/// safe to show (its password replaced by `***`).
package struct PostgresURL: Sendable, CustomStringConvertible {
    /// The URL as given (never printed).
    let raw: String
    /// The URL with its password replaced by `***` (in the user information and the query).
    let shown: String
    /// The password it carries, as written and percent-decoded, at least 4 characters long (a
    /// shorter one is not looked for in messages: it would blot out ordinary words).
    let secrets: [String]

    /// True for a text that names a PostgreSQL store (`postgresql://…` or `postgres://…`).
    package static func names(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// Reads `text`; nil when it is not a PostgreSQL URL.
    package init?(_ text: String) {
        guard Self.names(text) else { return nil }
        raw = text
        var found: [String] = []
        var shown = text
        if let (user, _) = Self.userInfo(text), let colon = user.firstIndex(of: ":") {
            let password = user[user.index(after: colon)...]
            if !password.isEmpty {
                found += [String(password), Self.percentDecoded(String(password))]
                shown.replaceSubrange(password.startIndex..<password.endIndex, with: "***")
            }
        }
        if let q = shown.firstIndex(of: "?") {
            let pairs = shown[shown.index(after: q)...].split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
                guard pair.hasPrefix("password=") else { return String(pair) }
                let value = String(pair.dropFirst("password=".count))
                if !value.isEmpty { found += [value, Self.percentDecoded(value)] }
                return "password=***"
            }
            shown = String(shown[...q]) + pairs.joined(separator: "&")
        }
        self.shown = shown
        secrets = Array(Set(found.filter { $0.count >= 4 })).sorted { $0.count > $1.count }
    }

    /// The URL with its password replaced by `***`.
    package var description: String { shown }

    /// `text` with the URL, and every other occurrence of its password, shown without the password.
    package func scrub(_ text: String) -> String {
        var out = text.replacingAll(raw, with: shown)
        for secret in secrets { out = out.replacingAll(secret, with: "***") }
        return out
    }

    /// The user-information part of a URL ("user:password") and where it ends.
    private static func userInfo(_ text: String) -> (Substring, String.Index)? {
        guard let scheme = text.range(ofText: "://") else { return nil }
        let rest = text[scheme.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return nil }
        return (authority[..<at], at)
    }

    private static func percentDecoded(_ s: String) -> String {
        var bytes: [UInt8] = []
        var u = Array(s.utf8)[...]
        while let b = u.popFirst() {
            if b == 0x25, u.count >= 2, let v = UInt8(String(decoding: u.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(v)
                u = u.dropFirst(2)
            } else {
                bytes.append(b)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// One connection to PostgreSQL. Used by one thread at a time: the pool lends it to one caller
/// (hence `@unchecked Sendable`).
package final class PostgresConnection: @unchecked Sendable {
    let handle: OpaquePointer
    let url: PostgresURL

    /// Connects to `url` (waiting at most `timeout` seconds), or says why not.
    package init(_ url: PostgresURL, timeout: Int = 5) throws(PostgresError) {
        self.url = url
        // Defaults first: what the URL itself says overrides them (libpq's expand_dbname). The
        // server sends warnings and errors only: libpq prints every notice on stderr, and each
        // start of a store that exists already ("relation … already exists, skipping") gave one
        // to whoever ran a `rocket scenario` command.
        let keys = ["connect_timeout", "application_name", "client_encoding", "options", "dbname"]
        let values = [String(timeout), "rocket", "UTF8", "-c client_min_messages=warning", url.raw]
        // NULL-terminated arrays, as libpq reads them.
        let made: OpaquePointer? = withOptionalCStrings(keys + [nil]) { k in withOptionalCStrings(values + [nil]) { v in PQconnectdbParams(k, v, 1) } }
        guard let made else { throw PostgresError(message: "out of memory connecting to \(url)", connectionLost: true) }
        guard PQstatus(made) == CONNECTION_OK else {
            let why = url.scrub(Self.trimmed(String(cString: PQerrorMessage(made))))
            PQfinish(made)
            throw PostgresError(message: "cannot connect to \(url): \(why)", connectionLost: true)
        }
        handle = made
    }

    deinit { PQfinish(handle) }

    static func trimmed(_ s: String) -> String {
        var t = Substring(s)
        while let last = t.last, last == "\n" || last == " " { t = t.dropLast() }
        return t.split(separator: "\n").map { $0.trimmingCharacters() }.joined(separator: "; ")
    }

    /// True while the connection is usable.
    package var isOpen: Bool { PQstatus(handle) == CONNECTION_OK }
    /// The socket (for waiting on notifications).
    package var socket: Int32 { PQsocket(handle) }

    /// Runs one statement with parameters `$1`, `$2`, … and returns its rows.
    @discardableResult
    package func query(_ sql: String, _ params: [PostgresValue] = []) throws(PostgresError) -> PostgresRows {
        let wire = params.map(\.wire)
        let result: OpaquePointer? = withOptionalCStrings(wire) { p in
            PQexecParams(handle, sql, Int32(wire.count), nil, p, nil, nil, 0)
        }
        return try rows(result)
    }

    /// Runs SQL text (several statements allowed, no parameters).
    package func execute(_ sql: String) throws(PostgresError) {
        _ = try rows(PQexec(handle, sql))
    }

    private func rows(_ result: OpaquePointer?) throws(PostgresError) -> PostgresRows {
        guard let result else { throw PostgresError(message: url.scrub(Self.trimmed(String(cString: PQerrorMessage(handle)))), connectionLost: !isOpen) }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            let n = Int(PQntuples(result)), m = Int(PQnfields(result))
            var values: [String?] = []
            values.reserveCapacity(n * m)
            for r in 0..<Int32(n) {
                for c in 0..<Int32(m) {
                    values.append(PQgetisnull(result, r, c) != 0 ? nil : String(cString: PQgetvalue(result, r, c)))
                }
            }
            let affected = Int(String(cString: PQcmdTuples(result))) ?? n
            return PostgresRows(values: values, columns: m, affected: affected)
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
            let message = primary ?? Self.trimmed(String(cString: PQresultErrorMessage(result)))
            throw PostgresError(sqlState: state, message: url.scrub(message), connectionLost: !isOpen)
        }
    }

    /// Notifications that arrived (LISTEN), reading what the socket holds without waiting.
    package func notifications() throws(PostgresError) -> [(channel: String, payload: String)] {
        guard PQconsumeInput(handle) == 1 else {
            throw PostgresError(message: url.scrub(Self.trimmed(String(cString: PQerrorMessage(handle)))), connectionLost: true)
        }
        var out: [(channel: String, payload: String)] = []
        while let n = PQnotifies(handle) {
            out.append((String(cString: n.pointee.relname), String(cString: n.pointee.extra)))
            PQfreemem(n)
        }
        return out
    }

    /// Runs `body` in one transaction: committed when it returns (the value is returned only once
    /// COMMIT succeeded), rolled back when it throws.
    package func transaction<T>(
        _ isolation: PostgresDatabase.Isolation = .readCommitted, _ body: (PostgresConnection) throws(PostgresError) -> T
    )
        throws(PostgresError) -> T
    {
        try execute(isolation.begin)
        do throws(PostgresError) {
            let value = try body(self)
            try execute("COMMIT")
            return value
        } catch {
            if isOpen { _ = try? execute("ROLLBACK") }
            throw error
        }
    }
}

extension Substring {
    fileprivate func trimmingCharacters() -> Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}

/// C strings for `strings` (nil stays a null pointer), alive during `body`.
func withOptionalCStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { $0.map { strdup($0) } ?? nil }
    defer { for p in pointers { free(p) } }
    return pointers.withUnsafeMutableBufferPointer { b in body(b.map { $0.map { UnsafePointer($0) } }) }
}

/// A pool of connections to one database: a caller borrows one for a statement or a
/// transaction and gives it back; at most `capacity` are open, and a caller waits at most
/// `waitSeconds` for one. A connection that broke (the server restarted) is dropped, and the next
/// caller opens a new one. No lock is held while a statement runs: the pool's lock only guards
/// its list of idle connections.
///
/// ```swift
/// let db = try PostgresDatabase(url: PostgresURL("postgresql:///rocket?host=/tmp/pg")!)
/// let n = try db.transaction { c throws(PostgresError) in try c.query("SELECT 1").firstInt }
/// ```
package final class PostgresDatabase: Sendable {
    /// How a transaction sees others' changes.
    package enum Isolation: Sendable {
        case readCommitted, repeatableRead, serializable, readOnly

        var begin: String {
            switch self {
            case .readCommitted: return "BEGIN"
            case .repeatableRead: return "BEGIN ISOLATION LEVEL REPEATABLE READ"
            case .serializable: return "BEGIN ISOLATION LEVEL SERIALIZABLE"
            case .readOnly: return "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
            }
        }
    }

    /// The database's address (its `description` hides the password).
    package let url: PostgresURL
    /// How many connections may be open at once.
    package let capacity: Int
    let waitSeconds: Int
    private let idle = Mutex<[PostgresConnection]>([])
    private let slots: Slots

    /// A pool for `url`; nothing is connected until first used (see ``check()``).
    package init(url: PostgresURL, capacity: Int = 8, waitSeconds: Int = 10) {
        self.url = url
        self.capacity = max(1, capacity)
        self.waitSeconds = waitSeconds
        slots = Slots(self.capacity)
    }

    /// Connects once, to say early and clearly when the database cannot be reached.
    package func check() throws(PostgresError) {
        try withConnection { (c) throws(PostgresError) in _ = try c.query("SELECT 1") }
    }

    /// Runs `body` with a connection of its own.
    package func withConnection<T>(_ body: (PostgresConnection) throws(PostgresError) -> T) throws(PostgresError) -> T {
        guard slots.take(seconds: waitSeconds) else {
            throw PostgresError(sqlState: "57014", message: "all \(capacity) connections to \(url) stayed busy for \(waitSeconds) s")
        }
        defer { slots.give() }
        let reused = idle.withLock { $0.popLast() }
        let connection: PostgresConnection
        if let reused, reused.isOpen { connection = reused } else { connection = try PostgresConnection(url) }
        do throws(PostgresError) {
            let value = try body(connection)
            if connection.isOpen { idle.withLock { $0.append(connection) } }
            return value
        } catch {
            if connection.isOpen {
                idle.withLock { $0.append(connection) }
            } else if error.connectionLost {
                // The server went away: the idle connections went with it.
                closeIdle()
            }
            throw error
        }
    }

    /// Runs `body` in one transaction on a connection of its own: committed when it returns,
    /// rolled back when it throws. A transaction that lost a serialization race or a deadlock, or
    /// whose idle connection turned out to be closed before anything ran, is run again (up to
    /// three times); any other failure is thrown. The value is returned only after COMMIT
    /// succeeded: when the connection breaks during COMMIT the caller gets an error (the change
    /// may or may not be stored), never a success.
    package func transaction<T>(
        _ isolation: Isolation = .readCommitted, _ body: (PostgresConnection) throws(PostgresError) -> T
    )
        throws(PostgresError) -> T
    {
        var attempt = 0
        while true {
            attempt += 1
            var started = false
            do throws(PostgresError) {
                return try withConnection { (c) throws(PostgresError) -> T in
                    try c.execute(isolation.begin)
                    started = true
                    do throws(PostgresError) {
                        let value = try body(c)
                        try c.execute("COMMIT")
                        return value
                    } catch {
                        if c.isOpen { _ = try? c.execute("ROLLBACK") }
                        throw error
                    }
                }
            } catch {
                let again = error.isRetryable || (!started && error.connectionLost)
                if again && attempt < 3 { continue }
                throw error
            }
        }
    }

    /// Closes the idle connections (those in use close when given back broken, or stay).
    package func closeIdle() {
        let gone = idle.withLock { list in
            let taken = list
            list.removeAll()
            return taken
        }
        _ = gone.count  // closed here, outside the lock, as the last references go
    }
}

/// A counting semaphore (POSIX) for the pool's connection slots.
final class Slots: @unchecked Sendable {
    private let semaphore: UnsafeMutablePointer<sem_t>

    init(_ count: Int) {
        semaphore = .allocate(capacity: 1)
        sem_init(semaphore, 0, UInt32(count))
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    /// Takes a slot, waiting at most `seconds`; false when none came free.
    func take(seconds: Int) -> Bool {
        var deadline = timespec()
        clock_gettime(CLOCK_REALTIME, &deadline)
        deadline.tv_sec += seconds
        while sem_timedwait(semaphore, &deadline) != 0 {
            if errno != EINTR { return false }
        }
        return true
    }

    /// Gives a slot back.
    func give() { sem_post(semaphore) }
}

/// A schema of PostgreSQL tables brought up to date by one list of migrations (step `k` takes
/// version `k` to `k + 1`), its version kept in the table `rocket_schema`. Servers starting at
/// once migrate once: the migration runs in one transaction under an advisory lock.
package struct PostgresSchema: Sendable {
    /// The migrations, in order.
    package let migrations: [String]

    package init(migrations: [String]) { self.migrations = migrations }

    /// The version the newest migration gives.
    package var version: Int { migrations.count }

    /// The advisory lock migrations take ("ROCK" "SCHM").
    static let lockKey = 0x524F_434B_5343_484D

    /// What the database holds: a newer schema than this code's is refused.
    package enum Outcome: Sendable, Equatable {
        case migrated(from: Int, to: Int), current
    }

    /// Brings the database up to ``version``; throws a `PostgresError` with SQLSTATE "RKNEW" when
    /// it was made by newer code.
    @discardableResult
    package func migrate(_ db: PostgresDatabase) throws(PostgresError) -> Outcome {
        try db.transaction { (c) throws(PostgresError) -> Outcome in
            try c.query("SELECT pg_advisory_xact_lock($1)", [.integer(Self.lockKey)])
            try c.execute("CREATE TABLE IF NOT EXISTS rocket_schema (version integer NOT NULL)")
            let current = try c.query("SELECT max(version) FROM rocket_schema").firstInt ?? 0
            if current > version {
                throw PostgresError(
                    sqlState: "RKNEW", message: "\(db.url) was made by a newer rocket (schema \(current); this one knows up to \(version))")
            }
            guard current < version else { return .current }
            for step in current..<version { try c.execute(migrations[step]) }
            try c.execute("DELETE FROM rocket_schema")
            try c.query("INSERT INTO rocket_schema (version) VALUES ($1)", [.integer(version)])
            return .migrated(from: current, to: version)
        }
    }
}
