import RocketScenarioEngine
public import RocketJSON
import RocketConversation
import RocketCore
public import RocketBanners

extension FlowDocument {
    /// The document as JSON data in the flow format: fields in the table's order, defaults left
    /// out (so a file written once is written again the same).
    ///
    /// ```swift
    /// let text = doc.jsonValue.serialized()
    /// let again = FlowLoader.load(text).document   // == doc
    /// ```
    public var jsonValue: JSONValue { jsonValue(format: .v1) }

    /// ``jsonValue`` through a given table (tests pass a changed one).
    func jsonValue(format: FlowFormat) -> JSONValue {
        .object(format.document.members(self, FlowEncoding(names: blockNames, blocks: format.blocks)))
    }

    /// The id written for each block: its own, else `block-1`, `block-2`, … (skipping ids in use).
    var blockNames: [String] {
        var names = graph.nodes.map { $0.id ?? "" }
        guard names.contains(where: \.isEmpty) else { return names }
        var used = Set(names)
        var counter = 0
        for k in names.indices where names[k].isEmpty {
            repeat { counter += 1 } while used.contains("block-\(counter)")
            names[k] = "block-\(counter)"
            used.insert(names[k])
        }
        return names
    }
}

extension Banner {
    /// The banner as a flow file's `"banner"` object (defaults left out), the form `rocket serve`
    /// also sends to the web widget.
    ///
    /// ```swift
    /// Banner(title: "Saved").flowJSON.serialized(pretty: false)   // {"title":"Saved"}
    /// ```
    public var flowJSON: JSONValue {
        var b: [(String, JSONValue)] = [("title", .string(title))]
        if let s = subtitle { b.append(("subtitle", .string(s))) }
        switch icon {
        case .text(let t)?: b.append(("icon", .string(t)))
        case .image(let img)?: b.append(("icon", .string(img.reference)))
        case nil: break
        }
        if let c = backgroundColor { b.append(("color", .string(c.hexString))) }
        if titleColor != .white { b.append(("titleColor", .string(titleColor.hexString))) }
        if subtitleColor != .white { b.append(("subtitleColor", .string(subtitleColor.hexString))) }
        switch buttons {
        case .none: break
        case .close: b.append(("buttons", .string("close")))
        default: b.append(("buttons", .array(buttons.items.map { .string($0.title) })))
        }
        if duration != 0 { b.append(("duration", .number(duration))) }
        if animationType != .linear { b.append(("animation", .string(animationType.rawValue))) }
        if !backgroundTapsEnabled { b.append(("backgroundTaps", .bool(false))) }
        if !swipeToDismissEnabled { b.append(("swipe", .bool(false))) }
        if fullWidthMessages { b.append(("fullWidth", .bool(true))) }
        return .object(b)
    }
}
