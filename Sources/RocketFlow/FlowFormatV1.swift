import RocketJSON
import RocketConversation
import RocketCore
import RocketScenarioEngine

// MARK: Field constructors

extension FlowField {
    /// A string (by default one a user sees); optional ones are `""` when absent.
    static func text(
        _ name: String, _ kp: any WritableKeyPath<Root, String> & Sendable, required: Bool = true, type: FlowValueType = .text,
        shownBy: FlowSurfaces = .all, role: FlowFieldRole? = nil, doc: String
    ) -> FlowField {
        FlowField(
            name, type, required: required, shownBy: shownBy, role: role, doc: doc,
            decode: { d, v, place, root in
                if !required, d.tape.kind(v) == .null { return true }
                guard let s = type == .text ? d.readText(v, place.path) : d.readString(v, place.path) else { return false }
                root[keyPath: kp] = s
                return true
            }, value: { root, _ in .string(root[keyPath: kp]) })
    }

    /// A string that may be absent (null is absent).
    static func optionalText(
        _ name: String, _ kp: any WritableKeyPath<Root, String?> & Sendable, type: FlowValueType = .text, shownBy: FlowSurfaces = .all,
        role: FlowFieldRole? = nil, doc: String
    ) -> FlowField {
        FlowField(
            name, type, shownBy: shownBy, role: role, doc: doc,
            decode: { d, v, place, root in
                if d.tape.kind(v) == .null { return true }
                guard let s = type == .text ? d.readText(v, place.path) : d.readString(v, place.path) else { return false }
                root[keyPath: kp] = s
                return true
            }, value: { root, _ in root[keyPath: kp].map { .string($0) } })
    }

    /// `true` or `false`.
    static func bool(
        _ name: String, _ kp: any WritableKeyPath<Root, Bool> & Sendable, shownBy: FlowSurfaces = .all, role: FlowFieldRole? = nil, doc: String
    ) -> FlowField {
        FlowField(
            name, .bool, shownBy: shownBy, role: role, doc: doc,
            decode: { d, v, place, root in
                guard let b = d.readBool(v, place.path) else { return false }
                root[keyPath: kp] = b
                return true
            }, value: { root, _ in .bool(root[keyPath: kp]) })
    }

    /// A number in `min...max` (null is absent).
    static func number(
        _ name: String, _ kp: any WritableKeyPath<Root, Double> & Sendable, min: Double, max: Double, shownBy: FlowSurfaces = .all, doc: String
    ) -> FlowField {
        FlowField(
            name, .number(min: min, max: max), shownBy: shownBy, doc: doc,
            decode: { d, v, place, root in
                if d.tape.kind(v) == .null { return true }
                guard let n = d.readNumber(v, place.path, min: min, max: max) else { return false }
                root[keyPath: kp] = n
                return true
            }, value: { root, _ in .number(root[keyPath: kp]) })
    }

    /// A whole number in `min...max` that may be absent.
    static func integer(
        _ name: String, _ kp: any WritableKeyPath<Root, Int?> & Sendable, min: Int, max: Int = 1_000_000_000, doc: String
    ) -> FlowField {
        FlowField(
            name, .integer(min: min, max: max), doc: doc,
            decode: { d, v, place, root in
                if d.tape.kind(v) == .null { return true }
                guard let n = d.readInteger(v, place.path, min: min, max: max) else { return false }
                root[keyPath: kp] = n
                return true
            }, value: { root, _ in root[keyPath: kp].map { .number(Double($0)) } })
    }

    /// Seconds or a duration string, absent by default.
    static func duration(_ name: String, _ kp: any WritableKeyPath<Root, Double?> & Sendable, doc: String) -> FlowField {
        FlowField(
            name, .duration, doc: doc,
            decode: { d, v, place, root in
                if d.tape.kind(v) == .null { return true }
                guard let s = d.readDuration(v, place.path) else { return false }
                root[keyPath: kp] = s
                return true
            }, value: { root, _ in root[keyPath: kp].map { .number($0) } })
    }

    /// An expression (compiled when read; lint reports its errors with their place inside it).
    static func expression(_ name: String, _ kp: any WritableKeyPath<Root, RocketExpression> & Sendable, doc: String) -> FlowField {
        FlowField(
            name, .expression, required: true, doc: doc,
            decode: { d, v, place, root in
                guard let s = d.readString(v, place.path) else { return false }
                root[keyPath: kp] = RocketExpression(s)
                return true
            }, value: { root, _ in .string(root[keyPath: kp].source) })
    }

    /// A number, a `YYYY-MM-DD` day, a day counted from `today` or an `HH:MM` time that may be
    /// absent (lint checks that it fits the input).
    static func bound(_ name: String, _ kp: any WritableKeyPath<Root, RocketValue?> & Sendable, doc: String) -> FlowField {
        FlowField(
            name, .inputBound, doc: doc,
            decode: { d, v, place, root in
                switch d.tape.kind(v) {
                case .null: return true
                case .number:
                    guard let n = d.readNumber(v, place.path, min: nil, max: RocketInputType.largestBound) else { return false }
                    root[keyPath: kp] = .number(n)
                    return true
                case .string:
                    let s = d.tape.string(v)!
                    guard RocketInputType.isDate(s) || RocketInputType.isTime(s) || RocketInputType.relativeDay(s) != nil else {
                        d.error(
                            "bad-value",
                            "\"\(name)\" must be a number, a date as YYYY-MM-DD or counted from today (today, today+7d, today-18y: d, w, m or y), or a time as HH:MM, not \(FlowDiagnostic.quoted(s))",
                            path: place.path, at: d.tape.offset(v))
                        return false
                    }
                    root[keyPath: kp] = .text(s)
                    return true
                default:
                    d.error(
                        "wrong-type", "\"\(name)\" must be a number, a date as YYYY-MM-DD or a time as HH:MM, not \(d.tape.typeName(v))",
                        path: place.path, at: d.tape.offset(v))
                    return false
                }
            }, value: { root, _ in root[keyPath: kp]?.json })
    }

