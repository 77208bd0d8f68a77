import RocketJSON
import RocketCore

/// Why a record could not be read: the line (1-based) and column (1-based, in bytes) of the
/// problem within its input, and what is wrong.
public struct ReportInputError: Error, Hashable, Sendable {
    /// The line of the input.
    public var line: Int
    /// The column within the line (1 when the line as a whole is wrong).
    public var column: Int
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(line: Int, column: Int = 1, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }
}

/// What a report's rows stand for: an experiment's variants, the versions of a flow (which its
/// `started` records name), oldest first, to see what an edit changed, or the days or weeks its
/// conversations started in, to see a trend.
public enum ReportGrouping: String, Hashable, Sendable, CaseIterable {
    /// A row per variant (`""` for a flow without an experiment; the holdout last).
    case variant
    /// A row per version of the flow, in the order they were first started; `""` for
    /// conversations whose records name no version (written before versions were).
    case version
    /// A row per day its conversations started on (UTC, `YYYY-MM-DD`), oldest first; `""` for
    /// records without a time.
    case day
    /// A row per week its conversations started in (UTC, named by its Monday, `YYYY-MM-DD`),
    /// oldest first.
    case week

    /// The words `--by` and `by=` take, for messages.
    public static var phrase: String {
        allCases.map(\.rawValue).listedForMessage(conjunction: "or")
    }

    /// The row of a conversation that started at `at` (seconds since 1970), by day or week: the
    /// day's `YYYY-MM-DD`, or the week's Monday's; `""` without a time (or by variant or version).
    public func period(of at: Double?) -> String {
        // Years 1 to 9999, as instants are anywhere (a record's time may be anything).
        guard self == .day || self == .week, let at, CivilDate.instants.contains(at) else { return "" }
        var day = Int((at / 86_400).rounded(.down))
        // The week's Monday: the day less the days since it.
        if self == .week { day -= CivilDate.weekday(days: day) - 1 }
        return CivilDate.text(days: day)
    }
}

/// A window of time from `since` (included) to `until` (not included), in seconds since 1970;
/// nil: no bound. A report counts the conversations that began in it (at their first record's
/// time), each whole (its later records too) or not at all, so a funnel is never cut in two; one
/// whose records give no time is not counted. The results a store lists in it are those of the
/// conversations that ended in it.
public struct ReportWindow: Hashable, Sendable {
    /// The earliest beginning counted (nil: no bound).
    public var since: Double?
    /// The first beginning no longer counted (nil: no bound).
    public var until: Double?

    /// A window of beginnings from `since` up to `until`.
    public init(since: Double? = nil, until: Double? = nil) {
        self.since = since
        self.until = until
    }

    /// True when a conversation that began at `at` is counted.
    public func contains(_ at: Double) -> Bool { since.map { at >= $0 } ?? true && until.map { at < $0 } ?? true }

    /// The window as a report says it: "from 2026-12-01 to 2026-12-07T12:00:00Z", "from …",
    /// "before …".
    public var phrase: String {
        switch (since, until) {
        case (let a?, let b?): return "from \(ReportFormat.instant(a)) to \(ReportFormat.instant(b))"
        case (let a?, nil): return "from \(ReportFormat.instant(a))"
        case (nil, let b?): return "before \(ReportFormat.instant(b))"
        case (nil, nil): return "at any time"
        }
    }
}

/// What a report is made with.
public struct ReportOptions: Hashable, Sendable {
    /// Counts of 1 to fewer than this many conversations are hidden (nil in the report).
    public var minCount = 5
    /// The variant (or version) every other is compared against (nil: the first, by name, that
    /// is not the holdout; by version, the oldest).
    public var against: String? = nil
    /// Only this flow (nil: every flow).
    public var flow: String? = nil

    /// The defaults: cells under 5 hidden, compared against the first variant, every flow.
    public init(minCount: Int = 5, against: String? = nil, flow: String? = nil) {
        self.minCount = minCount
        self.against = against
        self.flow = flow
    }
}

/// Reads event records one at a time and keeps only what the report needs: counts per flow and
/// variant, per block the conversations that reached and answered it, and the times to answer.
/// Conversations still open are held until their `dismissed` record (or the end of their input).
///
/// A record belongs to a conversation by its `"conversation"` field, or by the key a store
/// gives it; a JSON Lines input without either (what `rocket
/// play --events` writes) is one conversation after another: an `exposure` record begins one, a
/// `started` record begins one unless it follows that conversation's exposure.
///
/// ```swift
/// var b = ReportBuilder()
/// try b.addLine(Array(#"{"at":0,"event":"started","flow":"welcome"}"#.utf8), input: 0, line: 1)
/// b.finishInput(0)
/// let report = b.report(ReportOptions())
/// ```
public struct ReportBuilder {
    struct GroupKey: Hashable {
        var flow: String
        var variant: String
    }

