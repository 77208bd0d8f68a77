package import RocketConversation
package import RocketCore
package import RocketFlow
import RocketScenarioEngine
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif
import RocketPlatform
import RocketJSON

/// A flow the server can start: the document, the conversation it starts as, and its identity
/// (the hash snapshots carry). Immutable and shared: every conversation of the flow holds it by
/// reference.
package final class LoadedFlow: Sendable {
    /// The flow's name (`FLOWS/NAME.json`).
    package let name: String
    /// The document.
    package let document: FlowDocument
    /// The flow's identity in snapshots: the hash of its graph as written.
    package let identity: String
    /// The block graph, built once and shared (copy on write) by every conversation of the flow.
    package let graph: RocketGraph
    /// The speaker.
    package let author: RocketAuthor
    /// The close button, if the flow has one.
    package let closeButton: RocketCloseButton?
    /// The unchanging parts of its views, built once.
    package let statics: ViewStatics
    /// How its blocks are named in snapshots (one pass over the graph, made once).
    package let blockNames: BlockNames
    /// What its starts of each kind make (the first of a kind is made in full).
    let startShapes = StartShapes()
    /// The language it was read in (nil: its first).
    package let language: String?
    /// The version its `started` records name: the first 12 hex digits of the identity of the
    /// file read in its first language (so a flow's languages are one version, and an edit of
    /// the file is a new one).
    package let version: String
    /// True when a button of it snoozes it (looked at once, not at each start and intent).
    package let snoozes: Bool
    /// True when it reads the person's clock (`today()` in its expressions, a date's bound
    /// counted from today): its conversations are given the visitor's local time, and its starts
    /// are not alike but for their time, so none is made from another's shape.
    package let readsClock: Bool
    /// The names a start's values can reach (`FlowDocument.namesRead`), worked out once: a start
    /// that gives others is told which (`unusedVars`).
    package let namesRead: Set<String>

    /// A flow named `name` from its checked document, read in `language` (nil: its first), of
    /// the version `version` (nil: its own identity's), its picture files in the folder
    /// `pictures` (their sizes read once, here).
    init(name: String, document: FlowDocument, language: String? = nil, version: String? = nil, pictures: String? = nil) {
        self.language = language
        let graph = document.makeGraph()
        let author = document.makeAuthor()
        let close = document.makeCloseButton()
        self.name = name
        self.document = document
        self.namesRead = document.namesRead
        self.identity = graph.contentHash
        self.version = version ?? String(graph.contentHash.prefix(12))
        self.graph = graph
        self.author = author
        self.closeButton = close
        // A picture many blocks show is read once; at most `measuredPictures` are read.
        var sizes: [RocketImage: PictureSize?] = [:]
        self.statics = ViewStatics(
            graph: graph, author: author, closeButton: close, flow: name, language: language ?? document.languages.first,
            size: { image in
                if let known = sizes[image] { return known }
                guard sizes.count < RocketLimits.measuredPictures else { return nil }
                let size = Self.pictureSize(image, in: pictures)
                sizes[image] = size
                return size
            })
        self.blockNames = BlockNames(graph)
        self.snoozes = document.snoozes
        self.readsClock = document.readsClock
    }

    /// The size of a picture of a flow whose files are in `folder`, as its header states it; nil
    /// when it is not known (no folder, no such file, not a picture). A page is told it so that
    /// it keeps the picture's room before the picture arrives; a file changed since only costs
    /// that room, as the browser lays out the picture it gets.
    static func pictureSize(_ image: RocketImage, in folder: String?) -> PictureSize? {
        switch image {
        case .bytes(let bytes): return PictureFormat.size(of: Array(bytes.prefix(PictureFormat.headerBytes)))
        case .file(let path):
            guard let folder, let head = PictureFormat.header({ try? FileIO.head(inside: folder, path, count: $0).get() }) else { return nil }
            return PictureFormat.size(of: head)
        }
    }

    /// A conversation of this flow started at `now`, from `root` when given (an experiment's
    /// variant), and what starting it did; nil when the flow has no first block.
    package func started(options: ConversationOptions, from root: RocketNodeID?, at now: Double) -> Started? {
        Self.started(graph: graph, author: author, closeButton: closeButton, options: options, from: root, at: now)
    }

    /// A started conversation and the effects of starting it.
    package typealias Started = (conversation: Conversation, effects: [ConversationEffect])

    /// What a start makes of a flow's graph: its conversation started at `now` (from `root` when
    /// given), with what fell due at once (with no intro, the first block) run at `now` too. A
    /// new conversation is stored as these inputs, and a load makes it again with this function
    /// (the engine is pure): one place says what a start is.
    static func started(
        graph: RocketGraph, author: RocketAuthor, closeButton: RocketCloseButton?, options: ConversationOptions, from root: RocketNodeID?,
        at now: Double
    ) -> Started? {
        guard graph.root != nil else { return nil }
        var conversation = Conversation(graph: graph, author: author, closeButton: closeButton, options: options)
        if let root {
            var other = graph
            other.root = root
            conversation.replaceGraph(other)
        }
        var effects = conversation.start(at: now)
        if let due = conversation.nextDeadline, due <= now { effects += conversation.advance(to: now) }
        return (conversation, effects)
    }
}

