import RocketBanners
import RocketConversation
import RocketCore
import RocketFlow
import RocketTerminal
import RocketTerminalCore
import RocketPlatform

/// What a flow names on disk must be there: every image file (the author's avatar, image
/// blocks, a banner's icon) exists relative to the flow file and decodes as PNG or JPEG within the
/// size limits. `rocket lint` and `rocket play` both run it, so lint catches what play trips on:
/// lint decodes every picture; play reads only their headers (a flow of many large photos starts
/// at once, and a run that draws no picture decodes none), and decodes each when it is drawn.
enum AssetCheck {
    /// The largest image file read (the decoded picture is bounded by `TerminalImage.maxPixels`).
    static let maxFileBytes = TerminalImage.maxFileBytes
    /// The most pixels across a page shows a picture at: the widget's frame is at most 576 CSS
    /// pixels wide, at up to 3 device pixels each. A larger picture is a warning: every
    /// visitor would download more than any screen shows.
    static let largestShown = 2048

    /// Problems with the files `doc` names, relative to the folder `base`: found by decoding
    /// each, or with `decoding` false by its header alone (a damaged picture with a sound header
    /// passes, and is drawn as its caption).
    static func check(_ doc: FlowDocument, base: String, decoding: Bool = true) -> [FlowDiagnostic] {
        var out: [FlowDiagnostic] = []
        func check(_ image: RocketImage?, _ path: String) {
            let found: Result<String?, FileIO.Failure>
            switch image {
            case nil: return
            case .file(let reference)? where reference.hasPrefix("data:"): return  // a data: URI that is no base64: the loader says so
            case .file(let reference)?: found = look(at: reference, base: base, decoding: decoding)
            case .bytes(let bytes)?: found = look(bytes: bytes, decoding: decoding)
            }
            switch found {
            case .failure(let problem): out.append(FlowDiagnostic(severity: .error, code: "bad-image", message: problem.reason, path: path))
            case .success(let large?): out.append(FlowDiagnostic(severity: .warning, code: "large-image", message: large, path: path))
            case .success(nil): break
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

    /// The scheme of `reference` when it is written as an address (`https://…`), else nil.
    static func webScheme(_ reference: String) -> String? {
        guard let end = reference.range(ofText: "://"), reference.startIndex < end.lowerBound else { return nil }
        let scheme = reference[..<end.lowerBound]
        guard scheme.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)) })
        else { return nil }
        return scheme.lowercased()
    }

    /// The path `reference` names, relative to `base` unless it is absolute.
    static func path(of reference: String, base: String) -> String {
        reference.hasPrefix("/") || base.isEmpty ? reference : (base.hasSuffix("/") ? base : base + "/") + reference
    }

    /// Why the image at `reference` (relative to `base`) cannot be shown, or nil when it can.
    static func problem(with reference: String, base: String) -> String? {
        if case .failure(let problem) = look(at: reference, base: base) { return problem.reason }
        return nil
    }

    /// The image at `reference` (relative to `base`), read and decoded once (or, with
    /// `decoding` false, its header read): why it cannot be shown (failure), or why it is larger
    /// than any page shows it (success; nil when it is not).
    static func look(at reference: String, base: String, decoding: Bool = true) -> Result<String?, FileIO.Failure> {
        let path = path(of: reference, base: base)
        let name = Sanitizer.clean(reference, keepNewlines: false)
        func refused(_ why: String) -> Result<String?, FileIO.Failure> { .failure(FileIO.Failure(reason: "the image \"\(name)\" " + why)) }
        // A web address is fetched by nothing: neither the terminal nor the widget (which shows
        // only the server's files and data: URIs) would draw it.
        if let scheme = webScheme(reference) {
            return refused(
                "is a web address (\(scheme)); a flow's pictures are files beside it or data: URIs: save the picture next to the flow and name the file"
            )
        }
        switch FileIO.size(path) {
        case .failure(let f): return refused("cannot be read: \(f.reason)")
        case .success(let size) where size > maxFileBytes: return refused("is \(size) bytes; the limit is \(maxFileBytes)")
        case .success: break
        }
        return judge(
            "the image \"\(name)\"", decoding: decoding, decoded: { TerminalImage.load(path: path) },
            head: {
                var failure = FileIO.Failure(reason: "cannot be read")
                let bytes = PictureFormat.header { count in
                    switch FileIO.head(path, count: count) {
                    case .success(let read): return read
                    case .failure(let f):
                        failure = f
                        return nil
                    }
                }
                return bytes.map { .success($0) } ?? .failure(failure)
            })
    }

    /// The picture of a `data:` URI, judged as ``look(at:base:decoding:)`` judges a file.
    static func look(bytes: [UInt8], decoding: Bool = true) -> Result<String?, FileIO.Failure> {
        judge(
            "the image (a data: URI)", decoding: decoding, decoded: { TerminalImage.decode(bytes) },
            head: { .success(Array(bytes.prefix(PictureFormat.headerBytes))) })
    }

    /// What is wrong with the picture called `name`, said by what it is: no picture at all, a
    /// picture a browser draws but a flow may not name, or a PNG or JPEG the decoder refused (and
    /// why, its first bytes (`head`) saying what it is); with `decoding` false, its header alone
    /// is judged. Success: why it is larger than pages show (nil when it is not).
    private static func judge(
        _ name: String, decoding: Bool, decoded: () -> Result<TerminalImage, ImageError>, head: () -> Result<[UInt8], FileIO.Failure>
    ) -> Result<String?, FileIO.Failure> {
        func refused(_ why: String) -> Result<String?, FileIO.Failure> { .failure(FileIO.Failure(reason: name + " " + why)) }
        func formatProblem(_ bytes: [UInt8]) -> Result<String?, FileIO.Failure>? {
            switch PictureFormat(signature: bytes) {
            case nil: return refused("is not a PNG or JPEG picture")
            case let format? where format != .png && format != .jpeg:
                return refused("is a \(format.name) picture; a flow's pictures are PNG or JPEG files (the terminal draws no other)")
            default: return nil
            }
        }
        let source: (width: Int, height: Int)
        if decoding {
            switch decoded() {
            case .failure(let e) where e.unreadable: return refused("cannot be read: \(e.reason)")
            case .failure(let e):
                switch head() {
                case .failure(let f): return refused("cannot be read: \(f.reason)")
                case .success(let bytes):
                    return formatProblem(bytes) ?? refused("is a \(PictureFormat(signature: bytes)?.name ?? "picture") that cannot be decoded: \(e.reason)")
                }
            case .success(let loaded): source = loaded.source
            }
        } else {
            let bytes: [UInt8]
            switch head() {
            case .failure(let f): return refused("cannot be read: \(f.reason)")
            case .success(let read): bytes = read
            }
            if let problem = formatProblem(bytes) { return problem }
            let format = PictureFormat(signature: bytes)?.name ?? "picture"
            guard let size = PictureFormat.size(of: bytes) else { return refused("is a \(format) whose header states no size") }
            guard size.width * size.height <= TerminalImage.maxPixels else {
                return refused("is a \(format) of \(size.width) × \(size.height) pixels; the most a picture may have is \(TerminalImage.maxPixels) pixels")
            }
            source = (size.width, size.height)
        }
        guard max(source.width, source.height) > largestShown else { return .success(nil) }
        return .success(
            "\(name) is \(source.width) × \(source.height) pixels; pages show a picture at most "
                + "\(largestShown) across, so visitors would download more than they see: make it smaller")
    }
}