    /// A font preset name or a font object.
    static func font(_ name: String, _ kp: any WritableKeyPath<Root, RocketFont> & Sendable, doc: String) -> FlowField {
        FlowField(
            name, .font, doc: doc,
            decode: { d, v, place, root in
                if d.tape.kind(v) == .null { return true }
                guard let f = d.readFont(v, place.path) else { return false }
                root[keyPath: kp] = f
                return true
            }, value: { root, e in FlowFormat.fontValue(root[keyPath: kp], e) })
    }

    /// One of an enumeration's words.
    static func words<E: RawRepresentable & CaseIterable & Sendable>(
        _ name: String, _ kp: any WritableKeyPath<Root, E> & Sendable, shownBy: FlowSurfaces = .all, doc: String
    ) -> FlowField where E.RawValue == String {
        FlowField(
            name, .words(E.allCases.map(\.rawValue)), shownBy: shownBy, doc: doc,
            decode: { d, v, place, root in
                if d.tape.kind(v) == .null { return true }
                guard let e = d.readWord(v, place.path, E.self) else { return false }
                root[keyPath: kp] = e
                return true
            }, value: { root, _ in .string(root[keyPath: kp].rawValue) })
    }

    /// ``words(_:_:shownBy:doc:)`` for a value that may be absent.
    static func optionalWords<E: RawRepresentable & CaseIterable & Sendable>(
        _ name: String, _ kp: any WritableKeyPath<Root, E?> & Sendable, doc: String
    ) -> FlowField where E.RawValue == String {
        FlowField(
            name, .words(E.allCases.map(\.rawValue)), doc: doc,
            decode: { d, v, place, root in
                if d.tape.kind(v) == .null { return true }
                guard let e = d.readWord(v, place.path, E.self) else { return false }
                root[keyPath: kp] = e
                return true
            }, value: { root, _ in root[keyPath: kp].map { .string($0.rawValue) } })
    }

    /// The id of another block; absent or null ends the conversation.
    static func reference(_ name: String, _ kp: any WritableKeyPath<Root, RocketNodeID?> & Sendable, doc: String) -> FlowField {
        FlowField(
            name, .blockID, doc: doc,
            decode: { d, v, place, root in
                if d.tape.kind(v) == .null { return true }
                guard let s = d.readString(v, place.path) else { return false }
                root[keyPath: kp] = d.resolve(s, at: v, path: place.path)
                return true
            }, value: { root, e in e.name(root[keyPath: kp]).map { .string($0) } })
    }

    /// A picture: a file relative to the flow file, or a `data:` URI.
    static func image(_ name: String, _ kp: any WritableKeyPath<Root, RocketImage> & Sendable, doc: String) -> FlowField {
        FlowField(
            name, .image, required: true, doc: doc,
            decode: { d, v, place, root in
                guard let s = d.readString(v, place.path) else { return false }
                root[keyPath: kp] = RocketImage(reference: s)
                return true
            }, value: { root, _ in .string(root[keyPath: kp].reference) }, view: { root, _ in .image(root[keyPath: kp]) })
    }

    /// A picture that may be absent.
    static func optionalImage(_ name: String, _ kp: any WritableKeyPath<Root, RocketImage?> & Sendable, doc: String) -> FlowField {
        FlowField(
            name, .image, doc: doc,
            decode: { d, v, place, root in
                if d.tape.kind(v) == .null { return true }
                guard let s = d.readString(v, place.path) else { return false }
                root[keyPath: kp] = RocketImage(reference: s)
                return true
            }, value: { root, _ in root[keyPath: kp].map { .string($0.reference) } }, view: { root, _ in root[keyPath: kp].map { .image($0) } })
    }

    /// A nested object that must be given.
    static func object<Sub: Sendable>(
        _ name: String, _ kp: any WritableKeyPath<Root, Sub> & Sendable, _ object: FlowObject<Sub>, doc: String
    ) -> FlowField {
        FlowField(
            name, .object(object.name), required: true, doc: doc,
            decode: { d, v, place, root in
                guard let sub = d.decodeObject(v, path: place.path, object, what: "\"\(name)\"") else { return false }
                root[keyPath: kp] = sub
                return true
            }, value: { root, e in .object(object.members(root[keyPath: kp], e)) },
            view: { root, surface in .object(object.view(root[keyPath: kp], for: surface)) })
    }

    /// A nested object that may be absent.
    static func optionalObject<Sub: Sendable>(
        _ name: String, _ kp: any WritableKeyPath<Root, Sub?> & Sendable, _ object: FlowObject<Sub>, doc: String
    ) -> FlowField {
        FlowField(
            name, .object(object.name), doc: doc,
            decode: { d, v, place, root in
                guard let sub = d.decodeObject(v, path: place.path, object, what: "\"\(name)\"") else { return false }
                root[keyPath: kp] = sub
                return true
            }, value: { root, e in root[keyPath: kp].map { .object(object.members($0, e)) } },
            view: { root, surface in root[keyPath: kp].map { .object(object.view($0, for: surface)) } })
    }