    struct BlockStats {
        var reached = 0
        var answered = 0
        var dropped = 0
        var firstIndex = Int.max
        var seen = 0
        var durations: [Float] = []
        /// Conversations whose last answer chose each option, by the option's place.
        var options: [Int: OptionStats] = [:]
        /// The block's kind, from its first `blockAdded` record that names one (a word of letters).
        var type: String?
        /// A rating's scale, from its first `blockAdded` record that gives one.
        var scale: ClosedRange<Int>?
    }

    /// How often an option was chosen, and under which titles (a title filled from `{{…}}` may
    /// differ from one conversation to the next).
    struct OptionStats {
        var count = 0
        /// Conversations by the title they saw: at most ``titlesPerOption`` different ones.
        var titles: [String: Int] = [:]

        /// The title the most conversations saw among those `shown` lets through (ties: the
        /// first by name), nil for none.
        func mostSeenTitle(_ shown: (String, Int) -> Bool = { _, _ in true }) -> String? {
            titles.filter { shown($0.key, $0.value) }.max { a, b in a.value != b.value ? a.value < b.value : a.key > b.key }?.key
        }
    }

    /// Different titles kept per option; a title longer than ``titleBytes`` is not kept.
    static let titlesPerOption = 4
    static let titleBytes = 256

    final class Group {
        /// When its first conversation started (by version: the rows' order).
        var firstAt = Double.infinity
        var exposures = 0
        var starts = 0
        var completions = 0
        var dismissals: [String: Int] = [:]
        var blocks: [String: BlockStats] = [:]
        /// Conversations that met each expression error, by place.
        var errors: [ErrorPlace: Int] = [:]
    }

    /// Where an `expressionError` record says the flow failed, and which error.
    struct ErrorPlace: Hashable {
        var block: String
        var path: String
        var code: String
    }

    /// Different error places kept per flow and variant; others count as one place, `other`.
    static let errorPlaces = 100
    /// The longest block id, path or code an error place keeps (a longer one counts as `other`).
    static let errorFieldBytes = 256

    struct Session {
        var flow = ""
        var variant = ""
        var exposed = false
        var started = false
        /// Shown blocks by index: the block's key and when it was added.
        var shown: [Int: (key: String, at: Double?)] = [:]
        var reached: Set<String> = []
        var answered: Set<String> = []
        /// The last answer to each block that chose options (the options' places and titles),
        /// counted when the conversation ends.
        var chosen: [String: [(option: Int, title: String?)]] = [:]
        var last: String?
        var counted = false
        /// The error places met so far (each counted once a conversation).
        var errors: Set<ErrorPlace> = []
        /// The group of (flow, variant), found once.
        var group: Group?
        /// Whether it began within the report's ``ReportBuilder/window`` (nil: not decided yet;
        /// its first record with a time decides).
        var inWindow: Bool?
    }

    var groups: [GroupKey: Group] = [:]
    var groupOrder: [GroupKey] = []

    /// The names of the flows the records read so far hold, sorted (before any `flow` filter of
    /// the report: what a mistyped `--flow` is held against).
    public var flowNames: [String] { Set(groupOrder.map(\.flow)).sorted() }
    var open: [String: Session] = [:]
    /// The conversation the last record went to, kept out of `open` (records of one
    /// conversation mostly come together: no hashing for them), with its `conversation` field.
    var hotKey: String?
    var hot = Session()
    var hotID: String?
    /// The input of the hot conversation (-1: a store's).
    var hotInput = -2
    var current: [Int: String] = [:]
    var sessionsMade = 0
    var blocksSeen = 0
    /// Bytes of option titles kept (at most `RocketLimits.reportTitleBytes`).
    var titleBytesKept = 0
    /// Records read.
    public private(set) var records = 0
    /// What the rows stand for (set when the builder is made: it decides how records are read).
    public let grouping: ReportGrouping
    /// The conversations counted, by when they began (set before the first record; nil: all).
    public var window: ReportWindow?

    /// An empty report whose rows are `grouping`'s.
    public init(by grouping: ReportGrouping = .variant) {
        self.grouping = grouping
    }

    // MARK: Reading

