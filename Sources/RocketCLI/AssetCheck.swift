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

    /// Problems with the files `doc` names, relative to the folder `base`.
    static func check(_ doc: FlowDocument, base: String) -> [FlowDiagnostic] {
        var out: [FlowDiagnostic] = []
        func check(_ image: RocketImage?, _ path: String) {
            guard case .file(let reference)? = image, !reference.hasPrefix("data:") else { return }
            if let problem = problem(with: reference, base: base) {
                out.append(FlowDiagnostic(severity: .error, code: "bad-image", message: problem, path: path))
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

    /// Why the image at `reference` (relative to `base`) cannot be shown, or nil when it can.
    static func problem(with reference: String, base: String) -> String? {
        let path = reference.hasPrefix("/") || base.isEmpty ? reference : (base.hasSuffix("/") ? base : base + "/") + reference
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
