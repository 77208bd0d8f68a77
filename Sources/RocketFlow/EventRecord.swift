package import RocketJSON
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
    /// True for an exposure record (which names its variant itself).
    var isExposure: Bool {
        if case .exposure = self { return true }
        return false
    }

    /// True when the event has a record (``recordText`` is not nil).
    public var isRecorded: Bool {
        switch self {
        case .replyShown, .didFinishClosing, .intentRefused: return false
        case .blockAdded, .tapped, .buttonPressed, .action, .inputSubmitted, .inputRejected, .dismissed: return true
        case .variableSet, .conditionTaken, .expressionError, .wentBack, .jumped, .exposure, .started: return true
        }
    }

    /// The event as a JSON record (what `rocket play --events` writes and `rocket serve` stores
    /// and streams), or nil for events that are not recorded. Records carry block tags, kinds,
    /// validation rules and what was chosen (the places and titles of buttons, options and
    /// ratings), never typed text, so no typed answer and no secret is in one. The
    /// text is made by ``writeRecord(into:at:)``, the record's one definition.
    ///
    /// ```swift
    /// RocketEvent.tapped(index: 0, id: "hi", automatic: false).recordText
    /// // {"event":"tapped","index":0,"id":"hi","automatic":false}
    /// RocketEvent.buttonPressed(index: 2, id: "color", side: nil, title: "Red, Blue", options: [0, 2], titles: ["Red", "Blue"]).recordText
    /// // {"event":"buttonPressed","index":2,"id":"color","title":"Red, Blue","options":[0,2],"titles":["Red","Blue"]}
    /// ```
    public var recordText: String? {
        var w = JSONBytes(capacity: 128)
        guard writeRecord(into: &w) else { return nil }
        return String(decoding: w.out, as: UTF8.self)
    }

    /// Writes the record (``recordText``) as JSON into `w`, with `"at"` first when given; false (and
    /// nothing written) for an event that is not recorded. The one definition of the record's
    /// form: the server writes records with it directly, without a ``JSONValue`` between.
    @discardableResult
    package func writeRecord(into w: inout JSONBytes, at: Double? = nil, variant: String? = nil) -> Bool {
        guard isRecorded else { return false }
        Self.writeRecordHead(into: &w, at: at)
        writeRecordRest(into: &w, variant: variant)
        return true
    }

    /// A record's opening, the same for every event: `{"at":TIME,"event":` (`{"event":` without a
    /// time). ``writeRecord(into:at:variant:)`` is this, then ``writeRecordRest(into:variant:)``.
    package static func writeRecordHead(into w: inout JSONBytes, at: Double?) {
        w.open()
        if let at {
            w.key("at", first: true)
            w.number(at, fractionDigits: 6)
            w.key("event")
        } else {
            w.key("event", first: true)
        }
    }

    /// The rest of a recorded event's record after its head (``writeRecordHead(into:at:)``): its
    /// name, its fields, the variant and the closing brace, which no time changes.
    package func writeRecordRest(into w: inout JSONBytes, variant: String?) {
        func id(_ s: String?) {
            w.key("id")
            if let s { w.string(s) } else { w.null() }
        }
        switch self {
        case .blockAdded(let index, let block):
            w.string("blockAdded")
            w.key("index")
            w.number(index)
            id(block.id)
            w.key("type")
            w.string(block.kind.rawValue)
            if let scale = block.scale {
                w.key("scale")
                w.numbers([scale.lowerBound, scale.upperBound])
            }
        case .tapped(let index, let blockID, let automatic):
            w.string("tapped")
            w.key("index")
            w.number(index)
            id(blockID)
            w.key("automatic")
            w.bool(automatic)
        case .buttonPressed(let index, let blockID, let side, let title, let options, let titles):
            w.string("buttonPressed")
            w.key("index")
            w.number(index)
            id(blockID)
            w.key("title")
            w.string(title)
            if let side {
                w.key("side")
                w.string(side.rawValue)
            }
            // What was chosen, by place, for reports; titles apart only when `title` joins several.
            if !options.isEmpty {
                w.key("options")
                w.numbers(options)
            }
            if options.count > 1, titles.count == options.count {
                w.key("titles")
                w.strings(titles)
            }
        case .action(let name, let blockID):
            w.string("action")
            w.key("name")
            w.string(name)
            id(blockID)
        case .inputSubmitted(let index, let blockID, _):
            w.string("inputSubmitted")
            w.key("index")
            w.number(index)
            id(blockID)
        case .inputRejected(let index, let blockID, let failure):
            w.string("inputRejected")
            w.key("index")
            w.number(index)
            id(blockID)
            w.key("rule")
            switch failure.rule {
            case .required: w.string("required")
            case .tooShort: w.string("minLength")
            case .tooLong: w.string("maxLength")
            case .pattern, .invalidPattern, .patternTooComplex: w.string("pattern")
            case .wrongType: w.string("inputType")
            case .tooSmall: w.string("min")
            case .tooLarge: w.string("max")
            case .tooFewChosen: w.string("min")
            case .tooManyChosen: w.string("max")
            }
        case .dismissed(let reason, let count, let blocks):
            w.string("dismissed")
            w.key("reason")
            w.string(reason.recordName)
            w.key("count")
            w.number(count)
            w.key("ids")
            w.openArray()
            for (k, b) in blocks.enumerated() {
                if k > 0 { w.comma() }
                if let s = b.id { w.string(s) } else { w.null() }
            }
            w.closeArray()
        case .exposure(let experiment, let variant, let shown, let flow):
            w.string("exposure")
            w.key("flow")
            w.string(flow)
            w.key("experiment")
            w.string(experiment)
            w.key("variant")
            w.string(variant)
            w.key("shown")
            w.bool(shown)
        case .started(let flow, let version):
            w.string("started")
            w.key("flow")
            w.string(flow)
            if let version {
                w.key("version")
                w.string(version)
            }
        case .jumped(let blockID, let to, let flow):
            w.string("jumped")
            id(blockID)
            w.key("to")
            if let to { w.string(to) } else { w.null() }
            if let flow {
                w.key("flow")
                w.string(flow)
            }
        case .wentBack(let index, let blockID):
            w.string("wentBack")
            w.key("index")
            w.number(index)
            id(blockID)
        case .variableSet(let name, let blockID):
            w.string("variableSet")
            id(blockID)
            w.key("name")
            w.string(name)
        case .conditionTaken(let blockID, let branch):
            w.string("conditionTaken")
            id(blockID)
            w.key("branch")
            if let branch { w.number(branch) } else { w.string("else") }
        case .expressionError(let blockID, let path, let error):
            // The message names kinds of values, never values (see RocketExpression).
            w.string("expressionError")
            id(blockID)
            w.key("path")
            w.string(path)
            w.key("code")
            w.string(error.code)
            w.key("message")
            w.string(error.message)
        case .replyShown, .didFinishClosing, .intentRefused:
            break  // not recorded (see isRecorded)
        }
        // The experiment's variant the conversation is in, on every record of it.
        if let variant, !isExposure {
            w.key("variant")
            w.string(variant)
        }
        w.close()
    }
}
