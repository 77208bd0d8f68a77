#if canImport(Glibc)
    import Glibc
#endif
import RocketCore
import RocketPlatform
import RocketPostgres
import RocketScenarios
import RocketScenariosSQLite

/// `rocket backup --store FILE TO`: a consistent copy of a store file, taken while a server may
/// be writing it.
enum BackupCommand {
    static let spec = CommandSpec(
        name: "backup", abstract: "Copy a store file whole, as one moment saw it, while rocket serve may be writing it.",
        positionals: [("TO", "The copy: a new file (an existing one is never replaced), or - for standard output (a pipe or a file).")],
        positionalCount: 1...1,
        options: [
            .value("--store", "FILE", "The store to copy (an SQLite file; a PostgreSQL store is copied with pg_dump).").completing(.file)
        ],
        discussion: """
            Copying the file with cp while a server writes it can give a torn copy: the newest
            changes are in its write-ahead log (FILE-wal), not in FILE. This reads the store in one
            read transaction, so the copy holds every change committed before it began and none
            after, while the server goes on writing. The copy is compacted, holds no write-ahead
            log, is readable by its owner only (it holds visitors' answers and the server's token
            secret), is checked to read back whole, and is made durable before the command
            succeeds. Ctrl-C stops it and leaves no file behind. With - the copy is made in
            $TMPDIR (or /tmp), then written to standard output and removed, for a pipe
            (rocket backup --store FILE - | gzip > copy.sqlite.gz); never to a terminal.
            To restore: stop the server, remove FILE-wal and FILE-shm, put the copy at FILE, start
            the server (docs/DEPLOY.md).
            """,
        exitStatus:
            "0 copied; 64 usage error (a PostgreSQL URL included); 65 the store cannot be read (not a store, corrupt); 66 no such store; 73 TO exists or cannot be made; 74 the copy could not be written (a full disk); 130 Ctrl-C.",
        examples: [
            "rocket backup --store rocket.sqlite rocket-$(date +%F).sqlite",
            "rocket backup --store rocket.sqlite - | ssh backup.internal 'cat > rocket.sqlite'",
        ], strayValue: .first("--store"))

    static func run(_ args: [String]) throws(UsageError) -> ExitStatus {
        let parsed = try parse(args, as: spec)
        if parsed.helpRequested { printOut(spec.help); return ExitStatus.ok }
        let (store, target) = try storeAndCopy(parsed, command: spec.name, copy: "TO", postgres: "copied with PostgreSQL's own tools: pg_dump")
        let shown = { (s: String) in Sanitizer.clean(s, keepNewlines: false) }
        guard FileIO.exists(store) else {
            printError("rocket: error: cannot read '\(shown(store))': no such file")
            return ExitStatus.noInput
        }
        let toOutput = target == "-"
        if toOutput, isatty(1) == 1 {
            throw UsageError(message: "the copy is a binary file: send it to a pipe or a file (- > FILE), not to the terminal", command: spec.name)
        }
        // A reader that goes away is a failed write (the staged copy is then removed), not a
        // process ended by SIGPIPE.
        if toOutput { signal(SIGPIPE, SIG_IGN) }
        var existing = stat()
        if !toOutput, lstat(target, &existing) == 0 {
            printError("rocket: error: '\(shown(target))' exists: a backup never replaces a file")
            return ExitStatus.cannotCreate
        }
        let temporary: String
        switch copy(store, beside: toOutput ? Self.outputStaging : target, pouring: toOutput) {
        case .refused(let status): return status
        case .stopped(let signal):
            printError(toOutput ? "rocket: backup stopped; what reached standard output is not a whole copy" : "rocket: backup stopped; nothing was written")
            return .signal(signal)
        case .made(let t): temporary = t
        }
        if toOutput {
            unlink(temporary)
            printError("rocket: copied \(shown(store)) to standard output")
            return ExitStatus.ok
        }
        if case .failure(let f) = FileIO.put(temporary, at: target, replacing: false) {
            printError("rocket: error: cannot write '\(shown(target))': \(f.reason)")
            return f.code == EEXIST ? ExitStatus.cannotCreate : ExitStatus.ioError
        }
        var made = stat()
        let size = stat(target, &made) == 0 ? Int(made.st_size) : 0
        printError("rocket: copied \(shown(store)) to \(shown(target)) (\(size) bytes)")
        return ExitStatus.ok
    }