/// Where flows come from: `DIR/NAME.json` files (re-read when they change, looked at again at
/// most a second after the last look) and built-in flows.
/// A flow on offer as the home page lists it.
package struct FlowListing: Equatable, Sendable {
    /// Its name (`/play/NAME`, `data-flow`).
    package var name: String
    /// Its `title`, when it has one.
    package var title: String?
}

package final class FlowLibrary: Sendable {
    /// Why a flow cannot be started.
    package enum Failure: Error, Equatable {
        /// No flow has that name (or the name is not a flow name).
        case unknown
        /// The file has errors; the diagnostics, formatted.
        case invalid([String])
        /// The file cannot be read.
        case unreadable(String)
    }

    /// The folder, or nil for built-in flows only.
    package let directory: String?
    private let builtIn: [String: [UInt8]]
    private struct Cached {
        var stamp: (Int, Int, Int)?
        var result: Result<LoadedFlow, Failure>
        /// The flows it jumps into, with the stamps their files had: a change to one reloads it.
        var linked: [(name: String, stamp: (Int, Int, Int)?)] = []
        /// When its file (and those of the flows it jumps into) was last found unchanged.
        var checked = -Double.infinity
    }
    /// How long a flow read from a file is served before its file is looked at again (seconds):
    /// an edit is seen by the starts after it within this time. Looking at every start cost a
    /// start 2.5 % of its time in `lstat`; nginx's `open_file_cache_valid` is the same idea.
    package static let recheckInterval: Double = 1

    /// True when `time` is less than ``recheckInterval`` before `now` (a clock that went back
    /// looks again).
    private static func recent(_ time: Double, _ now: Double) -> Bool { now >= time && now - time < recheckInterval }

    /// `slot`'s value when it was made less than ``recheckInterval`` ago, else `make()`'s, kept.
    private func recent<T: Sendable>(_ slot: borrowing Mutex<(at: Double, value: T)?>, _ make: () -> T) -> T {
        let now = clock.now
        if let kept = slot.withLock({ $0 }), Self.recent(kept.at, now) { return kept.value }
        let made = make()
        slot.withLock { $0 = (now, made) }
        return made
    }
    /// The clock the recheck interval is measured on.
    private let clock: any RocketClock

    /// The stamp of `NAME.json` in the folder (time and size), nil when it is not a file there.
    private func stamp(_ name: String) -> (Int, Int, Int)? {
        guard let directory else { return nil }
        var st = stat()
        guard lstat(directory + "/" + name + ".json", &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return (Int(st.st_mtim.tv_sec), Int(st.st_mtim.tv_nsec), Int(st.st_size))
    }

    /// True when every flow `cached` jumps into is as it was.
    private func linkedUnchanged(_ cached: Cached) -> Bool {
        cached.linked.allSatisfy { entry in
            let now = stamp(entry.name)
            switch (now, entry.stamp) {
            case (nil, nil): return true
            case (let a?, let b?): return a == b
            default: return false
            }
        }
    }
    private let cache = Mutex<[String: Cached]>([:])
    /// The largest flow file read (bytes).
    package static let maxFileBytes = RocketLimits.servedFlowFileBytes

    /// Where the errors of a flow file go, once for each version of the file.
    private let log: @Sendable (String) -> Void

    /// A library over `directory` (nil: none) and the built-in flows `builtIn` (name → JSON);
    /// `clock` measures ``recheckInterval``; `log` is told a file's errors once per version.
    package init(
        directory: String?, builtIn: [String: [UInt8]] = [:], tours: Set<String> = [], clock: any RocketClock = SystemClock(),
        log: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.directory = directory
        self.builtIn = builtIn
        self.tours = tours
        self.clock = clock
        self.log = log
    }

    /// Flows whose play page ends as the terminal's tour does: with the closing alert (an
    /// AlertReactor alert whose choices load lazily).
    package let tours: Set<String>

    /// True for names a flow may have (``FlowDocument/isFlowName(_:)``).
    package static func isName(_ name: String) -> Bool { FlowDocument.isFlowName(name) }

    /// The flow called `name` in the language of its own that fits `wanted` (a request's
    /// `lang`, a browser's language), each language loaded once and cached as the flow is.
    package func flow(_ name: String, language wanted: String?) -> Result<LoadedFlow, Failure> {
        let base = flow(name)
        guard case .success(let f) = base, let lang = f.document.language(for: wanted), lang != f.document.languages.first else { return base }
        return flow(name, exactly: lang)
    }

    /// The flow called `name` (in its first language).
    package func flow(_ name: String) -> Result<LoadedFlow, Failure> { flow(name, exactly: nil) }

    private func flow(_ name: String, exactly language: String?) -> Result<LoadedFlow, Failure> {
        guard Self.isName(name) else { return .failure(.unknown) }
        let key = language.map { name + "@" + $0 } ?? name
        if let directory {
            let now = clock.now
            let hit = cache.withLock { $0[key] }
            // Read from a file and looked at less than the interval ago (a clock that went back
            // looks again).
            if let hit, hit.stamp != nil, Self.recent(hit.checked, now) { return hit.result }
            let path = directory + "/" + name + ".json"
            var st = stat()
            // The file itself, never what a link in its place points to (a link is no flow).
            if lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG {
                let stamp = (Int(st.st_mtim.tv_sec), Int(st.st_mtim.tv_nsec), Int(st.st_size))
                if let hit, let s = hit.stamp, s == stamp, linkedUnchanged(hit) {
                    cache.withLock { $0[key]?.checked = now }
                    return hit.result
                }
                var result = load(name, size: Int(st.st_size), language: language)
                if case .failure(let failure) = result {
                    // Said once for this version of the file (it is not read again until it
                    // changes), not once a start. An edit that breaks a flow that was served is
                    // not taken: its starts keep the version read before, as a server keeps its
                    // configuration when a reload of it fails.
                    let lines: [String]
                    switch failure {
                    case .invalid(let errors): lines = errors
                    case .unreadable(let why): lines = [why]
                    case .unknown: lines = []
                    }
                    for line in lines { log("rocket serve: flow \(name): \(line)") }
                    if case .success(let served)? = hit?.result {
                        log(
                            "rocket serve: flow \(name): the edit has errors, so starts keep the version read before it; "
                                + "fix the file (rocket lint) to serve it")
                        result = .success(served)
                    }
                }
                let kept = result
                cache.withLock { $0[key] = Cached(stamp: stamp, result: kept, linked: linkedStamps(kept), checked: now) }
                return result
            }
        }
        guard let bytes = builtIn[name] else { return .failure(.unknown) }
        if let hit = cache.withLock({ $0[key] }), hit.stamp == nil { return hit.result }
        let result = decode(name, bytes, file: name + ".json", language: language)
        cache.withLock { $0[key] = Cached(stamp: nil, result: result) }
        return result
    }

    /// The flows a loaded flow jumps into, with their files' stamps now.
    private func linkedStamps(_ result: Result<LoadedFlow, Failure>) -> [(name: String, stamp: (Int, Int, Int)?)] {
        guard case .success(let flow) = result else { return [] }
        var names = Set<String>()
        for node in flow.document.graph.nodes { if case .jump(let j) = node.content, let f = j.flow { names.insert(f) } }
        return names.sorted().map { ($0, stamp($0)) }
    }

    /// The scenarios the flows on offer name (their `scenario` and `when.eventsOf`): the only
    /// ones `POST /v1/events` counts events of.
    package func declaredScenarios() -> Set<String> {
        recent(declared) {
            var out = Set<String>()
            for name in names() {
                guard case .success(let flow) = flow(name) else { continue }
                if let s = flow.document.scenario { out.insert(s) }
                if let other = flow.document.when?.eventsOf { out.insert(other) }
            }
            return out
        }
    }

    /// The `.json` entries of the folder that are not offered, each with why, for the server's
    /// start and `--check` to say (a file it passes over silently would look like a bug): links
    /// and other entries that are no regular file (never served), and files whose name is no
    /// flow name (`onboarding.v2.json`). Test files (`NAME.test.json`) belong there and are not
    /// listed. Empty without a folder or when it cannot be read.
    package func passedOver() -> [(file: String, why: String)] {
        guard let directory, case .success(let entries) = FileIO.entries(in: directory, endingIn: ".json") else { return [] }
        var out: [(file: String, why: String)] = []
        for entry in entries where !entry.name.hasSuffix(".test.json") {
            let stem = String(entry.name.dropLast(5))
            if !entry.regular {
                out.append((entry.name, "is not offered: it is a link or not a regular file, and flows are served only from files in the folder itself"))
            } else if !Self.isName(stem) {
                out.append((entry.name, "is not offered: " + Self.nameRule(stem)))
            }
        }
        return out
    }

    /// Why `stem` is no flow name, and one it could have (said by the server's start and by
    /// `rocket lint` of a folder).
    package static func nameRule(_ stem: String) -> String {
        "a flow's name is letters, digits, - and _ (not first), at most 64 bytes"
            + (servableName(stem).map { "; rename it, such as '\($0).json'" } ?? "")
    }

    /// A flow name like `stem` (ASCII): each run of other characters as one `-`, none first or
    /// last; nil when nothing is left, or for a name with other letters (no guess at how to
    /// spell them).
    package static func servableName(_ stem: String) -> String? {
        guard stem.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        var out = ""
        for u in stem.unicodeScalars {
            let ok = u.isASCII && (("a"..."z").contains(u) || ("A"..."Z").contains(u) || ("0"..."9").contains(u) || u == "-" || u == "_")
            if ok {
                out.unicodeScalars.append(u)
            } else if !out.isEmpty && out.last != "-" {
                out += "-"
            }
        }
        while let first = out.first, first == "-" || first == "_" { out.removeFirst() }
        while out.last == "-" { out.removeLast() }
        let name = String(out.utf8.prefix(64)) ?? out
        return Self.isName(name) ? name : nil
    }

    /// What a request for a flow called `name` that is not on offer is told: that there is none,
    /// and the name on offer one typo away when there is one (the home page lists them all).
    /// Anyone may ask, so the search is bounded: a folder of more than ``suggestedAmong`` flows
    /// gets no suggestion (each candidate costs an edit distance).
    package func unknownMessage(_ name: String) -> String {
        let offered = names()
        let near = Self.isName(name) && offered.count <= Self.suggestedAmong ? Suggestions.closest(to: name, in: offered) : nil
        return "there is no flow called \(Sanitizer.excerpt(name))" + (near.map { "; did you mean \($0)?" } ?? "")
    }

    /// The most flows an unknown name is compared with for a suggestion (``unknownMessage(_:)``).
    package static let suggestedAmong = 256

    /// The flows on offer with their titles (nil for a flow without one, or one that cannot be
    /// loaded), for the home page: made again at most once a ``recheckInterval``.
    package func catalog() -> [FlowListing] {
        recent(listings) {
            names().map { name in
                guard case .success(let flow) = flow(name) else { return FlowListing(name: name, title: nil) }
                return FlowListing(name: name, title: flow.document.title)
            }
        }
    }

    /// The listings last made, and when.
    private let listings = Mutex<(at: Double, value: [FlowListing])?>(nil)
    /// The scenarios last found, and when: looked for again at most once a ``recheckInterval``.
    private let declared = Mutex<(at: Double, value: Set<String>)?>(nil)
    /// The names last listed, and when: the folder is read at most once a ``recheckInterval``
    /// (every request for the list or the home page, and every scenario event, asks for them).
    private let listed = Mutex<(at: Double, value: [String])?>(nil)

    /// The names of the flows on offer, sorted as people sort names ("step2" before "step10").
    package func names() -> [String] { recent(listed, readNames) }

    private func readNames() -> [String] {
        var out = Set(builtIn.keys)
        // Regular files only: links and anything else are never offered.
        if let directory, case .success(let files) = FileIO.regularFiles(in: directory, endingIn: ".json") {
            for file in files {
                let stem = String(file.dropLast(5))
                if Self.isName(stem) { out.insert(stem) }
            }
        }
        return out.sorted(by: PathName.naturalOrder)
    }

    private func load(_ name: String, size: Int, language: String?) -> Result<LoadedFlow, Failure> {
        if size > Self.maxFileBytes { return .failure(.invalid(["\(name).json: the file is \(size) bytes; the limit is \(Self.maxFileBytes)"])) }
        switch FileIO.read(inside: directory ?? ".", name + ".json", limit: Self.maxFileBytes) {
        case .failure(let f): return .failure(.unreadable("\(name).json: \(f.reason)"))
        case .success(let bytes): return decode(name, bytes, file: name + ".json", language: language)
        }
    }

    /// The document of a flow file as it is written, unlinked (for linking into another).
    private func document(_ name: String, language: String?) -> FlowLoadResult? {
        if let directory, stamp(name) != nil {
            guard case .success(let bytes) = FileIO.read(inside: directory, name + ".json", limit: Self.maxFileBytes) else { return nil }
            return FlowLoader.load(bytes, language: language)
        }
        return builtIn[name].map { FlowLoader.load($0, language: language) }
    }

    private func decode(_ name: String, _ bytes: [UInt8], file: String, language: String?) -> Result<LoadedFlow, Failure> {
        let result = FlowLoader.load(bytes, language: language)
        let errors = result.diagnostics.filter { $0.severity == .error }.map { $0.formatted(file: file) }
        guard result.isPlayable, let doc = result.document else { return .failure(.invalid(errors.isEmpty ? ["\(file): no playable blocks"] : errors)) }
        // Jumps into other flows of the folder: linked into this one's graph.
        let linked = doc.linked(name: name) { document($0, language: language) }
        if !linked.diagnostics.isEmpty {
            return .failure(.invalid(FlowLoader.placed(linked.diagnostics, in: bytes).map { $0.formatted(file: file) }))
        }
        // Another language than the file's first: the version is the first language's.
        var version: String?
        if let language, language != doc.languages.first, case .success(let base) = decode(name, bytes, file: file, language: nil) {
            version = base.version
        }
        return .success(LoadedFlow(name: name, document: linked.document, language: language, version: version, pictures: directory))
    }

    // MARK: Versions

    /// Flows of other versions than the files' (conversations started on them go on with them),
    /// by identity, decoded once each; at most ``keptVersions``.
    private let versions = Mutex<[String: LoadedFlow]>([:])
    /// How many versions of flows are kept decoded at once.
    static let keptVersions = 64

    /// The text a version of `flow` is kept as in the store (the linked document in the flow
    /// format, which ``version(_:text:)`` reads back), or nil when reading it back would not make
    /// the same flow (then none is kept: its conversations could not be resumed on it anyway).
    package static func versionText(of flow: LoadedFlow) -> String? {
        let text = flow.document.jsonValue.serialized(pretty: false)
        guard let again = decodeVersion(flow.name, text: text, language: flow.language), again.identity == flow.identity else { return nil }
        return text
    }

    /// The flow of identity `identity` from its stored `text` (``versionText(of:)``), named
    /// `name`, in `language`: decoded once and kept; nil when the text does not make that flow.
    package func version(_ identity: String, name: String, text: String, language: String?) -> LoadedFlow? {
        if let kept = versions.withLock({ $0[identity] }) { return kept }
        guard let flow = Self.decodeVersion(name, text: text, language: language, pictures: directory), flow.identity == identity else { return nil }
        versions.withLock { kept in
            if kept.count >= Self.keptVersions, let any = kept.keys.first { kept[any] = nil }
            kept[identity] = flow
        }
        return flow
    }

    /// A kept version's flow, if this library has it decoded.
    package func keptVersion(_ identity: String) -> LoadedFlow? { versions.withLock { $0[identity] } }

    private static func decodeVersion(_ name: String, text: String, language: String?, pictures: String? = nil) -> LoadedFlow? {
        let result = FlowLoader.load(Array(text.utf8), language: language)
        guard result.isPlayable, let doc = result.document else { return nil }
        return LoadedFlow(name: name, document: doc, language: language, pictures: pictures)
    }
}