    /// Reads one JSON Lines record of input `input` (a number the caller gives each file) at
    /// `line`. Empty lines are skipped; records of events the report does not use are read and
    /// ignored.
    public mutating func addLine(_ bytes: [UInt8], input: Int, line: Int) throws(ReportInputError) {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return }
        guard bytes.count <= RocketLimits.reportRecordBytes else {
            throw ReportInputError(line: line, message: "the record is \(bytes.count) bytes; the limit is \(RocketLimits.reportRecordBytes) bytes")
        }
        var limits = JSONReaderLimits()
        limits.maxDepth = 8
        let tape: JSONTape
        do {
            tape = try JSONTape.parse(bytes, limits: limits)
        } catch {
            throw ReportInputError(line: line, column: error.offset + 1, message: error.message)
        }
        guard tape.kind(0) == .object else { throw ReportInputError(line: line, message: "a record is a JSON object, not \(tape.typeName(0))") }
        guard let e = tape.member(of: 0, "event" as StaticString), let event = tape.string(e) else {
            throw ReportInputError(line: line, message: "the record has no \"event\" string")
        }
        let key: String
        if let c = tape.member(of: 0, "conversation" as StaticString), tape.kind(c) == .string {
            if let k = hotKey, hotInput == input, let id = hotID, tape.string(c, is: id) {
                key = k
            } else {
                let id = tape.string(c) ?? ""
                key = "\(input)\u{0}\(id)"
                if key != hotKey, open[key] == nil { try ensureRoom(line: line) }
                hotID = id
                hotInput = input
            }
        } else {
            key = try sessionKey(input: input, event: event, line: line)
            hotID = nil
        }
        // Taken out while it changes, so its sets are not copied per record.
        var s = take(key)
        if event == "started" || event == "exposure" || s.flow.isEmpty, let f = tape.member(of: 0, "flow" as StaticString), let flow = tape.string(f),
            flow != s.flow
        {
            s.flow = flow
            s.group = nil
        }
        try apply(tape, event: event, to: &s, line: line)
        put(key, s)
        if event == "dismissed" {
            finish(key)
            if current[input] == key { current[input] = nil }
        }
    }

    /// Reads one record of a store's conversation `conversation` of `flow` (records of one
    /// conversation come together, in order; call ``finishConversation(_:)`` after its last).
    package mutating func add(_ record: [UInt8], conversation: String, flow: String, line: Int) throws(ReportInputError) {
        var limits = JSONReaderLimits()
        limits.maxDepth = 8
        guard let tape = try? JSONTape.parse(record, limits: limits), tape.kind(0) == .object,
            let e = tape.member(of: 0, "event" as StaticString), let event = tape.string(e)
        else { throw ReportInputError(line: line, message: "a stored record of conversation \(conversation) is not an event record") }
        let key = hotInput == -1 && hotID == conversation && hotKey != nil ? hotKey! : "s\u{0}" + conversation
        hotID = conversation
        hotInput = -1
        var s = take(key)
        if s.flow.isEmpty {
            s.flow = flow
            s.group = nil
        }
        try apply(tape, event: event, to: &s, line: line)
        put(key, s)
        if event == "dismissed" { finish(key) }
    }

    /// Ends a store's conversation: one that never closed counts as dropped where it stands.
    package mutating func finishConversation(_ conversation: String) {
        finish("s\u{0}" + conversation)
    }

    /// Takes conversation `key` out to change it (an empty one when it is new).
    private mutating func take(_ key: String) -> Session {
        if hotKey == key {
            hotKey = nil
            let s = hot
            hot = Session()
            return s
        }
        return open.removeValue(forKey: key) ?? Session()
    }

    /// Puts conversation `key` back as the hot one (the one before goes into `open`).
    private mutating func put(_ key: String, _ s: Session) {
        if let k = hotKey, k != key { open[k] = hot }
        hotKey = key
        hot = s
    }

    /// Moves the hot conversation into `open`.
    private mutating func park() {
        if let k = hotKey { open[k] = hot }
        hotKey = nil
        hot = Session()
    }

    /// Ends input `input`: its conversations still open count as dropped where they stand.
    public mutating func finishInput(_ input: Int) {
        park()
        let prefix = "\(input)\u{0}"
        for key in open.keys where key.hasPrefix(prefix) { finish(key) }
        current[input] = nil
    }

    private mutating func ensureRoom(line: Int) throws(ReportInputError) {
        guard open.count + (hotKey == nil ? 0 : 1) < RocketLimits.reportOpenConversations else {
            throw ReportInputError(
                line: line,
                message:
                    "more than \(RocketLimits.reportOpenConversations) conversations are open at once; the records of a conversation are expected together"
            )
        }
    }

    /// The conversation a record without a `"conversation"` field belongs to.
    private mutating func sessionKey(input: Int, event: String, line: Int) throws(ReportInputError) -> String {
        if let key = current[input], let s = hotKey == key ? hot : open[key] {
            let begins = event == "exposure" || (event == "started" && (s.started || !s.exposed))
            if !begins { return key }
            finish(key)
        }
        try ensureRoom(line: line)
        sessionsMade += 1
        let key = "\(input)\u{0}#\(sessionsMade)"
        put(key, Session())
        current[input] = key
        return key
    }

    private mutating func group(_ s: inout Session) -> Group {
        if let g = s.group { return g }
        let key = GroupKey(flow: s.flow, variant: s.variant)
        let g: Group
        if let found = groups[key] {
            g = found
        } else {
            g = Group()
            groups[key] = g
            groupOrder.append(key)
        }
        s.group = g
        return g
    }

    private static func number(_ tape: JSONTape, _ key: StaticString) -> Double? {
        guard let i = tape.member(of: 0, key) else { return nil }
        return tape.number(i)
    }

    private static func text(_ tape: JSONTape, _ key: StaticString) -> String? {
        guard let i = tape.member(of: 0, key) else { return nil }
        return tape.string(i)
    }

    /// The key a block is counted under: its id, else `#` and its place in the conversation.
    private static func blockKey(_ tape: JSONTape, index: Int) -> String {
        if let id = text(tape, "id") { return id }
        return "#\(index)"
    }

    private mutating func apply(_ tape: JSONTape, event: String, to s: inout Session, line: Int) throws(ReportInputError) {
        records += 1
        let at = Self.number(tape, "at")
        if let window {
            if s.inWindow == nil { s.inWindow = at.map(window.contains) ?? false }
            if s.inWindow == false {
                // Not counted; still followed, so that its later records are known as its own.
                if event == "exposure" { s.exposed = true } else if event == "started" || event == "blockAdded" { s.started = true }
                return
            }
        }
        let byVariant = grouping == .variant
        if byVariant, !s.counted || s.variant.isEmpty, let v = Self.text(tape, "variant"), v != s.variant {
            s.variant = v
            s.group = nil
        }
        // By version, a conversation's row is the version its start names; by day or week, the
        // day or week of its start (a first block for records before starts were written).
        if !byVariant, !s.started, event == "started" || (event == "blockAdded" && grouping != .version) {
            let v = grouping == .version ? Self.text(tape, "version") ?? "" : grouping.period(of: at)
            if v != s.variant {
                s.variant = v
                s.group = nil
            }
        }
        if s.group == nil, groups.count >= RocketLimits.reportGroups, groups[GroupKey(flow: s.flow, variant: s.variant)] == nil {
            throw ReportInputError(line: line, message: "more than \(RocketLimits.reportGroups) different flows and variants")
        }
        switch event {
        case "exposure" where !byVariant:
            // Exposures belong to an experiment's variants, not to a version, a day or a week.
            s.exposed = true
        case "exposure":
            s.exposed = true
            if tape.member(of: 0, "shown" as StaticString).flatMap(tape.bool) == false {
                s.variant = Self.text(tape, "variant") ?? "holdout"
                s.group = nil
            }
            group(&s).exposures += 1
            s.counted = true
        case "started":
            if !s.started {
                s.started = true
                let g = group(&s)
                g.starts += 1
                if let at { g.firstAt = min(g.firstAt, at) }
                s.counted = true
            }
        case "blockAdded":
            guard let i = Self.number(tape, "index"), i >= 0, i < 1e9 else {
                throw ReportInputError(line: line, message: "a blockAdded record needs an \"index\" (a number from 0)")
            }
            let index = Int(i)
            if !s.started {
                // Records from before `started` existed: the first block is the start.
                s.started = true
                let g = group(&s)
                g.starts += 1
                if let at { g.firstAt = min(g.firstAt, at) }
                s.counted = true
            }
            let key = Self.blockKey(tape, index: index)
            s.shown[index] = (key, at)
            s.last = key
            let g = group(&s)
            if g.blocks[key] == nil {
                guard g.blocks.count < RocketLimits.reportBlocks else {
                    throw ReportInputError(line: line, message: "more than \(RocketLimits.reportBlocks) different blocks in one flow")
                }
                blocksSeen += 1
                g.blocks[key] = BlockStats(seen: blocksSeen)
            }
            if index < g.blocks[key]!.firstIndex { g.blocks[key]!.firstIndex = index }
            if g.blocks[key]!.type == nil, let t = Self.text(tape, "type"), !t.isEmpty, t.utf8.count <= 32,
                t.utf8.allSatisfy({ ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A })
            {
                g.blocks[key]!.type = t
            }
            if g.blocks[key]!.scale == nil, let s = tape.member(of: 0, "scale" as StaticString), tape.kind(s) == .array, tape.count(s) == 2,
                let low = tape.number(s + 1), let high = tape.number(tape.next(after: s + 1)), low == 0 || low == 1, high == high.rounded(),
                high > low, high <= 10
            {
                g.blocks[key]!.scale = Int(low)...Int(high)
            }
            if s.reached.insert(key).inserted { g.blocks[key]!.reached += 1 }
        case "tapped", "buttonPressed", "inputSubmitted":
            guard let i = Self.number(tape, "index"), i >= 0, i < 1e9, let shown = s.shown[Int(i)] else { return }
            if event == "buttonPressed", let chosen = try Self.chosen(tape, line: line) { s.chosen[shown.key] = chosen }
            let g = group(&s)
            guard s.answered.insert(shown.key).inserted, g.blocks[shown.key] != nil else { return }
            g.blocks[shown.key]!.answered += 1
            if let at, let start = shown.at, at >= start, at - start < RocketLimits.durationSeconds {
                g.blocks[shown.key]!.durations.append(Float(at - start))
            }
        case "expressionError" where s.started:
            let other = ErrorPlace(block: "", path: "", code: "other")
            var place = ErrorPlace(block: Self.text(tape, "id") ?? "", path: Self.text(tape, "path") ?? "", code: Self.text(tape, "code") ?? "")
            if place.code.isEmpty || [place.block, place.path, place.code].contains(where: { $0.utf8.count > Self.errorFieldBytes }) { place = other }
            let g = group(&s)
            if g.errors[place] == nil, g.errors.count >= Self.errorPlaces { place = other }
            if !s.errors.contains(place), s.errors.count >= Self.errorPlaces { place = other }
            if s.errors.insert(place).inserted { g.errors[place, default: 0] += 1 }
        case "dismissed":
            let reason = Self.text(tape, "reason") ?? "unknown"
            let g = group(&s)
            let name = reason.utf8.count <= 32 ? reason : "other"
            if g.dismissals[name] == nil, g.dismissals.count >= 16 {
                g.dismissals["other", default: 0] += 1
            } else {
                g.dismissals[name, default: 0] += 1
            }
            if reason == "completed" {
                g.completions += 1
                s.last = nil
            }
        default:
            break
        }
    }

    /// The options a `buttonPressed` record chose, with their titles: nil for a record without
    /// `options` (written before it existed).
    private static func chosen(_ tape: JSONTape, line: Int) throws(ReportInputError) -> [(option: Int, title: String?)]? {
        guard let list = tape.member(of: 0, "options" as StaticString) else { return nil }
        let wrong = ReportInputError(
            line: line, column: tape.offset(list) + 1,
            message: "\"options\" is a list of at most \(RocketLimits.choiceOptions) places, each a whole number from 0 to \(RocketLimits.choiceOptions - 1)")
        guard tape.kind(list) == .array, tape.count(list) <= RocketLimits.choiceOptions else { throw wrong }
        var places: [Int] = []
        var j = list + 1
        for _ in 0..<tape.count(list) {
            guard let n = tape.number(j), n >= 0, n < Double(RocketLimits.choiceOptions), n == n.rounded() else { throw wrong }
            places.append(Int(n))
            j = tape.next(after: j)
        }
        // One option's title is `title`; several have theirs in `titles`, in the same order.
        var titles: [String?] = Array(repeating: nil, count: places.count)
        if places.count == 1 {
            titles[0] = text(tape, "title")
        } else if let t = tape.member(of: 0, "titles" as StaticString), tape.kind(t) == .array, tape.count(t) == places.count {
            var k = t + 1
            for n in 0..<places.count {
                titles[n] = tape.string(k)
                k = tape.next(after: k)
            }
        }
        return Array(zip(places, titles))
    }

    /// Ends conversation `key`: an open one counts as dropped at the last block it reached, and
    /// the last answers it gave are counted.
    private mutating func finish(_ key: String) {
        var s: Session
        if hotKey == key {
            s = hot
            hotKey = nil
            hot = Session()
        } else {
            guard let found = open.removeValue(forKey: key) else { return }
            s = found
        }
        if !s.chosen.isEmpty {
            let g = group(&s)
            for (block, chosen) in s.chosen where g.blocks[block] != nil {
                for (option, title) in chosen { count(option, title: title, of: block, in: g) }
            }
        }
        guard let last = s.last else { return }
        let g = group(&s)
        g.blocks[last]?.dropped += 1
    }

    /// Counts one conversation's choice of `option` of `block`, keeping its title while there is
    /// room for it.
    private mutating func count(_ option: Int, title: String?, of block: String, in g: Group) {
        var o = g.blocks[block]!.options[option] ?? OptionStats()
        o.count += 1
        if let title, title.utf8.count <= Self.titleBytes {
            if o.titles[title] != nil {
                o.titles[title]! += 1
            } else if o.titles.count < Self.titlesPerOption, titleBytesKept + title.utf8.count <= RocketLimits.reportTitleBytes {
                o.titles[title] = 1
                titleBytesKept += title.utf8.count
            }
        }
        g.blocks[block]!.options[option] = o
    }

    // MARK: The report

    /// The report of everything read so far (conversations still open are counted as they stand).
    public func report(_ options: ReportOptions) -> Report {
        var copy = self
        copy.park()
        for key in copy.open.keys { copy.finish(key) }
        return copy.build(options)
    }

    private func build(_ options: ReportOptions) -> Report {
        var flows: [String: [GroupKey]] = [:]
        for key in groupOrder where options.flow == nil || options.flow == key.flow { flows[key.flow, default: []].append(key) }
        // Zero reveals no one: only counts from 1 to under minCount are hidden.
        let hide = { (n: Int) -> Int? in n == 0 || n >= options.minCount ? n : nil }
        var out: [FlowReport] = []
        for name in flows.keys.sorted() {
            // Variants by name, the holdout last; "" (no experiment) first. Versions in the order
            // they were first started.
            let keys = flows[name]!.sorted { a, b in
                if grouping == .version {
                    let (x, y) = (groups[a]!.firstAt, groups[b]!.firstAt)
                    return x != y ? x < y : a.variant < b.variant
                }
                // Days and weeks are named so that their names sort as time does.
                if grouping == .day || grouping == .week { return a.variant < b.variant }
                if (a.variant == "holdout") != (b.variant == "holdout") { return b.variant == "holdout" }
                return a.variant < b.variant
            }
            let reference = options.against.flatMap { want in keys.first { $0.variant == want } } ?? keys.first { $0.variant != "holdout" }
            var variants: [VariantReport] = []
            for key in keys {
                let g = groups[key]!
                let trials = g.exposures > 0 ? g.exposures : g.starts
                var comparison: VariantReport.Comparison?
                // The holdout saw nothing, so it completes nothing: it is compared only as the
                // reference (`against: "holdout"`), never against a variant.
                if let reference, reference != key, key.variant != "holdout" {
                    let r = groups[reference]!
                    let rTrials = r.exposures > 0 ? r.exposures : r.starts
                    if trials >= options.minCount, rTrials >= options.minCount,
                        let c = ProportionComparison(
                            successes: g.completions, trials: trials, againstSuccesses: r.completions, againstTrials: rTrials)
                    {
                        comparison = VariantReport.Comparison(against: reference.variant, statistics: c)
                    }
                }
                var blocks: [BlockReport] = []
                let order = g.blocks.sorted { a, b in
                    a.value.firstIndex != b.value.firstIndex ? a.value.firstIndex < b.value.firstIndex : a.value.seen < b.value.seen
                }
                for (id, stats) in order {
                    var durations = stats.durations
                    // An option is named by a title only as many conversations saw as a count
                    // needs to be shown: a title filled from a visitor's value names no one. A
                    // rating's titles are its numbers (from 0 or 1), which name no one either.
                    let answers = stats.options.sorted { $0.key < $1.key }.map { option, o in
                        let named = o.mostSeenTitle { title, seen in seen >= options.minCount || (stats.type == "rating" && Int(title) != nil) }
                        return OptionReport(option: option, title: named, count: hide(o.count))
                    }
                    let rating = stats.type == "rating" ? RatingSummary(stats.options, scale: stats.scale, minCount: options.minCount) : nil
                    blocks.append(
                        BlockReport(
                            id: id, reached: hide(stats.reached), answered: hide(stats.answered), dropped: hide(stats.dropped),
                            medianSecondsToAnswer: durations.count >= options.minCount ? median(&durations) : nil, type: stats.type,
                            answers: answers, rating: rating))
                }
                // The places where most conversations failed first.
                let errors = g.errors.sorted { a, b in
                    a.value != b.value ? a.value > b.value : (a.key.block, a.key.path, a.key.code) < (b.key.block, b.key.path, b.key.code)
                }.map { ErrorReport(block: $0.key.block, path: $0.key.path, code: $0.key.code, conversations: hide($0.value)) }
                variants.append(
                    VariantReport(
                        variant: key.variant, exposures: hide(g.exposures), starts: hide(g.starts), completions: hide(g.completions),
                        completionRate: trials >= options.minCount ? Double(g.completions) / Double(trials) : nil,
                        dismissals: g.dismissals.sorted { $0.key < $1.key }.map { ($0.key, hide($0.value)) }, blocks: blocks,
                        comparison: comparison, errors: errors))
            }
            // Several variants compared with one reference: each p-value also adjusted for them all.
            let compared = variants.indices.filter { variants[$0].comparison != nil }
            if compared.count >= 2 {
                let adjusted = ProportionComparison.holm(compared.map { variants[$0].comparison!.statistics.pValue })
                for (i, p) in zip(compared, adjusted) { variants[i].comparison?.holmPValue = p }
            }
            out.append(FlowReport(flow: name, variants: variants))
        }
        return Report(flows: out, records: records, minCount: options.minCount, grouping: grouping, window: window)
    }
}

