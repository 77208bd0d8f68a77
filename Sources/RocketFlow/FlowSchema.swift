public import RocketJSON
import RocketConversation
import RocketCore

extension FlowFormat {
    /// The format as a JSON Schema (draft 2020-12), made from the table: every object refuses
    /// unknown fields, every field has its type, range and sentence, every block kind its own
    /// object. `schema/flow-v1.schema.json` is this, and `rocket schema` prints it.
    ///
    /// It refuses what `rocket lint` refuses by shape (unknown fields and kinds, wrong types,
    /// missing fields, bad durations, colours and fonts); lint also checks what a schema cannot:
    /// references, cycles, regular expressions and ranges of duration strings.
    public var jsonSchema: JSONValue {
        var defs: [(String, JSONValue)] = [
            ("blockID", .object([("type", .string("string")), ("minLength", .number(1)), ("description", .string("The id of a block of this flow."))])),
            (
                "text",
                .object([
                    (
                        "anyOf",
                        .array([
                            .object([("type", .string("string"))]),
                            .object([
                                ("type", .string("object")), ("minProperties", .number(1)),
                                ("additionalProperties", .object([("type", .string("string"))])),
                            ]),
                        ])
                    ),
                    ("description", .string("A text a user reads, or an object of texts by language when the flow has `languages`.")),
                ])
            ),
            (
                "expression",
                .object([
                    ("type", .string("string")), ("minLength", .number(1)), ("maxLength", .number(Double(RocketLimits.expressionBytes))),
                    ("description", .string("An expression over the flow's variables and answers (docs/FLOW_FORMAT.md, \"Expressions\").")),
                ])
            ),
            (
                "duration",
                .object([
                    (
                        "anyOf",
                        .array([
                            .object([("type", .string("number")), ("minimum", .number(0)), ("maximum", .number(RocketDuration.maxSeconds))]),
                            .object([("type", .string("string")), ("pattern", .string(Self.durationPattern))]),
                        ])
                    ),
                    ("description", .string("Seconds, or a number followed by ms, s, m, h, d or w (\"500ms\", \"14d\"); at most 100 years.")),
                ])
            ),
            (
                "font",
                .object([
                    (
                        "anyOf",
                        .array([
                            .object([("enum", .array(RocketFont.presets.keys.sorted().map { .string($0) }))]),
                            .object([("$ref", .string("#/$defs/fontObject"))]),
                        ])
                    ), ("description", .string("A preset name or a custom font.")),
                ])
            ),
            ("color", .object([("type", .string("string")), ("pattern", .string("^#?([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$"))])),
            (
                "namedColor",
                .object([
                    ("type", .string("string")),
                    (
                        "pattern",
                        .string("^(" + RocketColor.names.keys.sorted().map(Self.anyCase).joined(separator: "|") + "|#[0-9A-Fa-f]{3}|#[0-9A-Fa-f]{6})$")
                    ),
                ])
            ),
            (
                "bannerButtons",
                .object([
                    (
                        "anyOf",
                        .array([
                            .object([("const", .string("close"))]),
                            .object([
                                ("type", .string("array")), ("maxItems", .number(2)),
                                ("items", .object([("type", .string("string")), ("pattern", .string("\\S"))])),
                            ]),
                        ])
                    )
                ])
            ),
        ]
        for object in objects { defs.append((object.name, Self.schema(of: object))) }
        // A block: its `type` picks the object of its kind.
        let kinds = blocks.map(\.kind.rawValue)
        defs.append(
            (
                "block",
                .object([
                    ("type", .string("object")),
                    ("required", .array([.string("id"), .string("type")])),
                    ("properties", .object([("type", .object([("enum", .array(kinds.map { .string($0) }))]))])),
                    (
                        "allOf",
                        .array(
                            blocks.map { kind in
                                .object([
                                    (
                                        "if",
                                        .object([
                                            ("properties", .object([("type", .object([("const", .string(kind.kind.rawValue))]))])),
                                            ("required", .array([.string("type")])),
                                        ])
                                    ),
                                    ("then", .object([("$ref", .string("#/$defs/block-" + kind.kind.rawValue))])),
                                ])
                            })
                    ),
                ])
            ))
        for kind in blocks {
            let header = [
                FlowFieldInfo(name: "id", type: .blockID, isRequired: true, defaultValue: nil, shownBy: .all, doc: "The block's id, unique in the flow."),
                FlowFieldInfo(
                    name: "type", type: .words([kind.kind.rawValue]), isRequired: true, defaultValue: nil, shownBy: .all, doc: "The block kind."),
            ]
            let info = FlowObjectInfo(name: kind.kind.rawValue, doc: kind.doc, fields: header + kind.info.fields, exactlyOne: false)
            defs.append(("block-" + kind.kind.rawValue, Self.schema(of: info)))
        }
        var top: [(String, JSONValue)] = [
            ("$schema", .string("https://json-schema.org/draft/2020-12/schema")),
            ("$id", .string(Self.schemaID)),
            ("title", .string("RocketAlert flow, version 1")),
        ]
        guard case .object(let members) = Self.schema(of: documentInfo) else { return .null }
        top += members
        top.append(("dependentRequired", .object([("when", .array([.string("scenario")]))])))
        top.append(("$defs", .object(defs)))
        return .object(top)
    }