    /// An array of objects, `min...max` long; `item` names one in messages ("an option").
    static func list<Sub: Sendable>(
        _ name: String, _ kp: any WritableKeyPath<Root, [Sub]> & Sendable, _ object: FlowObject<Sub>, item: String,
        required: Bool = false, min: Int = 0, max: Int? = nil, tooFew: String = "", tooMany: @escaping @Sendable (Int) -> String = { _ in "" },
        doc: String
    ) -> FlowField {
        FlowField(
            name, .list(.object(object.name), min: min, max: max), required: required, doc: doc,
            decode: { d, v, place, root in
                guard d.tape.kind(v) == .array else {
                    d.error("wrong-type", "\"\(name)\" must be an array, not \(d.tape.typeName(v))", path: place.path, at: d.tape.offset(v))
                    return false
                }
                let n = d.tape.count(v)
                var items: [Sub] = []
                items.reserveCapacity(n)
                var ok = true
                let path = place.path
                var j = v + 1
                for i in 0..<n {
                    if let sub = d.decodeObject(j, path: path.item(i), object, what: item) { items.append(sub) } else { ok = false }
                    j = d.tape.next(after: j)
                }
                if n < min {
                    d.error("too-few-options", tooFew, path: place.path, at: d.tape.offset(v))
                    ok = false
                } else if let max, n > max {
                    d.error("too-many-options", tooMany(n), path: place.path, at: d.tape.offset(v))
                    ok = false
                }
                root[keyPath: kp] = items
                return ok
            }, value: { root, e in .array(root[keyPath: kp].map { .object(object.members($0, e)) }) },
            view: { root, surface in .list(root[keyPath: kp].map { .object(object.view($0, for: surface)) }) })
    }
}

// MARK: The table

extension FlowFormat {
    /// A font as written: its preset name, or the object of its size, weight, colour and family.
    static func fontValue(_ font: RocketFont, _ e: FlowEncoding) -> JSONValue {
        if let name = font.presetName { return .string(name) }
        return .object(fontObject.members(font, e))
    }

    /// A custom font.
    static let fontObject = FlowObject<RocketFont>(
        "fontObject", doc: "A custom font: size, weight, colour and family.",
        blank: RocketFont(size: 16, weight: .regular, color: .black),
        fields: [
            .number("size", \.font.size, min: 1, max: 1_000_000_000, doc: "The size in points."),
            .words("weight", \.font.weight, doc: "The weight; semibold and heavier are drawn bold in the terminal."),
            FlowField(
                "color", .color, doc: "The colour, #RGB or #RRGGBB.",
                decode: { d, v, place, root in
                    if d.tape.kind(v) == .null { return true }
                    guard let hex = d.readString(v, place.path) else { return false }
                    guard let c = RocketColor(hex: hex) else {
                        d.error("bad-color", "\"color\" must be #RGB or #RRGGBB, not \(FlowDiagnostic.quoted(hex))", path: place.path, at: d.tape.offset(v))
                        return false
                    }
                    root.color = c
                    return true
                }, value: { root, _ in .string(root.color.hexString) }),
            .optionalText("family", \.font.family, type: .string(minLength: 0), shownBy: .web, doc: "A font family; the terminal draws its own."),
        ])

    /// A button: of a `button` block, a side of a `doubleButton`, an option of a `choice`.
    static let button = FlowObject<RocketButtonNode>(
        "button", doc: "A button: its title, where it leads, and the action it reports.",
        blank: RocketButtonNode(title: ""),
        fields: [
            .text("title", \.title, doc: "The title; its press is the block's answer."),
            .reference("next", \.next, doc: "The block shown after the press; absent ends the conversation."),
            .optionalText(
                "action", \.actionName, type: .string(minLength: 0), role: .logic,
                doc: "A named action reported when it is pressed (`--on-action`, the API's events)."),
            .font("font", \.font, doc: "The title's style."),
            .optionalImage(
                "image", \.image,
                doc: "A picture above the title (PNG or JPEG beside the flow, or a data: URI): a picture choice in the browser;"
                    + " in a terminal with colour, the focused one's picture is drawn under the buttons or options."),
            FlowField(
                "link", .link, doc: "A page the press opens: the browser opens it in a new tab, the terminal prints it (the press is the answer as any other).",
                decode: { d, v, place, root in
                    if d.tape.kind(v) == .null { return true }
                    guard let url = d.readString(v, place.path) else { return false }
                    guard RocketButtonNode.isLink(url) else {
                        d.error(
                            "bad-link",
                            "\"link\" must be an http:// or https:// URL with a host, at most 2,048 bytes, without spaces, quotes or angle brackets, not \(FlowDiagnostic.quoted(url))",
                            path: place.path, at: d.tape.offset(v))
                        return false
                    }
                    root.link = url
                    return true
                }, value: { root, _ in root.link.map { .string($0) } }),
            FlowField(
                "selected", .bool, role: .logic,
                doc: "An option of a multiple choice that starts ticked (the person may untick it); only in a multiple choice.",
                decode: { d, v, place, root in
                    guard let b = d.readBool(v, place.path) else { return false }
                    root.selected = b ? true : nil
                    return true
                }, value: { root, _ in root.selected == true ? .bool(true) : nil }),
            FlowField(
                "snooze", .snooze, shownBy: [],
                doc:
                    "Pressing it keeps the flow from being shown again to this person for this long (\"Remind me later\": `\"7d\"`), or `\"forever\"` (\"No thanks\"); the press is the answer as any other.",
                decode: { d, v, place, root in
                    let text: String
                    switch d.tape.kind(v) {
                    case .null: return true
                    case .number: text = d.tape.number(v).map { $0 == $0.rounded() && abs($0) < 1e15 ? String(Int($0)) : String($0) } ?? ""
                    case .string: text = d.tape.string(v) ?? ""
                    default:
                        d.error(
                            "wrong-type", "\"snooze\" must be a duration or \"forever\", not \(d.tape.typeName(v))", path: place.path, at: d.tape.offset(v))
                        return false
                    }
                    guard RocketButtonNode.snoozeSeconds(text) != nil else {
                        d.error(
                            "bad-value",
                            "\"snooze\" must be \"forever\" or \(RocketDuration.syntax), of at least 1 second, not \(FlowDiagnostic.quoted(text))",
                            path: place.path, at: d.tape.offset(v))
                        return false
                    }
                    root.snooze = text
                    return true
                }, value: { root, _ in root.snooze.map { s in Double(s).map { .number($0) } ?? .string(s) } }),
        ])

