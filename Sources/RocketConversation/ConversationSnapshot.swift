public import RocketJSON
import RocketCore

/// A conversation saved so it can resume after a restart: the flow's identity (a content hash of
/// its graph), the transcript, the answers, the current block, and pending timers as the time
/// they had left. Secret answers are kept only as bullets unless the host opts in.
///
/// The JSON form is our own and versioned (docs/SNAPSHOT_FORMAT.md): version 2 names blocks by
/// their ids and spells every enumeration as a word; version 1 (the synthesized `Codable`
/// shapes, blocks by graph index) is still read. Reading needs the flow's graph, since block
/// names resolve against it; a snapshot of another flow or of an unknown version is refused.
///
/// ```swift
/// let snapshot = ConversationSnapshot(conversation, at: clock.now)
/// let text = try snapshot.jsonText()
/// let again = try ConversationSnapshot(jsonText: Array(text.utf8), graph: graph)
/// let resumed = try again.restore(graph: graph, author: author, closeButton: nil, options: options, at: clock.now)
/// ```
public struct ConversationSnapshot: Hashable, Sendable {
    /// A timer that had `remaining` seconds to go when the snapshot was taken.
    public struct PendingTimer: Hashable, Sendable, Codable {
        /// Creates a pending timer.
        public init(remaining: Double, sequence: Int, action: ConversationState.TimerAction) {
            self.remaining = remaining
            self.sequence = sequence
            self.action = action
        }

        /// Seconds left.
        public var remaining: Double
        /// Order among timers due at once.
        public var sequence: Int
        /// What it does.
        public var action: ConversationState.TimerAction
    }

    /// Why a snapshot cannot be read or restored.
    public enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// Not a snapshot (bad JSON or shape), with a sentence naming the place.
        case invalid(String)
        /// Written by a newer version of this library.
        case unsupportedVersion(Int)
        /// It belongs to another flow (or another version of this one).
        case otherFlow(expected: String, found: String)

