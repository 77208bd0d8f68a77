import RocketScenarios
public import RocketJSON
import RocketConversation
import RocketCore
public import RocketBanners

extension FlowDocument {
    /// The document as JSON data in the flow format, fields in the documented order.
    ///
    /// ```swift
    /// let text = doc.jsonValue.serialized()
    /// let again = FlowLoader.load(text).document   // == doc
    /// ```
    public var jsonValue: JSONValue {
        var top: [(String, JSONValue)] = [("version", .number(Double(version)))]
        if let title { top.append(("title", .string(title))) }
        if let author {
            var a: [(String, JSONValue)] = []
            if let n = author.name { a.append(("name", .string(n))) }
            if let i = author.image { a.append(("image", .string(i))) }
            if let s = author.style { a.append(("style", .string(s.rawValue))) }
            top.append(("author", .object(a)))
        }
        if let close = closeButton {
            var c: [(String, JSONValue)] = [("title", .string(close.title))]
            if let f = close.font { c.append(("font", f.jsonValue)) }
            top.append(("closeButton", .object(c)))
        }
        if let start { top.append(("start", .string(start))) }
        if !variables.isEmpty { top.append(("variables", .array(variables.map { .string($0) }))) }
        if let scenario { top.append(("scenario", .string(scenario))) }
        if let when {
            var w: [(String, JSONValue)] = []
            func int(_ k: String, _ v: Int?) { if let v { w.append((k, .number(Double(v)))) } }
            func seconds(_ k: String, _ v: Double?) { if let v { w.append((k, .number(v))) } }
            int("minEventsRequired", when.minEventsRequired)
            int("maxEventsPermitted", when.maxEventsPermitted)
            int("maxExecutionsPermitted", when.maxExecutionsPermitted)
            seconds("minSecondsSinceFirstEvent", when.minSecondsSinceFirstEvent)
            seconds("minSecondsSinceLastEvent", when.minSecondsSinceLastEvent)
            seconds("minSecondsBetweenExecutions", when.minSecondsBetweenExecutions)
            if let e = when.minEventsInWindow {
                w.append(("minEventsInWindow", .object([("count", .number(Double(e.count))), ("window", .number(e.seconds))])))
            }
            if let b = when.budget {
                w.append(("budget", .object([("executions", .number(Double(b.executions))), ("window", .number(b.seconds))])))
            }
            if when.priority != 0 { int("priority", when.priority) }
            if let other = when.eventsOf { w.append(("eventsOf", .string(other))) }
            top.append(("when", .object(w)))
        }
        if let banner { top.append(("banner", banner.flowJSON)) }
        top.append(("blocks", .array(blocks.map(\.jsonValue))))
        return .object(top)
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

extension FlowFont {
    var jsonValue: JSONValue {
        switch self {
        case .preset(let name): return .string(name)
        case .custom(let f):
            var o: [(String, JSONValue)] = [
                ("size", .number(f.font.size)), ("weight", .string(f.font.weight.rawValue)),
                ("color", .string(f.color.hexString)),
            ]
            if let family = f.font.family { o.append(("family", .string(family))) }
            return .object(o)
        }
    }
}

extension FlowBlock {
    var jsonValue: JSONValue {
        var o: [(String, JSONValue)] = [("id", .string(id)), ("type", .string(content.kind.rawValue))]
        func add(_ key: String, _ v: String?) { if let v { o.append((key, .string(v))) } }
        func add(_ key: String, _ v: Double?) { if let v { o.append((key, .number(v))) } }
        func add(_ key: String, _ v: FlowFont?) { if let v { o.append((key, v.jsonValue)) } }
        func button(_ b: FlowButton) -> [(String, JSONValue)] {
            var bo: [(String, JSONValue)] = [("title", .string(b.title))]
            if let n = b.next { bo.append(("next", .string(n))) }
            if let a = b.action { bo.append(("action", .string(a))) }
            if let f = b.font { bo.append(("font", f.jsonValue)) }
            return bo
        }
        switch content {
        case .text(let text, let next, let delay, let font):
            add("text", text); add("next", next); add("showNextAfter", delay); add("font", font)
        case .image(let img):
            add("image", img.image); add("text", img.text); add("next", img.next); add("showNextAfter", img.showNextAfter)
            add("font", img.font); add("imageStyle", img.imageStyle?.rawValue)
            add("paddingLeft", img.paddingLeft); add("paddingRight", img.paddingRight)
        case .button(let b):
            o += button(b)
        case .doubleButton(let l, let r):
            o.append(("left", .object(button(l))))
            o.append(("right", .object(button(r))))
        case .choice(let text, let options, let font):
            add("text", text)
            o.append(("options", .array(options.map { .object(button($0)) })))
            add("font", font)
        case .textInput(let input):
            add("text", input.text); add("buttonTitle", input.buttonTitle)
            if input.secret { o.append(("secret", .bool(true))) }
            add("placeholder", input.placeholder)
            if let v = input.validate {
                var vo: [(String, JSONValue)] = []
                if v.required { vo.append(("required", .bool(true))) }
                if let m = v.minLength { vo.append(("minLength", .number(Double(m)))) }
                if let m = v.maxLength { vo.append(("maxLength", .number(Double(m)))) }
                if let p = v.pattern { vo.append(("pattern", .string(p))) }
                if let m = v.message { vo.append(("message", .string(m))) }
                o.append(("validate", .object(vo)))
            }
            if !input.branches.isEmpty {
                o.append(
                    (
                        "branches",
                        .array(
                            input.branches.map { b in
                                let when: JSONValue
                                switch b.when {
                                case .equals(let s): when = .object([("equals", .string(s))])
                                case .pattern(let p): when = .object([("matches", .string(p))])
                                case .empty: when = .object([("empty", .bool(true))])
                                }
                                var bo: [(String, JSONValue)] = [("when", when)]
                                if let n = b.next { bo.append(("next", .string(n))) }
                                return .object(bo)
                            })
                    ))
            }
            add("next", input.next); add("font", input.font); add("buttonStyle", input.buttonStyle)
        }
        return .object(o)
    }
}