    /// The rules a typed answer must meet.
    static let validate = FlowObject<RocketInputValidation>(
        "validate", doc: "Rules a typed answer must meet; a failure keeps the block active and says why.",
        blank: RocketInputValidation(),
        fields: [
            .bool("required", \.required, doc: "Refuse empty or white-space-only text."),
            .integer("minLength", \.minLength, min: 0, doc: "The fewest characters."),
            .integer("maxLength", \.maxLength, min: 1, doc: "The most characters."),
            .optionalText("pattern", \.pattern, type: .pattern, doc: "A regular expression the text must contain a match of (anchor it with ^…$)."),
            .optionalText(
                "message", \.message, role: .logic,
                doc: "Shown for any failure, instead of the built-in message in the user's language."),
        ])

    /// A branch's condition: exactly one of three tests.
    static let condition = FlowObjectInfo(
        name: "textCondition", doc: "Exactly one test of the typed text.",
        fields: [
            FlowFieldInfo(name: "equals", type: .string(minLength: 0), isRequired: false, defaultValue: nil, shownBy: .all, doc: "The text is exactly this."),
            FlowFieldInfo(
                name: "matches", type: .pattern, isRequired: false, defaultValue: nil, shownBy: .all,
                doc: "The text contains a match of this regular expression."),
            FlowFieldInfo(name: "empty", type: .alwaysTrue, isRequired: false, defaultValue: nil, shownBy: .all, doc: "The text is empty or white space."),
        ], exactlyOne: true)

    /// A branch of a `textInput` block.
    static let branch = FlowObject<RocketNodeBranch>(
        "branch", doc: "Where a typed answer leads when its condition holds; branches are tried in order.",
        blank: RocketNodeBranch(when: .empty, next: nil),
        fields: [
            FlowField(
                "when", .object("textCondition"), required: true, doc: "The condition.",
                decode: { d, v, place, root in
                    guard let c = d.readCondition(v, place.path) else { return false }
                    root.condition = c
                    return true
                },
                value: { root, _ in
                    switch root.condition {
                    case .equals(let s): return .object([("equals", .string(s))])
                    case .pattern(let p): return .object([("matches", .string(p))])
                    case .empty: return .object([("empty", .bool(true))])
                    }
                }),
            .reference("next", \.next, doc: "Where it goes; absent ends the conversation."),
        ])

    /// A `text` block's fields.
    static let textBlock = FlowObject<RocketTextNode>(
        "text", doc: "", blank: RocketTextNode(text: ""),
        fields: [
            .text("text", \.text, doc: "The text."),
            .reference("next", \.next, doc: "The block after it; absent ends the conversation."),
            .duration("showNextAfter", \.showNextAfter, doc: "Go on by itself after this long (then it cannot be tapped)."),
            .font("font", \.font, doc: "The text's style."),
        ])

    /// A branch of a `condition` block.
    static let conditionBranch = FlowObject<RocketConditionBranch>(
        "conditionBranch", doc: "Where a `condition` block goes when its expression is true; branches are tried in order.",
        blank: RocketConditionBranch(if: RocketExpression("true"), next: nil),
        fields: [
            .expression("if", \.condition, doc: "The condition: an expression that is true or false."),
            .reference("next", \.next, doc: "Where it goes; absent ends the conversation."),
        ])

    /// A variant of an experiment.
    static let experimentVariant = FlowObject<RocketExperimentVariant>(
        "experimentVariant", doc: "A variant: its name, its share by weight, and the block it starts at.",
        blank: RocketExperimentVariant(name: ""),
        fields: [
            .text("name", \.name, type: .string(minLength: 1), role: .logic, doc: "Its name in reports and event records (not `holdout`)."),
            .number("weight", \.weight, min: 0.000001, max: 1_000_000, shownBy: [], doc: "Its share, relative to the others' weights."),
            .reference("start", \.start, doc: "The block it starts at; default: the flow's start."),
        ])

    /// An experiment.
    static let experimentObject = FlowObject<RocketExperiment>(
        "experiment",
        doc:
            "Each visitor is assigned, by a hash of the experiment's name and the visitor's id, to the holdout (shown nothing) or to a variant (docs/FLOW_FORMAT.md, \"Experiments\").",
        blank: RocketExperiment(name: "", variants: []),
        fields: [
            .text("name", \.name, type: .string(minLength: 1), role: .logic, doc: "The experiment's name; it salts the assignment."),
            .list(
                "variants", \.variants, experimentVariant, item: "a variant", required: true, min: 1, max: 16,
                tooFew: "an experiment needs at least one variant", tooMany: { "an experiment has at most 16 variants, not \($0)" },
                doc: "The variants, 1 to 16."),
            .number("holdout", \.holdout, min: 0, max: 0.99, shownBy: [], doc: "The share of visitors shown nothing (0 to 0.99)."),
        ])

    /// A time of day of quiet hours: `HH:MM`.
    static func clockTime(_ name: String, _ kp: any WritableKeyPath<RocketQuietHours, String> & Sendable, doc: String) -> FlowField<RocketQuietHours> {
        FlowField(
            name, .string(minLength: 5), required: true, shownBy: [], doc: doc,
            decode: { d, v, place, root in
                guard let s = d.readString(v, place.path) else { return false }
                guard RocketQuietHours.minutes(s) != nil else {
                    d.error(
                        "bad-value", "\(FlowDiagnostic.quoted(s)) is not a time of day like \"22:00\" (HH:MM, 00:00 to 23:59)", path: place.path,
                        at: d.tape.offset(v))
                    return false
                }
                root[keyPath: kp] = s
                return true
            }, value: { root, _ in .string(root[keyPath: kp]) })
    }

