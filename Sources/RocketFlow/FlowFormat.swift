public import RocketJSON
public import RocketConversation
public import RocketCore

/// What a field of the flow format holds, as the JSON Schema and the field reference describe it.
///
/// ```swift
/// FlowValueType.number(min: 0, max: 10_000).schemaName   // "number"
/// ```
public indirect enum FlowValueType: Hashable, Sendable {
    /// Any string; `minLength` 1 refuses the empty string.
    case string(minLength: Int)
    /// A string a user sees: `{{name}}` placeholders in it are filled when shown.
    case text
    /// A regular expression (PCRE2).
    case pattern
    /// A page a button opens: an absolute `http:` or `https:` URL
    /// (`RocketButtonNode.isLink(_:)` decides).
    case link
    /// The id of a block of the same flow.
    case blockID
    /// A PNG or JPEG file relative to the flow file, or a `data:` URI.
    case image
    /// `true` or `false`.
    case bool
    /// Only `true`.
    case alwaysTrue
    /// A number in a closed range.
    case number(min: Double, max: Double)
    /// A whole number in a closed range.
    case integer(min: Int, max: Int)
    /// Seconds, or a duration string (`"500ms"`, `"14d"`).
    case duration
    /// A font preset name or a font object.
    case font
    /// `#RGB` or `#RRGGBB`.
    case color
    /// A colour name or `#RRGGBB` (banners).
    case namedColor
    /// One of these words.
    case words([String])
    /// Exactly this number.
    case constant(Int)
    /// An object described by the format's object of this name.
    case object(String)
    /// An array of values of one type, with bounds on its length (`max` nil: unbounded).
    case list(FlowValueType, min: Int, max: Int?)
    /// A block (one of the format's block kinds).
    case block
    /// A banner's buttons: up to two titles, or `"close"`.
    case bannerButtons
    /// Any JSON value (read by nothing).
    case any
    /// An expression over the flow's variables (a string; docs/FLOW_FORMAT.md, "Expressions").
    case expression
    /// An object of variable names, each with an expression giving its new value.
    case assignments
    /// An object of variable names, each with its default: a string, a number or a boolean.
    case variables
    /// How long a button's press snoozes its flow: a duration, or `"forever"`
    /// (`RocketButtonNode.snoozeSeconds(_:)` decides).
    case snooze
    /// A moment with its offset from UTC: `YYYY-MM-DDTHH:MM[:SS](Z|±HH:MM)`
    /// (`RocketSchedule.instant(_:)` decides).
    case instant
    /// A typed input's `min` and `max`: a number, a day as `YYYY-MM-DD` or a time as `HH:MM`.
    case inputBound
}

/// Which front ends draw a field; every front end obeys the fields that change what happens.
public struct FlowSurfaces: OptionSet, Hashable, Sendable {
    /// The raw bits.
    public let rawValue: Int
    /// Creates surfaces from bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// `rocket play` in a terminal (and its line mode, where text is involved).
    public static let terminal = FlowSurfaces(rawValue: 1)
    /// The web widget of `rocket serve`.
    public static let web = FlowSurfaces(rawValue: 2)
    /// Every front end.
    public static let all: FlowSurfaces = [.terminal, .web]
}

/// What a field is for, which decides what a front end is sent of it.
///
/// ```swift
/// FlowFieldRole.of(.text)      // .content
/// FlowFieldRole.of(.blockID)   // .logic
/// ```
public enum FlowFieldRole: String, Hashable, Sendable {
    /// Text the user reads, `{{name}}` filled when it is shown: sent per conversation, filled.
    case content
    /// How it looks (fonts, pictures, corners, masking, input limits): the same in every
    /// conversation of the flow, so a front end is sent it as it is, once.
    case look
    /// What happens (where it leads, timers, actions, patterns): the engine acts on it and no
    /// front end is sent it.
    case logic

    /// The role a field of `type` has unless its entry says otherwise.
    public static func of(_ type: FlowValueType) -> FlowFieldRole {
        switch type {
        case .text: return .content
        case .blockID, .duration, .pattern, .any, .expression, .assignments, .variables: return .logic
        case .list(let item, _, _): return of(item) == .logic ? .logic : .look
        case .object("branch"), .object("conditionBranch"): return .logic
        default: return .look
        }
    }
}

