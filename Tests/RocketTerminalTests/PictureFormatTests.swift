import CTestSupport
import Foundation
import RocketCore
import RocketPlatform
import Testing

@testable import RocketTerminal
import RocketTerminalCore

/// Headers read for a picture's format and size (what the server tells a page before the
/// picture arrives), held to what the decoder finds in the same files.
@Suite("A picture's format and size from its header")
struct PictureFormatTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("examples").path

    /// A JPEG of `width` × `height` encoded by libjpeg.
    static func jpeg(width: Int, height: Int) -> [UInt8] {
        let rgb = [UInt8](repeating: 128, count: width * height * 3)
        var out: UnsafeMutablePointer<UInt8>?
        let size = rocket_test_jpeg(rgb, Int32(width), Int32(height), &out)
        defer { free(out) }
        return Array(UnsafeBufferPointer(start: out, count: Int(max(0, size))))
    }

    @Test("the examples' PNGs and libjpeg's JPEGs: the header's size is the size the decoder finds")
    func agreesWithTheDecoder() throws {
        for name in ["rocket-logo.png", "rocket-picture.png"] {
            let bytes = try FileIO.read(Self.examples + "/" + name).get()
            let image = try TerminalImage.decode(bytes).get()
            #expect(PictureFormat(signature: bytes) == .png)
            #expect(PictureFormat.size(of: bytes) == PictureSize(width: image.source.width, height: image.source.height), "\(name)")
        }
        for (w, h) in [(1, 1), (16, 9), (300, 1000), (2049, 17)] {
            let bytes = Self.jpeg(width: w, height: h)
            #expect(PictureFormat(signature: bytes) == .jpeg)
            let image = try TerminalImage.decode(bytes).get()
            #expect(image.source == (w, h))
            #expect(PictureFormat.size(of: bytes) == PictureSize(width: w, height: h), "\(w) × \(h)")
        }
    }

    @Test("a JPEG's metadata segments before its frame are skipped, a progressive frame is read, fill bytes are passed over")
    func jpegSegments() throws {
        let plain = Self.jpeg(width: 40, height: 30)
        // A 60 KiB Exif segment and a colour profile between the start and the rest.
        let exif: [UInt8] = [0xFF, 0xE1, 0xF0, 0x02] + [UInt8](repeating: 0x45, count: 0xF000)
        let icc: [UInt8] = [0xFF, 0xE2, 0x00, 0x10] + [UInt8](repeating: 0xFF, count: 14)
        let padded = Array(plain.prefix(2)) + exif + icc + [0xFF, 0xFF] + Array(plain.dropFirst(2))
        #expect(PictureFormat.size(of: padded) == PictureSize(width: 40, height: 30))
        #expect(try TerminalImage.decode(padded).get().source == (40, 30), "libjpeg reads the same file")
        // A progressive frame (SOF2), written by hand: 500 across, 7 down.
        let progressive: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC2, 0x00, 0x11, 0x08, 0x00, 0x07, 0x01, 0xF4, 0x03] + [UInt8](repeating: 0, count: 9)
        #expect(PictureFormat.size(of: progressive) == PictureSize(width: 500, height: 7))
        // A Huffman table (C4) is not a frame, though its marker sits among them.
        let table: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC4, 0x00, 0x07, 1, 2, 3, 4, 5] + [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00, 0x02, 0x00, 0x03] + [0, 0, 0]
        #expect(PictureFormat.size(of: table) == PictureSize(width: 3, height: 2))
    }

    @Test("GIF and the three forms of WebP, by their specifications' layouts")
    func gifAndWebP() {
        let gif: [UInt8] = Array("GIF89a".utf8) + [0x2C, 0x01, 0xC8, 0x00] + [0, 0, 0]
        #expect(PictureFormat(signature: gif) == .gif && PictureFormat.size(of: gif) == PictureSize(width: 300, height: 200))
        func riff(_ chunk: String, _ body: [UInt8]) -> [UInt8] {
            Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8) + Array(chunk.utf8) + [UInt8(body.count), 0, 0, 0] + body
        }
        // Lossy: frame tag, start code, then 14-bit width and height (the top two bits scale).
        let lossy = riff("VP8 ", [0, 0, 0, 0x9D, 0x01, 0x2A, 0x80, 0x02, 0xE0, 0xC1] + [UInt8](repeating: 0, count: 8))
        #expect(PictureFormat(signature: lossy) == .webp && PictureFormat.size(of: lossy) == PictureSize(width: 640, height: 480))
        // Lossless: 0x2F, then width − 1 and height − 1 in 14 bits each, least significant first.
        let bits = UInt32(99) | UInt32(49) << 14
        let lossless = riff(
            "VP8L", [0x2F, UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24)] + [UInt8](repeating: 0, count: 8))
        #expect(PictureFormat.size(of: lossless) == PictureSize(width: 100, height: 50))
        // Extended: flags, then the canvas's width − 1 and height − 1 in 24 bits each.
        let extended = riff("VP8X", [0x10, 0, 0, 0, 0x1F, 0x03, 0x00, 0x0F, 0x00, 0x00] + [UInt8](repeating: 0, count: 8))
        #expect(PictureFormat.size(of: extended) == PictureSize(width: 800, height: 16))
        #expect(PictureFormat.allCases.map(\.mediaType) == ["image/png", "image/jpeg", "image/gif", "image/webp"])
    }

    @Test("what is no picture, is cut short or states a size of nothing or too much has no size, and reading it stops")
    func hostile() {
        let png = try? FileIO.read(Self.examples + "/rocket-logo.png").get()
        for cut in [0, 8, 16, 23] { #expect(PictureFormat.size(of: Array((png ?? []).prefix(cut))) == nil, "\(cut) bytes") }
        var zero = png ?? []
        zero.replaceSubrange(16..<20, with: [0, 0, 0, 0])
        #expect(PictureFormat.size(of: zero) == nil, "no width")
        var huge = png ?? []
        huge.replaceSubrange(16..<20, with: [0x7F, 0xFF, 0xFF, 0xFF])
        #expect(PictureFormat.size(of: huge) == nil, "2³¹ − 1 across is not believed")
        let jpeg = Self.jpeg(width: 8, height: 8)
        for cut in [3, 4, 6, 20] { #expect(PictureFormat.size(of: Array(jpeg.prefix(cut))) == nil, "JPEG of \(cut) bytes") }
        // A segment of length 0 or 1 would never move on; a scan before any frame has no size.
        #expect(PictureFormat.size(of: [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x00, 0xFF, 0xC0]) == nil)
        #expect(PictureFormat.size(of: [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01, 0xFF, 0xC0]) == nil)
        #expect(PictureFormat.size(of: [0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x08] + [UInt8](repeating: 0, count: 20)) == nil)
        #expect(PictureFormat.size(of: [0xFF, 0xD8, 0xFF] + [UInt8](repeating: 0xFF, count: 100_000)) == nil, "fill bytes to the end")
        for junk in [Array("GIF8".utf8), Array("<svg>".utf8), Array("RIFF....WAVE".utf8), [0x89, 0x50, 0x4E, 0x47], []] {
            #expect(PictureFormat(signature: junk) == nil && PictureFormat.size(of: junk) == nil, "\(junk)")
        }
    }

    @Test("a header is read in the first 16 KiB, and further only for a JPEG whose frame comes later")
    func headerReads() {
        func reads(_ file: [UInt8]) -> (counts: [Int], size: PictureSize?) {
            var counts: [Int] = []
            let head = PictureFormat.header { count in
                counts.append(count)
                return Array(file.prefix(count))
            }
            return (counts, head.flatMap(PictureFormat.size(of:)))
        }
        let png = (try? FileIO.read(Self.examples + "/rocket-logo.png").get()) ?? []
        #expect(reads(png + [UInt8](repeating: 0, count: 40_000)) == ([PictureFormat.firstHeaderBytes], PictureSize(width: 48, height: 48)))
        let plain = Self.jpeg(width: 40, height: 30)
        #expect(reads(plain + [UInt8](repeating: 0, count: 40_000)) == ([PictureFormat.firstHeaderBytes], PictureSize(width: 40, height: 30)))
        let exif: [UInt8] = [0xFF, 0xE1, 0xF0, 0x02] + [UInt8](repeating: 0x45, count: 0xF000)
        let late = Array(plain.prefix(2)) + exif + Array(plain.dropFirst(2))
        #expect(reads(late) == ([PictureFormat.firstHeaderBytes, PictureFormat.headerBytes], PictureSize(width: 40, height: 30)))
        // A short file is read once, whatever it is; one that cannot be read has no header.
        #expect(reads(Array(late.prefix(100))).counts == [PictureFormat.firstHeaderBytes])
        #expect(PictureFormat.header { _ in nil } == nil)
    }

    @Test("a header is read from the start of a file inside a folder, however large the file, never through a link or from a FIFO")
    func head() throws {
        let dir = NSTemporaryDirectory() + "rocket-head-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let big = Self.jpeg(width: 20, height: 10) + [UInt8](repeating: 0, count: 3 << 20)
        try Data(big).write(to: URL(fileURLWithPath: dir + "/big.jpg"))
        let head = try FileIO.head(inside: dir, "big.jpg", count: PictureFormat.headerBytes).get()
        #expect(head.count == PictureFormat.headerBytes && PictureFormat.size(of: head) == PictureSize(width: 20, height: 10))
        #expect(try FileIO.head(inside: dir, "big.jpg", count: 5).get() == Array(big.prefix(5)))
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: dir + "/short"))
        #expect(try FileIO.head(inside: dir, "short", count: 100).get() == [1, 2, 3])
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.jpg", withDestinationPath: dir + "/big.jpg")
        #expect(throws: FileIO.Failure.self) { try FileIO.head(inside: dir, "link.jpg", count: 10).get() }
        #expect(mkfifo(dir + "/pipe.png", 0o600) == 0)
        #expect(throws: FileIO.Failure.self) { try FileIO.head(inside: dir, "pipe.png", count: 10).get() }
        #expect(throws: FileIO.Failure.self) { try FileIO.head(inside: dir, "../big.jpg", count: 10).get() }
    }
}
