import RocketConversation
import RocketFlow
import RocketJSON
import Synchronization

extension ConversationService {
    /// What tells starts of a flow apart, but for their time and id: starts with the same key
    /// make the same conversation, answer and records.
    struct StartKey: Equatable {
        let flowName: String
        let options: ConversationOptions
        /// The block it starts from (an experiment's variant), nil: the flow's first.
        let from: RocketNodeID?
        /// The variant its exposure record names (in an experiment), and the variant on its
        /// other records (``Context/variant``).
        let exposure: String?
        let variant: String?
        let language: String
    }

    /// What every start of one ``StartKey`` makes, whenever it starts and whatever its id. The
    /// engine is pure and takes the time as an input, and a start depends on its time only
    /// through its timers (which run from it) and the times written in its records and stored
    /// form: so the first start of a kind is made in full, and the ones after it write their id
    /// and time into what it made (docs/SERVER.md, "Starts of a kind").
    struct StartShape: Sendable {
        /// The messages its view was made with (the key names their language; the shape is used
        /// only with these very ones).
        let strings: SharedStrings
        let step: Int
        let version: Int
        let eventSeq: Int
        let storedVersion: Int
        let savesSteps: Bool
        /// Its first timer, in seconds after the start.
        let deadlineAfter: Double?
        /// The start's recorded events, in order, and the number of the first.
        let recorded: [RocketEvent]
        let firstSeq: Int
        /// Each recorded event's record after its time (``RocketEvent/writeRecordRest(into:variant:)``).
        let recordRests: [[UInt8]]
        /// The view after its id (``ConversationView/writeRest(flow:conversation:step:version:strings:cache:into:)``).
        let viewRest: [UInt8]
        /// Its stored form but for its time (nil when nothing is stored).
        let form: StoredConversation.StartForm?

        /// The shape of the start `e` (made at `now`, its change `pending`, its stored form
        /// `form`).
        init(_ e: Entry, recorded: [RocketEvent], at now: Double, form: StoredConversation.StartForm?) {
            strings = e.shared
            step = e.step
            version = e.version
            eventSeq = e.eventSeq
            storedVersion = e.storedVersion
            savesSteps = e.unsavedSteps != nil
            deadlineAfter = e.conversation.nextDeadline.map { $0 - now }
            self.recorded = recorded
            firstSeq = e.eventSeq - recorded.count + 1
            recordRests = recorded.map { event in
                var w = JSONBytes(capacity: 96)
                event.writeRecordRest(into: &w, variant: e.context.variant)
                return w.out
            }
            var w = JSONBytes(capacity: e.cache.bytes.count + 512)
            ConversationView.writeRest(
                flow: e.flow, conversation: e.conversation, step: e.step, version: e.version, strings: e.shared, cache: e.cache, into: &w)
            viewRest = w.out
            self.form = form
        }

        /// Its first timer for a start at `at`.
        func deadline(at: Double) -> Double? { deadlineAfter.map { at + $0 } }

        /// The view of start `id`.
        func view(_ id: String) -> [UInt8] {
            var w = JSONBytes(capacity: viewRest.count + 48)
            ConversationView.writeID(id, into: &w)
            w.raw(viewRest)
            return w.out
        }

        /// The records of a start at `at`, as ``ConversationService/records(_:variant:)`` makes them.
        func records(at: Double) -> Records? {
            guard !recordRests.isEmpty else { return nil }
            var w = JSONBytes(capacity: recordRests.reduce(0) { $0 + $1.count + 32 })
            for (k, rest) in recordRests.enumerated() {
                if k > 0 { w.out.append(0x0A) }
                RocketEvent.writeRecordHead(into: &w, at: at)
                w.raw(rest)
            }
            return (firstSeq, at, String(decoding: w.out, as: UTF8.self))
        }

        /// The stored form of a start at `at` (its version, time and text), nil when nothing is stored.
        func prepared(at: Double) -> (version: Int, at: Double, text: String)? {
            form.map { (version, at, StoredConversation.startText($0, at: at)) }
        }
    }
}

/// The start shapes of one loaded flow, by key: at most ``limit`` of them (a flow is started
/// with few kinds of options; a kind past the limit is made in full each time). A list looked
/// through in order: with the few kinds a flow has, comparing keys costs less than hashing one.
final class StartShapes: Sendable {
    private let shapes = Mutex<[(key: ConversationService.StartKey, shape: ConversationService.StartShape)]>([])
    /// The most kinds kept per flow.
    static let limit = 32

    /// The shape of `key`'s starts with `strings`, if one was made.
    func shape(_ key: ConversationService.StartKey, strings: ConversationService.SharedStrings) -> ConversationService.StartShape? {
        guard let shape = shapes.withLock({ $0.first { $0.key == key }?.shape }), shape.strings === strings else { return nil }
        return shape
    }

    /// Keeps `shape` for `key`'s starts (unless ``limit`` kinds are kept already).
    func keep(_ shape: ConversationService.StartShape, for key: ConversationService.StartKey) {
        shapes.withLock { all in
            if let k = all.firstIndex(where: { $0.key == key }) {
                all[k].shape = shape
            } else if all.count < Self.limit {
                all.append((key, shape))
            }
        }
    }

    /// How many kinds are kept (for tests).
    var count: Int { shapes.withLock { $0.count } }
}
