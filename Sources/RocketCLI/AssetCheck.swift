import RocketBanners
import RocketConversation
import RocketCore
import RocketFlow
import RocketTerminal
import RocketTerminalCore
import RocketPlatform

/// What a flow names on disk must be there: every image file (the author's avatar, image
/// blocks, a banner's icon) exists relative to the flow file and decodes as PNG or JPEG within the
/// size limits. `rocket lint` and `rocket play` both run it, so lint catches what play trips on.
enum AssetCheck {
    /// The largest image file read (the decoded picture is bounded by `TerminalImage.maxPixels`).
    static let maxFileBytes = TerminalImage.maxFileBytes
    /// The most pixels across a page shows a picture at: the widget's frame is at most 576 CSS
    /// pixels wide, at up to 3 device pixels each. A larger picture is a warning: every
    /// visitor would download more than any screen shows.
    static let largestShown = 2048

    /// Problems with the files `doc` names, relative to the folder `base`.
    static func check(_ doc: FlowDocument, base: String) -> [FlowDiagnostic] {
        var out: [FlowDiagnostic] = []
        func check(_ image: RocketImage?, _ path: String) {
            guard case .file(let reference)? = image, !reference.hasPrefix("data:") else { return }
            if let problem = problem(with: reference, base: base) {
                out.append(FlowDiagnostic(severity: .error, code: "bad-image", message: problem, path: path))
            } else if let large = largeness(of: reference, base: base) {
                out.append(FlowDiagnostic(severity: .warning, code: "large-image", message: large, path: path))
            }
        }
        check(doc.author?.image, "author.image")
        for (i, node) in doc.graph.nodes.enumerated() {
            switch node.content {
            case .image(let img): check(img.image, "blocks[\(i)].image")
            case .button(let b): check(b.image, "blocks[\(i)].image")
            case .doubleButton(let l, let r):
                check(l.image, "blocks[\(i)].left.image")
                check(r.image, "blocks[\(i)].right.image")
            case .choice(let c):
                for (k, o) in c.options.enumerated() { check(o.image, "blocks[\(i)].options[\(k)].image") }
            default: break
            }
        }
        if case .image(let image)? = doc.banner?.icon { check(image, "banner.icon") }
        return out
    }

    /// The path `reference` names, relative to `base` unless it is absolute.
    static func path(of reference: String, base: String) -> String {
        reference.hasPrefix("/") || base.isEmpty ? reference : (base.hasSuffix("/") ? base : base + "/") + reference
    }

    /// Why the picture at `reference` (relative to `base`), which can be shown, is larger than
    /// any page shows it; nil when it is not (or cannot be read: ``problem(with:base:)`` says so).
    static func largeness(of reference: String, base: String) -> String? {
        guard case .success(let image) = TerminalImage.load(path: path(of: reference, base: base)),
            max(image.source.width, image.source.height) > largestShown
        else { return nil }
        let name = Sanitizer.clean(reference, keepNewlines: false)
        return "the image \"\(name)\" is \(image.source.width) × \(image.source.height) pixels; pages show a picture at most "
            + "\(largestShown) across, so visitors would download more than they see: make it smaller"
    }

    /// Why the image at `reference` (relative to `base`) cannot be shown, or nil when it can.
    static func problem(with reference: String, base: String) -> String? {
        let path = path(of: reference, base: base)
        let name = Sanitizer.clean(reference, keepNewlines: false)
        switch FileIO.size(path) {
        case .failure(let f): return "the image \"\(name)\" cannot be read: \(f.reason)"
        case .success(let size) where size > maxFileBytes: return "the image \"\(name)\" is \(size) bytes; the limit is \(maxFileBytes)"
        case .success: break
        }
        switch TerminalImage.load(path: path) {
        case .failure(let e) where e.unreadable: return "the image \"\(name)\" cannot be read: \(e.reason)"
        case .failure(let e): return "the image \"\(name)\" is not a PNG or JPEG picture: \(e.reason)"
        case .success: return nil
        }
    }
}