/// A field's value as a front end is sent it: what it draws as it is, text it fills for the
/// conversation, a picture, or a nested object or list of them. Made from the table, so the
/// server's view and the widget name the fields as flow files do.
public indirect enum FlowViewValue: Sendable {
    /// Drawn as it is (a font, a style word, a number, a flag).
    case look(JSONValue)
    /// Text the user reads: `{{name}}` placeholders are filled for the conversation when shown.
    case content(String)
    /// A picture (the front end turns it into something it can load).
    case image(RocketImage)
    /// A nested object's fields, in table order.
    case object([FlowViewMember])
    /// A list of values.
    case list([FlowViewValue])
}

/// A named member of a ``FlowViewValue`` object.
public struct FlowViewMember: Sendable {
    /// The field's JSON name.
    public let name: String
    /// Its value.
    public let value: FlowViewValue
}

/// One field as the schema and the reference state it: its JSON name, type, whether it is
/// required, its default, the front ends that show it, and one sentence about it.
public struct FlowFieldInfo: Hashable, Sendable {
    /// The JSON name.
    public let name: String
    /// What it holds.
    public let type: FlowValueType
    /// True when the object is incomplete without it.
    public let isRequired: Bool
    /// The value taken when it is absent (nil: none, or absent means "nothing").
    public let defaultValue: JSONValue?
    /// The front ends that draw it.
    public let shownBy: FlowSurfaces
    /// One sentence for the reference and the schema's `description`.
    public let doc: String
    /// What it is for: what front ends are sent of it.
    public let role: FlowFieldRole

    /// A field's facts (the role follows from the type unless given).
    public init(
        name: String, type: FlowValueType, isRequired: Bool, defaultValue: JSONValue?, shownBy: FlowSurfaces, doc: String,
        role: FlowFieldRole? = nil
    ) {
        self.name = name
        self.type = type
        self.isRequired = isRequired
        self.defaultValue = defaultValue
        self.shownBy = shownBy
        self.doc = doc
        self.role = role ?? FlowFieldRole.of(type)
    }
}

/// One JSON object of the format as the schema and the reference state it.
public struct FlowObjectInfo: Hashable, Sendable {
    /// Its name in the schema's `$defs` and in the reference.
    public let name: String
    /// One sentence about it.
    public let doc: String
    /// Its fields, in the order files are written.
    public let fields: [FlowFieldInfo]
    /// True when exactly one of the fields must be given (a branch's condition).
    public let exactlyOne: Bool
}

/// A field with how it is read into, and written from, a value of type `Root`.
///
/// The table's entries are made with the static constructors (`text(_:_:required:type:shownBy:doc:)`
/// and its siblings), each of which pairs a JSON name with a key path, so reading, writing, the
/// schema and the reference all come from the one entry.
public struct FlowField<Root: Sendable>: Sendable {
    /// The schema-facing facts (the default is filled in from the object's blank value).
    let name: String
    let type: FlowValueType
    let isRequired: Bool
    let shownBy: FlowSurfaces
    let doc: String
    let role: FlowFieldRole
    /// Reads the value entry `entry` of the tape into `root`; false when it could not be read
    /// (the diagnostic is already recorded).
    let decode: @Sendable (inout FlowDecoder, _ entry: Int, _ place: FieldPlace, inout Root) -> Bool
    /// The field's value in `root` as JSON, or nil when it has none.
    let value: @Sendable (Root, FlowEncoding) -> JSONValue?
    /// The field's value as a front end on `surface` is sent it, or nil when it is sent nothing.
    let view: @Sendable (Root, FlowSurfaces) -> FlowViewValue?

    /// A field with hand-written reading and writing; `role` defaults to the type's
    /// (``FlowFieldRole/of(_:)``), and what front ends are sent follows from it unless `view`
    /// says otherwise (nested objects and pictures).
    init(
        _ name: String, _ type: FlowValueType, required: Bool = false, shownBy: FlowSurfaces = .all, role: FlowFieldRole? = nil, doc: String,
        decode: @escaping @Sendable (inout FlowDecoder, Int, FieldPlace, inout Root) -> Bool,
        value: @escaping @Sendable (Root, FlowEncoding) -> JSONValue?,
        view: (@Sendable (Root, FlowSurfaces) -> FlowViewValue?)? = nil
    ) {
        let role = role ?? FlowFieldRole.of(type)
        self.name = name
        self.type = type
        self.isRequired = required
        self.shownBy = shownBy
        self.doc = doc
        self.role = role
        self.decode = decode
        self.value = value
        let sent: @Sendable (Root, FlowSurfaces) -> FlowViewValue? =
            view ?? { root, _ in
                guard let v = value(root, FlowEncoding.view) else { return nil }
                if role == .content, case .string(let s) = v { return .content(s) }
                return .look(v)
            }
        if role == .logic {
            self.view = { _, _ in nil }
        } else {
            self.view = sent
        }
    }
}