    /// Quiet hours.
    static let quietHoursObject = FlowObject<RocketQuietHours>(
        "quietHours", doc: "A daily window of local time in which the flow is not shown; one that ends before it begins runs past midnight.",
        blank: RocketQuietHours(from: "00:00", to: "00:00"),
        fields: [
            clockTime("from", \.from, doc: "Where it begins, HH:MM."),
            clockTime("to", \.to, doc: "Where it ends (not included), HH:MM."),
        ])

    /// A moment of a schedule, with its offset from UTC.
    static func moment(_ name: String, _ kp: any WritableKeyPath<RocketSchedule, String?> & Sendable, doc: String) -> FlowField<RocketSchedule> {
        FlowField(
            name, .instant, shownBy: [], doc: doc,
            decode: { d, v, place, root in
                if d.tape.kind(v) == .null { return true }
                guard let s = d.readString(v, place.path) else { return false }
                guard RocketSchedule.instant(s) != nil else {
                    let hint =
                        WallTime.parse(s) != nil || RocketQuietHours.minutes(String(s.suffix(5))) != nil
                        ? "; add its offset from UTC: \"Z\" or \"+01:00\"" : ""
                    d.error(
                        "bad-value",
                        "\(FlowDiagnostic.quoted(s)) is not a moment like \"2026-12-10T09:00+01:00\" (a day, a time and the offset from UTC)\(hint)",
                        path: place.path, at: d.tape.offset(v))
                    return false
                }
                root[keyPath: kp] = s
                return true
            }, value: { root, _ in root[keyPath: kp].map { .string($0) } })
    }

    /// A schedule.
    static let scheduleObject = FlowObject<RocketSchedule>(
        "schedule", doc: "When the flow may be shown at all, as a campaign runs between two dates; either end may be left open.",
        blank: RocketSchedule(),
        fields: [
            moment("from", \.from, doc: "The first moment it may be shown."),
            moment("until", \.until, doc: "The moment it stops being shown (not included)."),
        ])

    /// The words under a rating's ends.
    static let ratingLabels = FlowObject<RocketRatingLabels>(
        "ratingLabels", doc: "Words under the ends of a rating's scale.", blank: RocketRatingLabels(),
        fields: [
            .optionalText("low", \.low, doc: "Under the bottom of the scale (\"Poor\")."),
            .optionalText("high", \.high, doc: "Under the top of the scale (\"Great\")."),
        ])

    /// The `text` kind over a table of its fields (tests pass one with a field more).
    static func textKind(_ object: FlowObject<RocketTextNode>) -> FlowBlockKind {
        FlowBlockKind(
            .text, doc: "A text bubble: tap to go on, or it goes on by itself after `showNextAfter`.", object: object,
            wrap: { .text($0) }, unwrap: { if case .text(let t) = $0 { t } else { nil } })
    }

    /// The most options a choice block may have.
    static let maxChoiceOptions = RocketLimits.choiceOptions

