/// Base64 (RFC 4648) without Foundation, for images carried inside flow files as data URIs.
///
/// ```swift
/// Base64.encode([1, 2, 3])          // "AQID"
/// Base64.decode("AQID")             // [1, 2, 3]
/// Base64.dataURI("data:image/png;base64,AQID")   // [1, 2, 3]
/// ```
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Encodes bytes with padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i < bytes.count {
            let b0 = bytes[i], b1 = i + 1 < bytes.count ? bytes[i + 1] : 0, b2 = i + 2 < bytes.count ? bytes[i + 2] : 0
            out.append(alphabet[Int(b0 >> 2)])
            out.append(alphabet[Int((b0 & 3) << 4 | b1 >> 4)])
            out.append(i + 1 < bytes.count ? alphabet[Int((b1 & 15) << 2 | b2 >> 6)] : UInt8(ascii: "="))
            out.append(i + 2 < bytes.count ? alphabet[Int(b2 & 63)] : UInt8(ascii: "="))
            i += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes base64 (white space ignored, padding optional); nil for any other character.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var values: [UInt8] = []
        values.reserveCapacity(text.utf8.count)
        for c in text.utf8 {
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): values.append(c - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): values.append(c - UInt8(ascii: "a") + 26)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): values.append(c - UInt8(ascii: "0") + 52)
            case UInt8(ascii: "+"): values.append(62)
            case UInt8(ascii: "/"): values.append(63)
            case UInt8(ascii: "="), 0x20, 0x0A, 0x0D, 0x09: continue
            default: return nil
            }
        }
        if values.count % 4 == 1 { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(values.count * 3 / 4)
        var i = 0
        while i + 1 < values.count {
            out.append(values[i] << 2 | values[i + 1] >> 4)
            if i + 2 < values.count { out.append(values[i + 1] << 4 | values[i + 2] >> 2) }
            if i + 3 < values.count { out.append(values[i + 2] << 6 | values[i + 3]) }
            i += 4
        }
        return out
    }

    /// The bytes of a `data:…;base64,…` URI, or nil when `text` is not one (or is malformed).
    public static func dataURI(_ text: String) -> [UInt8]? {
        guard text.hasPrefix("data:"), let comma = text.firstIndex(of: ","),
            text[..<comma].hasSuffix(";base64")
        else { return nil }
        return decode(text[text.index(after: comma)...])
    }

    /// A `data:` URI for bytes of the given media type.
    public static func dataURI(_ bytes: [UInt8], mediaType: String) -> String {
        "data:\(mediaType);base64," + encode(bytes)
    }
}

extension RocketImage {
    /// An image from a flow's `image` string: a data URI becomes bytes, anything else a file path.
    ///
    /// ```swift
    /// RocketImage(reference: "logo.png")                       // .file("logo.png")
    /// RocketImage(reference: "data:image/png;base64,iVBO…")    // .bytes([…])
    /// ```
    public init(reference: String) {
        if let bytes = Base64.dataURI(reference) { self = .bytes(bytes) } else { self = .file(reference) }
    }

    /// The flow-file form: the path, or a data URI for bytes (its media type told by their
    /// signature, PNG when none is known).
    public var reference: String {
        switch self {
        case .file(let p): return p
        case .bytes(let b): return Base64.dataURI(b, mediaType: (PictureFormat(signature: b) ?? .png).mediaType)
        }
    }
}