/// Where a field's value stands: the object's path and the field's name (the path of the value
/// itself is formed only when a diagnostic or a nested object needs it).
struct FieldPlace {
    let parent: FlowPath
    let name: String

    /// The value's path.
    var path: FlowPath { parent.child(name) }
}

/// What writing needs beyond the value: how blocks are named, and the block kinds.
public struct FlowEncoding: Sendable {
    /// The id written for each node (index → id).
    let names: [String]
    /// The block kinds of the format being written.
    var blocks: [FlowBlockKind] = []
    /// Write values equal to their defaults too (a front end's view states every value).
    var keepsDefaults = false

    /// What a front end's view is written with: every value, no block names.
    static let view = FlowEncoding(names: [], blocks: [], keepsDefaults: true)

    /// The name of a node, or nil for none.
    func name(_ id: RocketNodeID?) -> String? {
        guard let id, id.rawValue >= 0, id.rawValue < names.count else { return nil }
        return names[id.rawValue]
    }
}

/// One JSON object of the format, with the value it reads into: its fields, the value an empty
/// object gives (so every default is stated once, here), and a rule over the whole object.
public struct FlowObject<Root: Sendable>: Sendable {
    /// Its name in the schema's `$defs`.
    public let name: String
    /// One sentence about it.
    public let doc: String
    /// The value of an object with none of its optional fields.
    let blank: Root
    /// The fields, in the order they are written.
    let fields: [FlowField<Root>]
    /// The fields' names, for matching keys in place.
    let names: [String]
    /// Each field's default, from `blank`.
    let defaults: [JSONValue?]
    /// Each field's reader, apart (a read then touches only the closure, not the whole entry).
    let decoders: [@Sendable (inout FlowDecoder, Int, FieldPlace, inout Root) -> Bool]
    /// Bit k set: field k is required.
    let requiredMask: UInt64

    /// Creates an object from its fields.
    init(_ name: String, doc: String, blank: Root, fields: [FlowField<Root>]) {
        self.name = name
        self.doc = doc
        self.blank = blank
        self.fields = fields
        precondition(fields.count <= 32, "an object of the flow format has at most 32 fields")
        self.names = fields.map(\.name)
        self.decoders = fields.map(\.decode)
        var mask: UInt64 = 0
        for (k, f) in fields.enumerated() where f.isRequired { mask |= 1 << k }
        self.requiredMask = mask
        let encoding = FlowEncoding(names: [], blocks: [])
        self.defaults = fields.map { $0.isRequired ? nil : $0.value(blank, encoding) }
    }

    /// The object as the schema and the reference state it.
    public var info: FlowObjectInfo {
        FlowObjectInfo(
            name: name, doc: doc,
            fields: fields.indices.map { i in
                let f = fields[i]
                return FlowFieldInfo(
                    name: f.name, type: f.type, isRequired: f.isRequired, defaultValue: defaults[i], shownBy: f.shownBy, doc: f.doc, role: f.role)
            }, exactlyOne: false)
    }

    /// The value written as members in field order, leaving out absent fields and defaults.
    func members(_ root: Root, _ encoding: FlowEncoding) -> [(String, JSONValue)] {
        var out: [(String, JSONValue)] = []
        out.reserveCapacity(fields.count)
        for (i, f) in fields.enumerated() {
            guard let v = f.value(root, encoding) else { continue }
            if !encoding.keepsDefaults, let d = defaults[i], d == v { continue }
            out.append((f.name, v))
        }
        return out
    }

    /// What a front end on `surface` is sent of `root`: the fields it draws, in table order.
    func view(_ root: Root, for surface: FlowSurfaces) -> [FlowViewMember] {
        var out: [FlowViewMember] = []
        out.reserveCapacity(fields.count)
        for f in fields where !f.shownBy.isDisjoint(with: surface) {
            if let v = f.view(root, surface) { out.append(FlowViewMember(name: f.name, value: v)) }
        }
        return out
    }

    /// A copy with one more field (tests show that an entry is all a field needs).
    func adding(_ field: FlowField<Root>) -> FlowObject<Root> {
        FlowObject(name, doc: doc, blank: blank, fields: fields + [field])
    }
}