/// A report: per flow, per variant, the counts, the funnel over blocks and the comparison. A
/// count under the report's `minCount` is nil (hidden).
public struct Report: Sendable {
    /// The flows, by name.
    public var flows: [FlowReport]
    /// Records read.
    public var records: Int
    /// Counts under this were hidden.
    public var minCount: Int
    /// What its flows' rows (``FlowReport/variants``) stand for.
    public var grouping: ReportGrouping = .variant
    /// The conversations counted, by when they began (nil: all).
    public var window: ReportWindow? = nil
}

/// One flow of a report.
public struct FlowReport: Sendable {
    /// The flow's name ("" when the records did not name it).
    public var flow: String
    /// Its variants ("" alone when it has no experiment), by name, the holdout last; or, by
    /// version, its versions in the order they were first started.
    public var variants: [VariantReport]

    /// True when its records hold exposures (an experiment's): the tables show that column
    /// only then, since a flow without an experiment is never "exposed" (its count would read 0).
    /// A count hidden under the minimum is some.
    public var hasExposures: Bool { variants.contains { $0.exposures != 0 } }
}

/// One variant of a flow in a report.
public struct VariantReport: Sendable {
    /// A variant compared with another.
    public struct Comparison: Sendable {
        /// The variant it is compared against.
        public var against: String
        /// The difference of completion rates and its statistics.
        public var statistics: ProportionComparison
        /// The p-value adjusted for every comparison of its flow by Holm's method, when the flow
        /// makes two or more (nil: its only one, whose p-value stands as it is).
        public var holmPValue: Double? = nil
    }