    /// What copying a store came to.
    enum Copied {
        /// A whole, checked copy in this new file (poured out already, with `pouring`).
        case made(String)
        /// Stopped by this signal; nothing is left.
        case stopped(Int32)
        /// It could not be made (said already, nothing left): exit with this.
        case refused(ExitStatus)
    }

    /// Copies store `path` whole (``SQLiteScenarioStore/copy(into:)``) into a new file beside
    /// `place`, then, with `pouring`, writes it to standard output. Ctrl-C, SIGTERM and SIGHUP
    /// stop it (SQLite is interrupted) and the file is removed; it is made once they are held, so
    /// none leaves it behind. A failure is said here. Shared by `backup` and `restore`.
    static func copy(_ path: String, beside place: String, pouring: Bool) -> Copied {
        let shown = { (s: String) in Sanitizer.clean(s, keepNewlines: false) }
        let opened: SQLiteScenarioStore
        do throws(ScenarioStoreError) {
            opened = try SQLiteScenarioStore(readingOnly: path)
        } catch {
            printError("rocket: error: \(shown(error.message))")
            return .refused(ExitStatus.dataError)
        }
        /// What went wrong once the copy began.
        enum Failed {
            case copy(ScenarioStoreError)
            case output(FileIO.Failure, ofOutput: Bool)
        }
        var cannotMake: FileIO.Failure?
        let run = Interruptible.run(
            prepare: { () -> String? in
                switch FileIO.emptyTemporary(beside: place) {
                case .failure(let f):
                    cannotMake = f
                    return nil
                case .success(let t): return t
                }
            }, stop: { opened.interrupt() }
        ) { temporary, stopping -> Failed? in
            do throws(ScenarioStoreError) {
                try opened.copy(into: temporary)
            } catch {
                return .copy(error)
            }
            guard pouring, let (failure, output) = FileIO.pour(temporary, into: 1, stopping: stopping) else { return nil }
            return .output(failure, ofOutput: output)
        }
        guard let temporary = run.prepared else {
            printError("rocket: error: cannot write beside '\(shown(place))': \(cannotMake?.reason ?? "")")
            return .refused(ExitStatus.cannotCreate)
        }
        if run.signal != 0 {
            unlink(temporary)
            return .stopped(run.signal)
        }
        switch run.result ?? nil {
        case .copy(let failure):
            unlink(temporary)
            printError("rocket: error: \(shown(failure.message))")
            return .refused(failure.kind == .full || failure.kind == .io ? ExitStatus.ioError : ExitStatus.dataError)
        case .output(let failure, let ofOutput):
            unlink(temporary)
            printError("rocket: error: cannot write the copy to \(ofOutput ? "standard output" : shown(temporary)): \(failure.reason)")
            return .refused(ExitStatus.ioError)
        case nil:
            return .made(temporary)
        }
    }

    /// The store (`--store FILE`) and the copy named after it, as `backup` and `restore` take
    /// them: both are needed, and a PostgreSQL store is refused with what does the job instead
    /// (`postgres`: "copied with … pg_dump").
    static func storeAndCopy(_ parsed: ParsedArguments, command: String, copy: String, postgres: String) throws(UsageError) -> (store: String, copy: String) {
        guard let store = parsed.value("--store") else { throw UsageError(message: "--store FILE is required", command: command) }
        guard let named = parsed.positionals.first, !named.isEmpty else {
            throw UsageError(message: "name the copy: rocket \(command) --store FILE \(copy)", command: command)
        }
        if PostgresURL.names(store) { throw UsageError(message: "a PostgreSQL store is \(postgres) (docs/DEPLOY.md)", command: command) }
        return (store, named)
    }

    /// Where a copy for standard output is made first (its `.tmp-PID` beside this name).
    static var outputStaging: String {
        let folder = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return folder + "/rocket-backup.sqlite"
    }
}