    /// The block kinds of version 1.
    static let blockKinds: [FlowBlockKind] = [
        textKind(textBlock),
        FlowBlockKind(
            .image, doc: "A picture with optional text under it; a text block in every other way.",
            object: FlowObject(
                "image", doc: "", blank: RocketImageNode(image: .file("")),
                fields: [
                    .image("image", \.image, doc: "A PNG or JPEG file relative to the flow file, or a data: URI."),
                    .text("text", \.text, required: false, doc: "Text under the picture; screen readers hear it once, as the picture's text alternative."),
                    .reference("next", \.next, doc: "The block after it; absent ends the conversation."),
                    .duration("showNextAfter", \.showNextAfter, doc: "Go on by itself after this long."),
                    .font("font", \.font, doc: "The text's style."),
                    .words("imageStyle", \.imageStyle, doc: "The picture's corners."),
                    .number("paddingLeft", \.paddingLeft, min: 0, max: Double(RocketLimits.paddingPoints), doc: "Inset on the left, in points."),
                    .number("paddingRight", \.paddingRight, min: 0, max: Double(RocketLimits.paddingPoints), doc: "Inset on the right, in points."),
                ]),
            wrap: { .image($0) }, unwrap: { if case .image(let i) = $0 { i } else { nil } }),
        FlowBlockKind(
            .button, doc: "A button: pressing it reports its `action` at once, then shows `next`.",
            object: button, wrap: { .button($0) }, unwrap: { if case .button(let b) = $0 { b } else { nil } }),
        FlowBlockKind(
            .doubleButton, doc: "Two buttons side by side; the first press disables both.",
            object: FlowObject(
                "doubleButton", doc: "", blank: ButtonPair(),
                fields: [
                    .object("left", \.left, button, doc: "The left button."),
                    .object("right", \.right, button, doc: "The right button."),
                ]),
            wrap: { .doubleButton(left: $0.left, right: $0.right) },
            unwrap: { if case .doubleButton(let l, let r) = $0 { ButtonPair(left: l, right: r) } else { nil } }),
        FlowBlockKind(
            .choice, doc: "A question with a list of options (beyond the seed): the chosen option is the answer and leads on.",
            object: FlowObject(
                "choice", doc: "", blank: RocketChoiceNode(text: "", options: []),
                fields: [
                    .text("text", \.text, doc: "The question."),
                    .list(
                        "options", \.options, button, item: "an option", required: true, min: 2, max: maxChoiceOptions,
                        tooFew: "a choice block needs at least two options",
                        tooMany: { "a choice block has at most \(FlowFormat.maxChoiceOptions) options, not \($0)" },
                        doc: "The options, 2 to \(maxChoiceOptions), each a button."),
                    .font("font", \.font, doc: "The question's style."),
                    .bool("multiple", \.multiple, doc: "Several options may be chosen; the answer is the list of their titles and `next` follows."),
                    .integer("min", \.minChosen, min: 1, max: maxChoiceOptions, doc: "The fewest options a multiple choice takes; default 1."),
                    .integer("max", \.maxChosen, min: 1, max: maxChoiceOptions, doc: "The most options a multiple choice takes; default all."),
                    .reference("next", \.next, doc: "Where a multiple choice goes once answered; absent ends the conversation."),
                    .optionalText(
                        "buttonTitle", \.buttonTitle, doc: "The title of a multiple choice's confirming button; default: the user's language's \"Done\"."),
                ]),
            wrap: { .choice($0) }, unwrap: { if case .choice(let c) = $0 { c } else { nil } }),
        FlowBlockKind(
            .rating,
            doc:
                "A question answered with a whole number from `from` (1, or 0) to `scale`: stars in the terminal (numbers from 0), a radio group in the browser.",
            object: FlowObject(
                "rating", doc: "", blank: RocketRatingNode(text: ""),
                fields: [
                    .text("text", \.text, doc: "The question."),
                    FlowField(
                        "scale", .integer(min: 2, max: 10), doc: "The top of the scale; the answer is `from` to it.",
                        decode: { d, v, place, root in
                            if d.tape.kind(v) == .null { return true }
                            guard let n = d.readInteger(v, place.path, min: 2, max: 10) else { return false }
                            root.scale = n
                            return true
                        }, value: { root, _ in .number(Double(root.scale)) }),
                    FlowField(
                        "from", .integer(min: 0, max: 1),
                        doc: "The bottom of the scale: 1, or 0 for a question from 0 to 10 as Net Promoter Score asks (`\"from\": 0, \"scale\": 10`).",
                        decode: { d, v, place, root in
                            if d.tape.kind(v) == .null { return true }
                            guard let n = d.readInteger(v, place.path, min: 0, max: 1) else { return false }
                            root.lowest = n
                            return true
                        }, value: { root, _ in .number(Double(root.lowest)) }),
                    .optionalObject("labels", \.optionalLabels, ratingLabels, doc: "Words under the ends of the scale."),
                    .reference("next", \.next, doc: "The block after the answer; absent ends the conversation."),
                    .font("font", \.font, doc: "The question's style."),
                ]),
            wrap: { .rating($0) }, unwrap: { if case .rating(let r) = $0 { r } else { nil } }),
        FlowBlockKind(
            .textInput, doc: "A question with a text field; the accepted text goes to the first matching branch, else `next`.",
            object: FlowObject(
                "textInput", doc: "", blank: RocketInputNode(text: "", buttonTitle: ""),
                fields: [
                    .text("text", \.text, doc: "The question."),
                    .text("buttonTitle", \.buttonTitle, doc: "The submit button's title."),
                    .bool("secret", \.isSecret, doc: "Mask the text on screen and keep it out of events and --answers-out."),
                    .bool(
                        "multiline", \.multiline,
                        doc: "The answer may hold several lines: a text area in the browser; in a terminal Enter starts a new line and Ctrl-D sends."),
                    .words(
                        "inputType", \.inputType,
                        doc: "What the answer must be; it is stored as that (a number as a number) and browsers show the matching keyboard."),
                    .bound(
                        "min", \.minimum,
                        doc:
                            "The least answer accepted: a number for `number` and `integer`; for `date` a day `YYYY-MM-DD`, or one counted from the person's today (`today`, `today+1d`, `today-18y`: d, w, m, y); a time `HH:MM` for `time`."
                    ),
                    .bound("max", \.maximum, doc: "The greatest answer accepted."),
                    .optionalText(
                        "placeholder", \.placeholder,
                        doc: "A hint shown in the empty field; without one, a typed input shows its bounds or its form (YYYY-MM-DD)."),
                    .optionalText(
                        // The engine fills it when the block is asked (Conversation.startingText), and
                        // the view sends that, so it is not sent as it is written.
                        "value", \.value, role: .logic,
                        doc:
                            "The text the field starts with, which the person may change or send as it is (in line mode an empty line sends it); `{{email}}` offers an earlier answer or a variable to confirm."
                    ),
                    .optionalObject("validate", \.validation, validate, doc: "Rules the text must meet."),
                    .list("branches", \.branches, branch, item: "a branch", doc: "Branches tried in order; the first that holds decides."),
                    .reference("next", \.next, doc: "Where the text goes when no branch holds; absent ends the conversation."),
                    .font("font", \.font, doc: "The question's style."),
                    .font("buttonStyle", \.buttonStyle, doc: "The submit button's style."),
                ]),
            wrap: { .textInput($0) }, unwrap: { if case .textInput(let i) = $0 { i } else { nil } }),
        FlowBlockKind(
            .set, doc: "Sets variables, in order (each assignment sees the ones before it), then goes on at once; never shown.",
            object: FlowObject(
                "set", doc: "", blank: RocketSetNode(assignments: []),
                fields: [
                    FlowField(
                        "set", .assignments, required: true, doc: "Each variable named, with the expression that gives its new value.",
                        decode: { d, v, place, root in
                            var list: [RocketAssignment] = []
                            let ok = d.forEachEntry(v, place.path, limit: RocketLimits.blockRules, what: "assignments") { d, name, e in
                                guard let s = d.readString(e, place.path.child(name)) else { return false }
                                list.append(RocketAssignment(name, RocketExpression(s)))
                                return true
                            }
                            root.assignments = list
                            return ok
                        }, value: { root, _ in .object(root.assignments.map { ($0.name, .string($0.expression.source)) }) }),
                    .reference("next", \.next, doc: "The block after it; absent ends the conversation."),
                ]),
            wrap: { .set($0) }, unwrap: { if case .set(let s) = $0 { s } else { nil } }),
        FlowBlockKind(
            .jump,
            doc:
                "Goes at once to another block (`to`), or into another flow of the same folder (`flow`) with the same variables; with `return`, comes back when that way ends and goes on at `next`. Never shown.",
            object: FlowObject(
                "jump", doc: "", blank: RocketJumpNode(to: nil),
                fields: [
                    .reference("to", \.to, doc: "A block of this flow to go to."),
                    .optionalText(
                        "flow", \.flow, type: .string(minLength: 1), role: .logic,
                        doc: "Another flow of the same folder (its file name without `.json`) to go into, at its first block."),
                    .bool("return", \.returns, role: .logic, doc: "Come back when the way it goes ends, and go on at `next`."),
                    .reference("next", \.next, doc: "Where to go on after coming back; absent ends the conversation there."),
                ]),
            wrap: { .jump($0) }, unwrap: { if case .jump(let j) = $0 { j } else { nil } }),
        FlowBlockKind(
            .condition, doc: "Goes to the first branch whose `if` is true, else to `else`; never shown.",
            object: FlowObject(
                "condition", doc: "", blank: RocketConditionNode(branches: []),
                fields: [
                    .list(
                        "branches", \.branches, conditionBranch, item: "a branch", required: true, min: 1, max: RocketLimits.blockRules,
                        tooFew: "a condition block needs at least one branch",
                        tooMany: { "a condition block has at most \(RocketLimits.blockRules) branches, not \($0)" },
                        doc: "The branches, tried in order; the first whose `if` is true decides."),
                    .reference("else", \.elseNext, doc: "Where it goes when no branch is true; absent ends the conversation."),
                ]),
            wrap: { .condition($0) }, unwrap: { if case .condition(let c) = $0 { c } else { nil } }),
    ]