/// One block kind of the format: its `type` word, its fields, and how it becomes a node.
public struct FlowBlockKind: Sendable {
    /// The kind (its raw value is the `type` word).
    public let kind: RocketBlockKind
    /// What the block does, in one sentence.
    public let doc: String
    /// The fields besides `id` and `type`.
    public let info: FlowObjectInfo
    let decode: @Sendable (inout FlowDecoder, _ object: Int, _ path: FlowPath) -> RocketNodeContent?
    let members: @Sendable (RocketNodeContent, FlowEncoding) -> [(String, JSONValue)]?
    /// What a front end on a surface is sent of a node of this kind (nil: another kind).
    let viewMembers: @Sendable (RocketNodeContent, FlowSurfaces) -> [FlowViewMember]?

    /// A kind whose node content is built from a `Node` value read by `object`.
    init<Node: Sendable>(
        _ kind: RocketBlockKind, doc: String, object: FlowObject<Node>,
        wrap: @escaping @Sendable (Node) -> RocketNodeContent, unwrap: @escaping @Sendable (RocketNodeContent) -> Node?
    ) {
        self.kind = kind
        self.doc = doc
        self.info = object.info
        let word = kind.rawValue
        let what = (word.first.map { "aeiou".contains($0) } ?? false ? "an " : "a ") + word + " block"
        self.what = what
        decode = { decoder, node, path in
            decoder.decodeObject(node, path: path, object, what: what, reserved: FlowFormat.blockHeader).map(wrap)
        }
        members = { content, encoding in unwrap(content).map { object.members($0, encoding) } }
        viewMembers = { content, surface in unwrap(content).map { object.view($0, for: surface) } }
    }

    /// "a text block", "an image block".
    let what: String
}

/// The two sides of a `doubleButton` block, as the table reads them.
struct ButtonPair: Sendable {
    var left = RocketButtonNode(title: "")
    var right = RocketButtonNode(title: "")
}

/// The flow format, stated once: every object, block kind and field, from which the loader,
/// the writer, the JSON Schema (``jsonSchema``) and the reference in docs/FLOW_FORMAT.md come.
///
/// ```swift
/// FlowFormat.v1.blocks.map(\.kind.rawValue)   // ["text", "image", "button", …]
/// print(FlowFormat.v1.jsonSchema.serialized())
/// ```
public struct FlowFormat: Sendable {
    /// The top-level object.
    let document: FlowObject<FlowDocument>
    /// The block kinds, in the order the reference lists them.
    public let blocks: [FlowBlockKind]
    /// The objects that have a name of their own (in the schema's `$defs` and the reference).
    public let objects: [FlowObjectInfo]

    /// The keys every block has before its kind's fields.
    static let blockHeader = ["id", "type"]

    /// The `type` words, in the order of ``blocks``.
    var blockWords: [String] { blocks.map(\.kind.rawValue) }

    /// The top-level object's fields.
    public var documentInfo: FlowObjectInfo { document.info }

    /// The block kind with this `type` word.
    func block(named word: String) -> FlowBlockKind? {
        blocks.first { $0.kind.rawValue == word }
    }

    /// The block kind of a node.
    func block(for kind: RocketBlockKind) -> FlowBlockKind? {
        blocks.first { $0.kind == kind }
    }

    /// What a front end on `surface` is sent of `node`'s fields (besides its id and kind): what it
    /// draws, named as flow files name it, from the table.
    public func view(of node: RocketNode, for surface: FlowSurfaces) -> [FlowViewMember] {
        block(for: node.kind)?.viewMembers(node.content, surface) ?? []
    }

    /// What a front end on `surface` is sent of the speaker.
    public func view(of author: RocketAuthor, for surface: FlowSurfaces) -> [FlowViewMember] {
        FlowFormat.author.view(author, for: surface)
    }

    /// What a front end on `surface` is sent of a close button.
    public func view(of closeButton: RocketCloseButton, for surface: FlowSurfaces) -> [FlowViewMember] {
        FlowFormat.closeButton.view(closeButton, for: surface)
    }

    /// A copy with one more field on one block kind's object (see ``FlowFormatV1``'s tests).
    func replacingBlock(_ kind: RocketBlockKind, with new: FlowBlockKind) -> FlowFormat {
        FlowFormat(document: document, blocks: blocks.map { $0.kind == kind ? new : $0 }, objects: objects)
    }
}