/// `rocket restore --store FILE COPY`: a copy made by `rocket backup` put in place of a store.
enum RestoreCommand {
    static let spec = CommandSpec(
        name: "restore", abstract: "Put a copy made by rocket backup in place of a store file (no server may be using it).",
        positionals: [("COPY", "The copy to restore (a store file).")], positionalCount: 1...1,
        options: [
            .value("--store", "FILE", "The store to replace (made when missing; a PostgreSQL store is restored with pg_restore).").completing(.file)
        ],
        discussion: """
            Replacing a store by hand is easy to get wrong: a write-ahead log left beside the
            file (FILE-wal) would be replayed onto the copy and damage it. This reads COPY whole
            (through SQLite, so a copy with a log of its own is read as it stands), checks it,
            writes it beside FILE with FILE's owner and permissions, removes FILE-wal and FILE-shm,
            and renames it over FILE, each step made durable, so a crash at any moment leaves the
            old store or the new one. A server using FILE is refused: stop it first, start it after.
            Ctrl-C leaves FILE as it was.
            """,
        exitStatus:
            "0 restored; 64 usage error (a PostgreSQL URL included); 65 COPY is not a store or is damaged; 66 no such COPY; 69 a server is using the store; 73 the store cannot be replaced (its folder, a folder in its place, an owner this user cannot give the copy); 74 the copy could not be written (a full disk); 130 Ctrl-C (the store as it was).",
        examples: [
            "rocket restore --store rocket.sqlite rocket-2026-12-06.sqlite",
            "systemctl stop rocket && rocket restore --store /var/lib/rocket/rocket.sqlite copy.sqlite && systemctl start rocket",
        ], strayValue: .last("--store"))

    static func run(_ args: [String]) throws(UsageError) -> ExitStatus {
        let parsed = try parse(args, as: spec)
        if parsed.helpRequested { printOut(spec.help); return ExitStatus.ok }
        let (named, copy) = try BackupCommand.storeAndCopy(
            parsed, command: spec.name, copy: "COPY", postgres: "restored with PostgreSQL's own tools: pg_restore")
        let shown = { (s: String) in Sanitizer.clean(s, keepNewlines: false) }
        // SQLite keeps its log beside the file a link names: the file is what is replaced.
        let store = FileIO.linkTarget(named)
        guard FileIO.exists(copy) else {
            printError("rocket: error: cannot read '\(shown(copy))': no such file")
            return ExitStatus.noInput
        }
        var a = stat()
        var b = stat()
        if stat(copy, &a) == 0, stat(store, &b) == 0, a.st_dev == b.st_dev, a.st_ino == b.st_ino {
            throw UsageError(message: "'\(shown(copy))' is the store itself", command: spec.name)
        }
        if FileIO.exists(store) {
            guard (b.st_mode & S_IFMT) == S_IFREG else {
                printError("rocket: error: '\(shown(store))' is not a regular file: nothing there is replaced")
                return ExitStatus.cannotCreate
            }
            // The lock every rocket serve holds on its store file.
            switch FileIO.holdExclusively(store) {
            case false?:
                printError("rocket: error: a rocket serve is using '\(shown(store))': stop it, restore, then start it again")
                return ExitStatus.unavailable
            case nil:
                printError("rocket: error: cannot open '\(shown(store))' to see whether a server uses it")
                return ExitStatus.cannotCreate
            case true?: break
            }
        }
        let temporary: String
        switch BackupCommand.copy(copy, beside: store, pouring: false) {
        case .refused(let status): return status
        case .stopped(let signal):
            printError("rocket: restore stopped; \(shown(store)) is as it was")
            return .signal(signal)
        case .made(let t): temporary = t
        }
        // The copy takes the old store's owner and permissions: a store a service's own user
        // owns (systemd's DynamicUser=, a rocket user) and root restores must stay that user's,
        // or the service could not open it after.
        if FileIO.exists(store) {
            let owner = b.st_uid != geteuid() || b.st_gid != getegid()
            if (owner && chown(temporary, b.st_uid, b.st_gid) != 0) || chmod(temporary, b.st_mode & 0o7777) != 0 {
                let why = String(cString: strerror(errno))
                unlink(temporary)
                printError(
                    "rocket: error: cannot give the copy the owner (user \(b.st_uid), group \(b.st_gid)) and permissions of '\(shown(store))': \(why); run this as root or as the store's owner"
                )
                return ExitStatus.cannotCreate
            }
        }
        // The old store's log and shared memory go first: left beside the new file, SQLite would
        // replay the old log onto it.
        if case .failure(let f) = FileIO.put(temporary, at: store, replacing: true, removingFirst: [store + "-wal", store + "-shm"]) {
            printError("rocket: error: cannot replace '\(shown(store))': \(f.reason)")
            return ExitStatus.ioError
        }
        printError("rocket: restored \(shown(store)) from \(shown(copy))")
        return ExitStatus.ok
    }
}