    /// Its name ("" without an experiment; "holdout" for those shown nothing).
    public var variant: String
    /// Exposure records (each start of an experiment's flow, and each holdout decision).
    public var exposures: Int?
    /// Conversations started.
    public var starts: Int?
    /// Conversations that reached the end.
    public var completions: Int?
    /// Completions over exposures (over starts without an experiment).
    public var completionRate: Double?
    /// Conversations ended, by reason (`completed`, `closed`, `interrupted`).
    public var dismissals: [(reason: String, count: Int?)]
    /// The funnel, in flow order.
    public var blocks: [BlockReport]
    /// The comparison with the reference variant (nil for the reference itself, or too few).
    public var comparison: Comparison?
    /// Where its conversations' expressions failed (`expressionError` records), the places most
    /// conversations met first.
    public var errors: [ErrorReport] = []
}

/// A place where a flow's expressions failed, and how many conversations met it.
public struct ErrorReport: Sendable, Hashable {
    /// The block's id ("" for a block without one, or `other`'s).
    public var block: String
    /// The field in the block (`set.ratio`, `branches[0].if`; "" for the block itself).
    public var path: String
    /// The error's code (`division-by-zero`, `loop`, `conversation-too-long`, …; `other` for the
    /// places past the most a report keeps, or a record without one).
    public var code: String
    /// Conversations that met it (nil: hidden under the minimum).
    public var conversations: Int?