    /// The duration string syntax of `RocketDuration.parse`, as a regular expression.
    static let durationPattern = "^([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(ms|s|m|h|d|w)?$"

    /// A word matched in any case ("red" → "[rR][eE][dD]").
    static func anyCase(_ word: String) -> String {
        word.map { ch in
            let lower = String(ch).lowercased(), upper = String(ch).uppercased()
            return lower == upper ? lower : "[" + lower + upper + "]"
        }.joined()
    }

    /// One object's schema.
    static func schema(of object: FlowObjectInfo) -> JSONValue {
        var out: [(String, JSONValue)] = [("type", .string("object"))]
        if !object.doc.isEmpty { out.append(("description", .string(object.doc))) }
        let required = object.fields.filter(\.isRequired).map { JSONValue.string($0.name) }
        if !required.isEmpty { out.append(("required", .array(required))) }
        out.append(("additionalProperties", .bool(false)))
        if object.exactlyOne {
            out.append(("minProperties", .number(1)))
            out.append(("maxProperties", .number(1)))
        }
        out.append(
            (
                "properties",
                .object(
                    object.fields.map { f in
                        guard case .object(var members) = schema(of: f.type) else { return (f.name, .null) }
                        if !f.doc.isEmpty { members.append(("description", .string(f.doc))) }
                        if let d = f.defaultValue { members.append(("default", d)) }
                        return (f.name, .object(members))
                    })
            ))
        return .object(out)
    }

    /// The schema's `$id`, which a flow's `$schema` names (`rocket new` writes it). The host is
    /// `.invalid` (RFC 2606): nothing is fetched from it; an editor is pointed at the committed
    /// file, `schema/flow-v1.schema.json`, or at `rocket schema`'s output.
    public static let schemaID = "https://rocketalert.invalid/schema/flow-v1.schema.json"

