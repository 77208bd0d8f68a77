public import RocketJSON
public import RocketConversation

extension RocketDismissReason {
    /// The reason as event records name it: `completed`, `closed` or `interrupted`.
    public var recordName: String {
        switch self {
        case .completed: return "completed"
        case .closedByUser: return "closed"
        case .dismissedByApp, .interrupted: return "interrupted"
        }
    }
}

extension RocketEvent {
    /// The event as a JSON record (what `rocket play --events` writes and `rocket serve` stores
    /// and streams), or nil for events that are not recorded. Records carry block tags, kinds,
    /// titles and validation rules, never typed text, so no answer and no secret is in one.
    ///
    /// ```swift
    /// RocketEvent.tapped(index: 0, id: "hi", automatic: false).record?.serialized(pretty: false)
    /// // {"event":"tapped","index":0,"id":"hi","automatic":false}
    /// ```
    public var record: JSONValue? {
        func id(_ s: String?) -> JSONValue { s.map { .string($0) } ?? .null }
        switch self {
        case .blockAdded(let index, let block):
            return .object([
                ("event", .string("blockAdded")), ("index", .number(Double(index))), ("id", id(block.id)),
                ("type", .string(block.kind.rawValue)),
            ])
        case .tapped(let index, let blockID, let automatic):
            return .object([("event", .string("tapped")), ("index", .number(Double(index))), ("id", id(blockID)), ("automatic", .bool(automatic))])
        case .buttonPressed(let index, let blockID, let side, let title):
            var o: [(String, JSONValue)] = [
                ("event", .string("buttonPressed")), ("index", .number(Double(index))), ("id", id(blockID)),
                ("title", .string(title)),
            ]
            if let side { o.append(("side", .string(side.rawValue))) }
            return .object(o)
        case .action(let name, let blockID):
            return .object([("event", .string("action")), ("name", .string(name)), ("id", id(blockID))])
        case .inputSubmitted(let index, let blockID, _):
            return .object([("event", .string("inputSubmitted")), ("index", .number(Double(index))), ("id", id(blockID))])
        case .inputRejected(let index, let blockID, let failure):
            let rule: String
            switch failure.rule {
            case .required: rule = "required"
            case .tooShort: rule = "minLength"
            case .tooLong: rule = "maxLength"
            case .pattern, .invalidPattern, .patternTooComplex: rule = "pattern"
            }
            return .object([("event", .string("inputRejected")), ("index", .number(Double(index))), ("id", id(blockID)), ("rule", .string(rule))])
        case .dismissed(let reason, let count, let blocks):
            return .object([
                ("event", .string("dismissed")), ("reason", .string(reason.recordName)), ("count", .number(Double(count))),
                ("ids", .array(blocks.map { id($0.id) })),
            ])
        case .replyShown, .didFinishClosing, .intentRefused:
            return nil
        }
    }
}