    /// Makes one.
    public init(block: String, path: String, code: String, conversations: Int?) {
        self.block = block
        self.path = path
        self.code = code
        self.conversations = conversations
    }
}

/// One block of a funnel.
public struct BlockReport: Sendable {
    /// The block's id (`#N` for a block without one: its place in the conversation).
    public var id: String
    /// Conversations that showed it.
    public var reached: Int?
    /// Conversations in which it was answered (tapped, pressed, submitted, or its timer fired).
    public var answered: Int?
    /// Conversations that ended here without completing (or are still open here).
    public var dropped: Int?
    /// The median seconds from showing it to its answer.
    public var medianSecondsToAnswer: Double?
    /// Its kind as its records name it (`choice`, `rating`, …; nil when they do not).
    public var type: String? = nil
    /// For a block that offers options (a button, a double button, a choice, a rating): each
    /// option chosen, by its place; a conversation counts its last answer to the block.
    public var answers: [OptionReport] = []
    /// For a rating: its answers summed up (nil for other blocks, or fewer answers than the
    /// report's `minCount`).
    public var rating: RatingSummary? = nil
}

/// A rating's answers summed up: their mean, and for a question from 0 to 10 its Net Promoter
/// Score. Each conversation counts its last answer, as ``BlockReport/answers`` does.
public struct RatingSummary: Sendable, Hashable {
    /// Conversations that answered it.
    public var answers: Int
    /// The mean of their answers.
    public var mean: Double
    /// The scale, bottom to top, when its records say it (records before they did: nil).
    public var scale: ClosedRange<Int>?
    /// For a scale from 0 to 10: the Net Promoter Score.
    public var netPromoter: NetPromoterScore?