    /// A value type's schema.
    static func schema(of type: FlowValueType) -> JSONValue {
        func ref(_ name: String) -> JSONValue { .object([("$ref", .string("#/$defs/" + name))]) }
        switch type {
        case .string(let minLength):
            return .object([("type", .string("string"))] + (minLength > 0 ? [("minLength", .number(Double(minLength)))] : []))
        case .text: return ref("text")
        case .image: return .object([("type", .string("string"))])
        case .pattern: return .object([("type", .string("string")), ("format", .string("regex"))])
        case .link:
            return .object([
                ("type", .string("string")), ("maxLength", .number(2048)), ("pattern", .string(#"^[Hh][Tt][Tt][Pp][Ss]?://[^\s/?#:"'<>\\`][^\s"'<>\\`]*$"#)),
            ])
        case .blockID: return ref("blockID")
        case .snooze: return .object([("anyOf", .array([ref("duration"), .object([("const", .string("forever"))])]))])
        case .instant:
            return .object([
                ("type", .string("string")),
                ("pattern", .string(#"^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?([Zz]|[+-][0-9]{2}:?[0-9]{2})$"#)),
            ])
        case .bool: return .object([("type", .string("boolean"))])
        case .alwaysTrue: return .object([("const", .bool(true))])
        case .number(let lo, let hi): return .object([("type", .string("number")), ("minimum", .number(lo)), ("maximum", .number(hi))])
        case .integer(let lo, let hi):
            return .object([("type", .string("integer")), ("minimum", .number(Double(lo))), ("maximum", .number(Double(hi)))])
        case .duration: return ref("duration")
        case .font: return ref("font")
        case .color: return ref("color")
        case .namedColor: return ref("namedColor")
        case .words(let words): return .object([("enum", .array(words.map { .string($0) }))])
        case .constant(let n): return .object([("const", .number(Double(n)))])
        case .object(let name): return ref(name)
        case .list(let item, let lo, let hi):
            var out: [(String, JSONValue)] = [("type", .string("array")), ("items", schema(of: item))]
            if lo > 0 { out.append(("minItems", .number(Double(lo)))) }
            if let hi { out.append(("maxItems", .number(Double(hi)))) }
            return .object(out)
        case .block: return ref("block")
        case .bannerButtons: return ref("bannerButtons")
        case .any: return .object([])
        case .expression: return ref("expression")
        case .inputBound:
            return .object([
                (
                    "anyOf",
                    .array([
                        .object([("type", .string("number"))]),
                        .object([("type", .string("string")), ("pattern", .string("^[0-9]{4}-[0-9]{2}-[0-9]{2}$"))]),
                        .object([("type", .string("string")), ("pattern", .string("^([01][0-9]|2[0-3]):[0-5][0-9]$"))]),
                        // A day counted from today (RocketInputType.relativeDay).
                        .object([("type", .string("string")), ("pattern", .string("^today([+-][0-9]{1,6}[dwmy])?$"))]),
                    ])
                )
            ])
        case .assignments:
            return .object([
                ("type", .string("object")), ("additionalProperties", ref("expression")), ("maxProperties", .number(Double(RocketLimits.blockRules))),
            ])
        case .variables:
            return .object([
                ("type", .string("object")),
                ("additionalProperties", .object([("type", .array([.string("string"), .string("number"), .string("boolean")]))])),
                ("maxProperties", .number(Double(RocketLimits.variables))),
            ])
        }
    }
}

extension FlowFormat {
    /// The field reference of docs/FLOW_FORMAT.md (Markdown), made from the table: the top level,
    /// each block kind and each named object, every field with its type, default and sentence.
    public var referenceMarkdown: String {
        var out = "### Top level\n\n" + Self.table(documentInfo) + "\n"
        out += "A `when` needs a `scenario`.\n\n### Blocks\n\n"
        out += "Every block has `id` (unique, non-empty) and `type`, one of "
        out += blocks.map { "`\($0.kind.rawValue)`" }.joined(separator: ", ") + ".\n\n"
        for kind in blocks {
            out += "#### `\(kind.kind.rawValue)`\n\n\(kind.doc)\n\n" + Self.table(kind.info) + "\n"
        }
        out += "### Objects\n\n"
        for object in objects {
            out += "#### `\(object.name)`\n\n\(object.doc)"
            out += object.exactlyOne ? " Exactly one field is given.\n\n" : "\n\n"
            out += Self.table(object) + "\n"
        }
        return out
    }

    /// One object's fields as a Markdown table.
    static func table(_ object: FlowObjectInfo) -> String {
        var out = "| Field | Type | Required | Default | Meaning |\n|---|---|---|---|---|\n"
        for f in object.fields {
            var meaning = f.doc
            if f.shownBy != .all {
                meaning += f.shownBy.isEmpty ? " (not drawn)" : f.shownBy == .web ? " (drawn by the web widget only)" : " (drawn by the terminal only)"
            }
            let value = f.defaultValue.map { "`" + $0.serialized(pretty: false) + "`" } ?? ""
            out += "| `\(f.name)` | \(typeName(f.type)) | \(f.isRequired ? "yes" : "no") | \(value) | \(meaning.replacingAll("|", with: "\\|")) |\n"
        }
        return out
    }

    /// A type as the reference names it.
    static func typeName(_ type: FlowValueType) -> String {
        func number(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v) }
        switch type {
        case .string(let minLength): return minLength > 0 ? "non-empty string" : "string"
        case .text: return "text ({{name}} filled; or texts by language)"
        case .pattern: return "regular expression"
        case .link: return "`http://` or `https://` URL"
        case .blockID: return "block id"
        case .instant: return "moment with its offset, `2026-12-10T09:00+01:00`"
        case .snooze: return "duration, or `\"forever\"`"
        case .image: return "image file or data: URI"
        case .bool: return "boolean"
        case .alwaysTrue: return "`true`"
        case .number(let lo, let hi): return "number, \(number(lo)) to \(number(hi))"
        case .integer(let lo, let hi): return "whole number, \(lo) to \(hi)"
        case .duration: return "duration"
        case .font: return "font"
        case .color: return "colour (#RGB, #RRGGBB)"
        case .namedColor: return "colour name or #RRGGBB"
        case .words(let words): return words.map { "`\($0)`" }.joined(separator: ", ")
        case .constant(let n): return "`\(n)`"
        case .object(let name): return "[`\(name)`](#\(name.lowercased()))"
        case .list(let item, let lo, let hi):
            let bounds = hi.map { ", \(lo) to \($0)" } ?? (lo > 0 ? ", at least \(lo)" : "")
            return "array of \(typeName(item))\(bounds)"
        case .block: return "block"
        case .bannerButtons: return "up to two titles, or `\"close\"`"
        case .any: return "any"
        case .expression: return "[expression](#expressions)"
        case .assignments: return "object: variable name → [expression](#expressions)"
        case .variables: return "object: name → string, number or boolean"
        case .inputBound: return "number, date `YYYY-MM-DD` or `today±N(d|w|m|y)`, or time `HH:MM`"
        }
    }
}