    /// The speaker.
    static let author = FlowObject<RocketAuthor>(
        "author", doc: "The speaker: a name and an avatar.",
        blank: RocketAuthor(image: nil, style: .circular, name: "Rocket"),
        fields: [
            .text("name", \.name, required: false, role: .look, doc: "The display name."),
            .optionalImage("image", \.image, doc: "The avatar: a file relative to the flow file, or a data: URI."),
            .words("style", \.style, doc: "The avatar's corners."),
        ])

    /// The close button.
    static let closeButton = FlowObject<RocketCloseButton>(
        "closeButton", doc: "A button that closes the conversation (Esc in the terminal).",
        blank: RocketCloseButton(title: ""),
        fields: [
            .text("title", \.title, role: .look, doc: "Its title."),
            .font("font", \.style, doc: "Its style."),
        ])

    /// The top level of a flow file.
    static let documentObject = FlowObject<FlowDocument>(
        "flow", doc: "One conversation.",
        blank: FlowDocument(graph: RocketGraph()),
        fields: [
            FlowField(
                "$schema", .string(minLength: 0), shownBy: [], doc: "Ignored; lets editors find the schema.",
                decode: { d, v, place, _ in d.readString(v, place.path) != nil }, value: { _, _ in nil }),
            FlowField(
                "version", .constant(1), required: true, doc: "The format version; other values are refused.",
                decode: { d, v, place, root in d.readVersion(v, place.path) }, value: { root, _ in .number(Double(root.version)) }),
            .optionalText("title", \.title, type: .string(minLength: 0), shownBy: [], doc: "A title for people and tools."),
            .optionalObject("author", \.author, author, doc: "The speaker."),
            .optionalObject("closeButton", \.closeButton, closeButton, doc: "A close button."),
            FlowField(
                "start", .blockID, doc: "The id of the first block; default: the first block.",
                decode: { d, v, place, root in
                    if d.tape.kind(v) == .null { return true }
                    guard let s = d.readString(v, place.path) else { return false }
                    d.start = d.resolve(s, at: v, path: place.path)
                    return true
                },
                value: { root, e in
                    guard let r = root.graph.root, r.rawValue != 0 else { return nil }
                    return e.name(r).map { .string($0) }
                }),
            FlowField(
                "variables", .list(.string(minLength: 1), min: 0, max: nil), doc: "Names callers may set before the flow starts (--var NAME=VALUE).",
                decode: { d, v, place, root in
                    guard let names = d.readStringList(v, place.path) else { return false }
                    root.variables = names
                    return true
                }, value: { root, _ in root.variables.isEmpty ? nil : .array(root.variables.map { .string($0) }) }),
            FlowField(
                "vars", .variables, shownBy: [],
                doc:
                    "Variables with their defaults (a string, a number or a boolean, which gives the type); `--var NAME=VALUE` and the API's `vars` set them at the start, `set` blocks later, and `{{name}}` shows them.",
                decode: { d, v, place, root in
                    var list: [RocketVariable] = []
                    let ok = d.forEachEntry(v, place.path, limit: RocketLimits.variables, what: "variables") { d, name, e in
                        guard d.checkVariableName(name, place.path.child(name), at: d.tape.offset(e - 1)) else { return false }
                        let value: RocketValue
                        switch d.tape.kind(e) {
                        case .string: value = .text(d.tape.string(e)!)
                        case .number: value = .number(d.tape.number(e)!)
                        case .bool: value = .bool(d.tape.bool(e)!)
                        default:
                            d.error(
                                "wrong-type",
                                "the default of \(FlowDiagnostic.quoted(name)) must be a string, a number or true or false, not \(d.tape.typeName(e))",
                                path: place.path.child(name), at: d.tape.offset(e))
                            return false
                        }
                        list.append(RocketVariable(name: name, defaultValue: value))
                        return true
                    }
                    root.graph.variables = list
                    return ok
                },
                value: { root, _ in
                    root.graph.variables.isEmpty
                        ? nil : .object(root.graph.variables.map { v in (v.name, v.defaultValue.json) })
                }),
            FlowField(
                "languages", .list(.string(minLength: 2), min: 1, max: 64), shownBy: [],
                doc:
                    "The languages its texts are written in, the first the default; any text may then be an object of texts by language (`{\"en\": \"Hi\", \"it\": \"Ciao\"}`).",
                decode: { d, v, place, root in
                    guard let names = d.readStringList(v, place.path) else { return false }
                    var ok = !names.isEmpty
                    if names.isEmpty { d.error("too-few-options", "\"languages\" names at least one language", path: place.path, at: d.tape.offset(v)) }
                    var seen = Set<String>()
                    for (k, name) in names.enumerated() {
                        if !FlowDocument.isLanguageTag(name) {
                            d.error(
                                "bad-value", "\(FlowDiagnostic.quoted(name)) is not a language tag like \"en\", \"it\" or \"pt-BR\"", path: place.path.item(k),
                                at: d.tape.offset(v))
                            ok = false
                        } else if !seen.insert(name).inserted {
                            d.error("repeated-field", "\(FlowDiagnostic.quoted(name)) is named twice", path: place.path.item(k), at: d.tape.offset(v))
                            ok = false
                        }
                    }
                    root.languages = names
                    return ok
                }, value: { root, _ in root.languages.isEmpty ? nil : .array(root.languages.map { .string($0) }) }),
            .optionalObject("experiment", \.experiment, experimentObject, doc: "An experiment over the flow's start."),
            .optionalObject(
                "quietHours", \.quietHours, quietHoursObject,
                doc: "When the flow is not shown: a daily window in the visitor's local time (the page's, else the host's)."),
            .optionalObject(
                "schedule", \.schedule, scheduleObject,
                doc: "When the flow may be shown at all: from one moment until another, each with its offset from UTC."),
            FlowField(
                "ignoresGap", .bool, shownBy: [],
                doc:
                    "Shown whatever the gap between flows (`--min-gap`) says: a message that cannot wait. Its showing still counts, so the next flow waits the gap after it.",
                decode: { d, v, place, root in
                    guard let b = d.readBool(v, place.path) else { return false }
                    root.ignoresGap = b
                    return true
                }, value: { root, _ in .bool(root.ignoresGap) }),
            FlowField(
                "allowBack", .bool, shownBy: [],
                doc: "Whether the user may go back to change an earlier answer (Shift-Tab, a line `<`, the browser's Edit, the API's `back`).",
                decode: { d, v, place, root in
                    guard let b = d.readBool(v, place.path) else { return false }
                    root.graph.allowBack = b
                    return true
                }, value: { root, _ in .bool(root.graph.allowBack) }),
            FlowField(
                "scenario", .string(minLength: 1), shownBy: [],
                doc:
                    "The scenario that gates the flow: it is shown only when the scenario may execute now, and the showing counts as its execution. "
                    + "At most 1,024 bytes, no control characters, no `@`, and not starting with `rocket.` (rocket's own).",
                decode: { d, v, place, root in
                    if d.tape.kind(v) == .null { return true }
                    guard let s = d.readString(v, place.path) else { return false }
                    if s.isEmpty { d.error("empty-id", "\"scenario\" may not be empty", path: place.path, at: d.tape.offset(v)) }
                    d.checkScenarioName(s, path: place.path, at: d.tape.offset(v))
                    root.scenario = s
                    return true
                }, value: { root, _ in root.scenario.map { .string($0) } }),
            FlowField(
                "when", .object("when"), shownBy: [], doc: "The scenario's rules (needs `scenario`).",
                decode: { d, v, place, root in
                    root.when = d.decodeWhen(v)
                    return true
                },
                value: { root, _ in
                    guard var value = root.when.map(FlowFormat.whenValue) else { return nil }
                    if let e = root.showIf, case .object(var members) = value {
                        members.append(("if", .string(e.source)))
                        value = .object(members)
                    }
                    return value
                }),
            FlowField(
                "banner", .object("banner"), doc: "A banner shown over the conversation when it starts.",
                decode: { d, v, place, root in
                    root.banner = d.decodeBanner(v)
                    return true
                }, value: { root, _ in root.banner.map(\.flowJSON) }),
            FlowField(
                "blocks", .list(.block, min: 1, max: nil), required: true, doc: "The blocks; at least one.",
                decode: { d, v, place, root in
                    guard let nodes = d.decodeBlocks(v) else { return false }
                    var graph = RocketGraph(nodes: nodes, root: nodes.isEmpty ? nil : RocketNodeID(0), variables: root.graph.variables)
                    graph.allowBack = root.graph.allowBack
                    root.graph = graph
                    return true
                },
                value: { root, e in
                    .array(root.graph.nodes.indices.map { i in FlowFormat.blockValue(root.graph.nodes[i], name: e.names[i], e) })
                }),
        ])

    /// The named objects, for the schema's `$defs` and the reference.
    static let namedObjects: [FlowObjectInfo] = [
        author.info, closeButton.info, button.info, validate.info, branch.info, condition, conditionBranch.info, ratingLabels.info, experimentObject.info,
        experimentVariant.info, quietHoursObject.info, scheduleObject.info, fontObject.info,
        FlowFormat.whenInfo, FlowFormat.windowInfo, FlowFormat.budgetInfo, FlowFormat.bannerInfo,
    ]

    /// Version 1 of the flow format: the one this library reads and writes.
    public static let v1 = FlowFormat(document: documentObject, blocks: blockKinds, objects: namedObjects)

    /// One block as written: `id`, `type`, then its kind's fields.
    static func blockValue(_ node: RocketNode, name: String, _ e: FlowEncoding) -> JSONValue {
        var out: [(String, JSONValue)] = [("id", .string(name)), ("type", .string(node.kind.rawValue))]
        if let kind = e.blocks.first(where: { $0.kind == node.kind }), let members = kind.members(node.content, e) { out += members }
        return .object(out)
    }
}