    /// A summary as a report's JSON states it (read back by ``Report/init(json:)``).
    init(answers: Int, mean: Double, scale: ClosedRange<Int>?, netPromoter: NetPromoterScore?) {
        self.answers = answers
        self.mean = mean
        self.scale = scale
        self.netPromoter = netPromoter
    }

    /// Sums up a rating's options (their counts and titles); nil when fewer than `minCount`
    /// conversations answered it. A value is its option's title when that is a number of the
    /// scale (records name it), else its place above the bottom of the scale (1 when unknown).
    init?(_ options: [Int: ReportBuilder.OptionStats], scale: ClosedRange<Int>?, minCount: Int) {
        var n = 0
        var sum = 0.0
        var groups = (promoters: 0, passives: 0, detractors: 0)
        for (option, o) in options {
            let titled = o.mostSeenTitle().flatMap { Int($0) }
            let value = titled.flatMap { scale == nil || scale!.contains($0) ? $0 : nil } ?? option + (scale?.lowerBound ?? 1)
            n += o.count
            sum += Double(value) * Double(o.count)
            if value >= 9 { groups.promoters += o.count } else if value >= 7 { groups.passives += o.count } else { groups.detractors += o.count }
        }
        guard n > 0, n >= minCount else { return nil }
        answers = n
        mean = sum / Double(n)
        self.scale = scale
        // As every count of a report: from 1 to under minCount, hidden.
        let hide = { (k: Int) -> Int? in k == 0 || k >= minCount ? k : nil }
        netPromoter =
            scale == 0...10
            ? NetPromoterScore(
                score: Double(groups.promoters - groups.detractors) * 100 / Double(n), promoters: hide(groups.promoters),
                passives: hide(groups.passives), detractors: hide(groups.detractors)) : nil
    }
}