        /// A sentence a person can act on.
        public var description: String {
            switch self {
            case .invalid(let why): return "not a conversation snapshot: \(why)"
            case .unsupportedVersion(let v): return "the snapshot has format version \(v); this rocket reads version \(ConversationSnapshot.currentVersion)"
            case .otherFlow: return "the snapshot belongs to a different flow (or an earlier version of this one)"
            }
        }
    }

    /// The format version this library writes (it reads this one and version 1).
    public static let currentVersion = 2

    /// Always `"rocket-conversation"`.
    public var format: String
    /// The format version.
    public var version: Int
    /// The SHA-256 of the graph's canonical JSON (``RocketGraph/contentHash``).
    public var flow: String
    /// The state, with ``ConversationState/timers`` moved to ``timers``.
    public var state: ConversationState
    /// Pending timers, as time remaining.
    public var timers: [PendingTimer]
    /// True when secret answers were kept (the host opted in).
    public var includesSecrets: Bool
    /// How the graph's blocks are named in the JSON form (made once per graph by hosts that
    /// write many snapshots).
    var names: BlockNames

    /// Takes a snapshot of `conversation` at `now`. `flow` names the flow (default: the graph's
    /// ``RocketGraph/contentHash``; a host whose graph depends on where it runs, such as image
    /// paths resolved against a folder, passes the hash of the graph as written). `names` is the
    /// graph's ``BlockNames`` when the host keeps them (they cost a pass over the graph).
    public init(
        _ conversation: Conversation, at now: Double, flow: String? = nil, includeSecrets: Bool = false, names: BlockNames? = nil
    ) {
        format = "rocket-conversation"
        version = ConversationSnapshot.currentVersion
        self.flow = flow ?? conversation.graph.contentHash
        var state = conversation.state
        // A held auto-advance timer keeps the time it had left when it was held.
        let held = state.heldSince
        timers = state.timers.map { t in
            var from = now
            if let held, case .autoAdvance = t.action { from = held }
            return PendingTimer(remaining: max(0, t.deadline - from), sequence: t.sequence, action: t.action)
        }
        state.timers = []
        if !includeSecrets {
            for (key, answer) in state.answers where answer.isSecret {
                state.answers[key] = RocketAnswer(value: RocketTemplate.mask(answer.value), isSecret: true)  // a typed value too is left out
            }
        }
        includesSecrets = includeSecrets
        self.state = state
        self.names = names ?? BlockNames(conversation.graph)
    }

    /// What a snapshot's JSON may hold: its strings are texts the conversation rendered (at most
    /// ``RocketTemplate/maxRenderedBytes``) and answers, so a snapshot this release wrote is
    /// always read back.
    public static var readLimits: JSONReaderLimits {
        var limits = JSONReaderLimits()
        limits.maxStringBytes = max(limits.maxStringBytes, RocketTemplate.maxRenderedBytes)
        return limits
    }

    /// Reads the JSON form (version 2 or 1) of a conversation of the flow whose graph is `graph`.
    ///
    /// `identity` is the flow's identity when the host does not use the graph's own hash (as in
    /// ``init(_:at:flow:includeSecrets:names:)``).
    ///
    /// - Throws: ``Failure/otherFlow(expected:found:)`` for a snapshot of another flow (version
    ///   2; a version-1 snapshot is checked by ``restore(graph:author:closeButton:options:at:flow:timersAsSaved:)``),
    ///   ``Failure/unsupportedVersion(_:)``, or ``Failure/invalid(_:)`` naming the place.
    public init(jsonText bytes: [UInt8], graph: RocketGraph, identity: String? = nil, names: BlockNames? = nil) throws(Failure) {
        let tape: JSONTape
        do {
            tape = try JSONTape.parse(bytes, limits: Self.readLimits)
        } catch {
            throw .invalid(error.message)
        }
        try self.init(tape: tape, entry: 0, path: "", graph: graph, identity: identity, names: names)
    }

    /// Reads a snapshot at `entry` of a tape (the server's stored conversations hold one).
    package init(tape: JSONTape, entry: Int, path: String, graph: RocketGraph, identity: String?, names: BlockNames? = nil) throws(Failure) {
        let names = names ?? BlockNames(graph)
        guard tape.kind(entry) == .object else { throw .invalid("the snapshot must be a JSON object") }
        let format = tape.member(of: entry, "format").flatMap { tape.string($0) }
        guard format == "rocket-conversation" else {
            throw .invalid("\"format\" is \(format.map { "\"\($0)\"" } ?? "missing"), not \"rocket-conversation\"")
        }
        let version = tape.member(of: entry, "version").flatMap { tape.number($0) }
        switch version {
        case 1?:
            do {
                let v1 = try JSONCoding.decode(SnapshotVersion1.self, from: tape.node(entry).plainValue)
                self.init(
                    format: v1.format, version: 1, flow: v1.flow, state: v1.state, timers: v1.timers, includesSecrets: v1.includesSecrets,
                    names: names)
            } catch {
                throw .invalid(error.message)
            }
        case 2?:
            let found = tape.member(of: entry, "flow").flatMap { tape.string($0) } ?? ""
            let expected = identity ?? graph.contentHash
            guard found == expected else { throw .otherFlow(expected: expected, found: found) }
            do {
                self = try SnapshotReader(tape: tape, names: names).snapshot(entry, path: path)
            } catch {
                throw .invalid(error.message)
            }
        case let v?:
            throw .unsupportedVersion(v == v.rounded() && abs(v) < 1e9 ? Int(v) : -1)
        case nil:
            throw .invalid("\"version\" is missing")
        }
    }

    /// A snapshot from its parts.
    init(
        format: String, version: Int, flow: String, state: ConversationState, timers: [PendingTimer], includesSecrets: Bool, names: BlockNames
    ) {
        self.names = names
        self.format = format
        self.version = version
        self.flow = flow
        self.state = state
        self.timers = timers
        self.includesSecrets = includesSecrets
    }

    /// The JSON form (one line).
    public func jsonText() throws(JSONCoding.Failure) -> String {
        String(decoding: jsonBytes() + [0x0A], as: UTF8.self)
    }

    /// The conversation this snapshot describes, over `graph`, with its timers due relative to
    /// `now`.
    ///
    /// - Throws: ``Failure/otherFlow(expected:found:)`` when `graph` is not the snapshot's flow;
    ///   ``Failure/invalid(_:)`` when the state points outside the graph, or leaves the
    ///   conversation unable to go on (``Conversation/canMakeProgress``).
    ///
    /// `timersAsSaved`: every timer keeps the time it had left, even under instant timing (where
    /// a resumed timer is otherwise due at once): for a host that replays what happened after
    /// the snapshot, which needs the timers as they ran.
    public func restore(
        graph: RocketGraph, author: RocketAuthor, closeButton: RocketCloseButton?, options: ConversationOptions,
        at now: Double, flow identity: String? = nil, timersAsSaved: Bool = false
    ) throws(Failure) -> Conversation {
        let hash = identity ?? graph.contentHash
        guard hash == flow else { throw .otherFlow(expected: hash, found: flow) }
        guard state.shown.allSatisfy(graph.contains), state.flags.count == state.shown.count else {
            throw .invalid("the shown blocks do not fit the flow")
        }
        for item in state.transcript {
            if case .block(let index, let node, _) = item, !(graph.contains(node) && state.shown.indices.contains(index)) {
                throw .invalid("the transcript does not fit the flow")
            }
        }
        if let waiting = state.awaitingDecision, !state.shown.indices.contains(waiting) { throw .invalid("the pending input does not fit") }
        var restored = state
        if restored.heldSince != nil { restored.heldSince = now }
        // Resumed with instant timing (`--instant`), every timer is due at once, as a new one would be.
        let instant = options.timing.autoAdvanceScale == 0 && !timersAsSaved
        restored.timers = timers.map {
            ConversationState.Timer(
                deadline: now + (instant || !$0.remaining.isFinite ? 0 : min(max(0, $0.remaining), 1e9)),
                sequence: $0.sequence, action: $0.action)
        }
        for t in restored.timers {
            switch t.action {
            case .autoAdvance(let i), .advance(let i, _):
                guard restored.shown.indices.contains(i) else { throw .invalid("a timer does not fit the flow") }
                if case .advance(_, let to?) = t.action, !graph.contains(to) { throw .invalid("a timer does not fit the flow") }
            default: break
            }
        }
        let conversation = Conversation(graph: graph, author: author, closeButton: closeButton, options: options, state: restored)
        guard conversation.canMakeProgress else {
            throw .invalid("the conversation cannot go on: no block takes input and no timer is pending")
        }
        return conversation
    }
}

/// The version-1 form: the synthesized `Codable` shapes of this release's values, read only.
struct SnapshotVersion1: Decodable {
    var format: String
    var version: Int
    var flow: String
    var state: ConversationState
    var timers: [ConversationSnapshot.PendingTimer]
    var includesSecrets: Bool
}

extension RocketGraph {
    /// The SHA-256 of the graph's canonical JSON: the identity a snapshot checks on restore.
    public var contentHash: String {
        let text = (try? JSONCoding.encode(self).serialized(pretty: false)) ?? ""
        return SHA256.hex(Array(text.utf8))
    }
}
