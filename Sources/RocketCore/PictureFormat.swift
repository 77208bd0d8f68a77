/// The formats a picture may come in (a flow's pictures, the files the server serves beside a
/// flow), told apart by their first bytes, never by a file's name.
///
/// ```swift
/// PictureFormat(signature: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])   // .png
/// PictureFormat.png.mediaType                                                 // "image/png"
/// PictureFormat.size(of: pngBytes)                                            // 48 × 48
/// ```
package enum PictureFormat: String, Sendable, CaseIterable {
    /// PNG.
    case png
    /// JPEG (JFIF or Exif).
    case jpeg
    /// GIF (87a or 89a).
    case gif
    /// WebP (lossy, lossless or extended).
    case webp

    /// The first bytes ``size(of:)`` needs at most: a JPEG's size follows its metadata segments
    /// (each at most 64 KiB; an Exif block and a colour profile fit well within this).
    package static let headerBytes = 256 * 1024

    /// The bytes to read first: enough for every format's size but a JPEG with large metadata.
    package static let firstHeaderBytes = 16 * 1024

    /// The first bytes of a picture that ``size(of:)`` needs, read through `read` (the first
    /// `count` bytes of the file, fewer when it is shorter; nil when it cannot be read):
    /// ``firstHeaderBytes``, and up to ``headerBytes`` only for a JPEG whose size comes later.
    package static func header(_ read: (Int) -> [UInt8]?) -> [UInt8]? {
        guard let first = read(firstHeaderBytes) else { return nil }
        guard first.count == firstHeaderBytes, size(of: first) == nil, PictureFormat(signature: first) == .jpeg else { return first }
        return read(headerBytes) ?? first
    }

    /// The largest width or height believed: a header stating more is treated as malformed.
    package static let largestSide = 65_535

    /// The format of the encoded picture that begins with `bytes`, or nil when it is none of these.
    package init?(signature bytes: some Collection<UInt8>) {
        let b = Array(bytes.prefix(12))
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if b.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if b.starts(with: Array("GIF87a".utf8)) || b.starts(with: Array("GIF89a".utf8)) {
            self = .gif
        } else if b.count == 12, b.starts(with: Array("RIFF".utf8)), Array(b[8..<12]) == Array("WEBP".utf8) {
            self = .webp
        } else {
            return nil
        }
    }

    /// Its name, as people write it in a message.
    package var name: String {
        switch self {
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .gif: "GIF"
        case .webp: "WebP"
        }
    }

    /// The media type a browser is told (`Content-Type`, a `data:` URI).
    package var mediaType: String { "image/" + rawValue }

    /// The width and height in pixels that the header at the start of `bytes` states, or nil
    /// when `bytes` is no picture of these formats, is cut short before the size, or states a
    /// size of nothing or above ``largestSide``. Reads only the header: the picture itself may
    /// still be damaged.
    package static func size(of bytes: [UInt8]) -> PictureSize? {
        guard let format = PictureFormat(signature: bytes) else { return nil }
        let found: (Int, Int)?
        switch format {
        case .png:
            // The first chunk is IHDR: its width and height, big-endian, at 16 and 20.
            found = bytes.count >= 24 && Array(bytes[12..<16]) == Array("IHDR".utf8) ? (bytes.big(16, 4), bytes.big(20, 4)) : nil
        case .gif:
            found = bytes.count >= 10 ? (bytes.little(6, 2), bytes.little(8, 2)) : nil
        case .webp:
            found = webpSize(bytes)
        case .jpeg:
            found = jpegSize(bytes)
        }
        guard let (w, h) = found, (1...largestSide).contains(w), (1...largestSide).contains(h) else { return nil }
        return PictureSize(width: w, height: h)
    }

    /// A WebP's canvas: the first chunk says which of its three forms it is.
    private static func webpSize(_ b: [UInt8]) -> (Int, Int)? {
        guard b.count >= 30 else { return nil }
        switch String(decoding: b[12..<16], as: UTF8.self) {
        case "VP8 ":  // lossy: a key frame's start code, then 14-bit sizes
            guard b[23] == 0x9D, b[24] == 0x01, b[25] == 0x2A else { return nil }
            return (b.little(26, 2) & 0x3FFF, b.little(28, 2) & 0x3FFF)
        case "VP8L":  // lossless: a signature byte, then 14 bits each of size minus one
            guard b[20] == 0x2F else { return nil }
            let bits = b.little(21, 4)
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        case "VP8X":  // extended: 24 bits each of canvas size minus one
            return (b.little(24, 3) + 1, b.little(27, 3) + 1)
        default:
            return nil
        }
    }

    /// A JPEG's size, from its first start-of-frame segment; the segments before it are
    /// skipped by their lengths.
    private static func jpegSize(_ b: [UInt8]) -> (Int, Int)? {
        var at = 2
        while at + 1 < b.count {
            guard b[at] == 0xFF else { return nil }
            let marker = b[at + 1]
            if marker == 0xFF {  // fill bytes before a marker
                at += 1
                continue
            }
            at += 2
            switch marker {
            case 0x01, 0xD0...0xD7: continue  // markers without a segment
            case 0xD9, 0xDA: return nil  // the end, or the scan: no frame came first
            default: break
            }
            guard at + 2 <= b.count else { return nil }
            let length = b.big(at, 2)
            guard length >= 2 else { return nil }
            let isFrame = (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
            if isFrame {
                // length (2), precision (1), height (2), width (2)
                guard at + 7 <= b.count else { return nil }
                return (b.big(at + 5, 2), b.big(at + 3, 2))
            }
            at += length
        }
        return nil
    }
}

/// A picture's width and height in pixels, as its header states them.
package struct PictureSize: Hashable, Sendable {
    /// Pixels across.
    package let width: Int
    /// Pixels down.
    package let height: Int

    /// A size of `width` × `height` pixels.
    package init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

extension [UInt8] {
    /// The unsigned number in `count` bytes at `at`, most significant first (the caller has
    /// checked they are there).
    fileprivate func big(_ at: Int, _ count: Int) -> Int {
        self[at..<at + count].reduce(0) { $0 << 8 | Int($1) }
    }

    /// The unsigned number in `count` bytes at `at`, least significant first.
    fileprivate func little(_ at: Int, _ count: Int) -> Int {
        self[at..<at + count].reversed().reduce(0) { $0 << 8 | Int($1) }
    }
}