/// The Net Promoter Score of a question from 0 to 10: the share of promoters (9 and 10) less the
/// share of detractors (0 to 6), in points from −100 to 100. Passives (7 and 8) count in neither.
public struct NetPromoterScore: Sendable, Hashable {
    /// The score, −100 to 100.
    public var score: Double
    /// Answers of 9 or 10 (nil when hidden, as every count from 1 to under `minCount`).
    public var promoters: Int?
    /// Answers of 7 or 8 (nil when hidden).
    public var passives: Int?
    /// Answers of 0 to 6 (nil when hidden).
    public var detractors: Int?

    /// Creates a score from its parts.
    public init(score: Double, promoters: Int?, passives: Int?, detractors: Int?) {
        self.score = score
        self.promoters = promoters
        self.passives = passives
        self.detractors = detractors
    }
}

/// How often one option of a block was chosen.
public struct OptionReport: Sendable, Hashable {
    /// The option's place in its block (0-based): 0 for a button, 0 (left) or 1 (right) for a
    /// double button, the option of a choice, a rating's value less its bottom (1, or 0).
    public var option: Int
    /// The title the most conversations saw for it, when at least the report's `minCount` did;
    /// nil otherwise (a title filled from `{{…}}` names no one).
    public var title: String?
    /// Conversations whose last answer to the block chose it (nil when hidden).
    public var count: Int?

    /// Creates an option's line of a report.
    public init(option: Int, title: String?, count: Int?) {
        self.option = option
        self.title = title
        self.count = count
    }
}
