import CImageCodecs
import CTestSupport
import Foundation
import Testing
import RocketTestSupport
import RocketText
@testable import RocketTerminal
@testable import RocketTerminalApps
@testable import RocketTerminalCore

import RocketConversation
import RocketCore

@Suite("Pictures as half-block cells")
struct ImageTests {
    static let logoPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("examples/rocket-logo.png").path

    @Test("A PNG file decodes with its size and pixels")
    func png() throws {
        let image = try TerminalImage.load(path: Self.logoPath).get()
        #expect(image.width == 48 && image.height == 48)
        // The corner is transparent (the logo is a disc); the centre is opaque.
        #expect(image.pixels[3] == 0)
        #expect(image.pixels[(24 * 48 + 24) * 4 + 3] == 255)
    }

    @Test("A JPEG decodes to the colours it was encoded from")
    func jpeg() throws {
        var rgb: [UInt8] = []
        for y in 0..<16 { for _ in 0..<16 { rgb += y < 8 ? [250, 20, 20] : [20, 20, 250] } }
        var out: UnsafeMutablePointer<UInt8>?
        let size = rocket_test_jpeg(rgb, 16, 16, &out)
        defer { free(out) }
        #expect(size > 0)
        let bytes = Array(UnsafeBufferPointer(start: out, count: Int(size)))
        let image = try TerminalImage.decode(bytes).get()
        #expect(image.width == 16 && image.height == 16)
        let cells = image.cells(columns: 1, rows: 1, style: .square)
        guard case .rgb(let r, _, let b) = cells[0][0].style.foreground, case .rgb(let r2, _, let b2) = cells[0][0].style.background else {
            Issue.record("expected truecolour cells"); return
        }
        #expect(r > 200 && b < 60)  // top half red
        #expect(r2 < 60 && b2 > 200)  // bottom half blue
        #expect(cells[0][0].text == "▀")
    }

    @Test("A picture larger than what is drawn is kept within 512 × 64 pixels, its aspect and colours kept; a JPEG is decoded smaller")
    func keptSmall() throws {
        var rgb: [UInt8] = []
        rgb.reserveCapacity(2048 * 1024 * 3)
        for y in 0..<1024 { for _ in 0..<2048 { rgb += y < 512 ? [250, 20, 20] : [20, 20, 250] } }
        var out: UnsafeMutablePointer<UInt8>?
        let size = rocket_test_jpeg(rgb, 2048, 1024, &out)
        defer { free(out) }
        let bytes = Array(UnsafeBufferPointer(start: out, count: Int(size)))
        let image = try TerminalImage.decode(bytes).get()
        #expect(TerminalImage.keptHeight == 64 && image.width == 128 && image.height == 64 && image.pixels.count == 128 * 64 * 4)
        #expect(image.source == (2048, 1024), "the file's own size is kept: \(image.source)")
        // The JPEG itself came out of libjpeg smaller (its DCT scaling: 1/2, 1/4, 1/8), never
        // smaller than what is kept of it.
        for (keep, side) in [((512, 64), 256), ((0, 0), 2048), ((512, 512), 512), ((1024, 1024), 1024), ((4096, 4096), 2048)] {
            var pixels: UnsafeMutablePointer<UInt8>?
            var w: Int32 = 0, h: Int32 = 0, sw: Int32 = 0, sh: Int32 = 0
            var message = [CChar](repeating: 0, count: 200)
            #expect(
                rocket_image_decode(bytes, bytes.count, TerminalImage.maxPixels, keep.0, keep.1, &pixels, &w, &h, &sw, &sh, &message, message.count) == 0)
            rocket_image_free(pixels)
            #expect(Int(w) == side && Int(h) == side / 2 && sw == 2048 && sh == 1024, "keep \(keep): \(w) × \(h) of \(sw) × \(sh)")
        }
        #expect(TerminalImage.keptSize(width: 4096, height: 4096) == (64, 64) && TerminalImage.keptSize(width: 40, height: 30) == (40, 30))
        let cells = image.cells(columns: 1, rows: 1, style: .square)
        guard case .rgb(let r, _, let b) = cells[0][0].style.foreground, case .rgb(let r2, _, let b2) = cells[0][0].style.background else {
            Issue.record("expected truecolour cells")
            return
        }
        #expect(r > 200 && b < 60 && r2 < 60 && b2 > 200)
        // A long thin one keeps at least a pixel across; one within the bound is kept whole.
        let thin = [UInt8](repeating: 200, count: 5000 * 3 * 4)
        let kept = thin.withUnsafeBufferPointer { TerminalImage.scaledDown($0, width: 5000, height: 3) }
        #expect(kept.width == 512 && kept.height == 1 && kept.pixels.allSatisfy { $0 == 200 })
        let small = [UInt8](repeating: 7, count: 512 * 20 * 4)
        let same = small.withUnsafeBufferPointer { TerminalImage.scaledDown($0, width: 512, height: 20) }
        #expect(same.width == 512 && same.height == 20 && same.pixels == small)
    }

    /// `pixels` (`channels` a pixel) as a PNG's bytes.
    static func png(_ pixels: [UInt8], width: Int, height: Int, channels: Int, interlaced: Bool = false) throws -> [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        let size = rocket_test_png(pixels, Int32(width), Int32(height), Int32(channels), interlaced ? 1 : 0, &out)
        defer { free(out) }
        try #require(size > 0)
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }

    /// `bytes` decoded by the codec, kept within `keep` (0 × 0: whole): its RGBA, size and the file's size.
    static func decoded(_ bytes: [UInt8], keep: (Int, Int)) throws -> (pixels: [UInt8], width: Int, height: Int, source: (Int, Int)) {
        var pixels: UnsafeMutablePointer<UInt8>?
        var w: Int32 = 0, h: Int32 = 0, sw: Int32 = 0, sh: Int32 = 0
        var message = [CChar](repeating: 0, count: 200)
        let status = rocket_image_decode(bytes, bytes.count, TerminalImage.maxPixels, keep.0, keep.1, &pixels, &w, &h, &sw, &sh, &message, message.count)
        defer { rocket_image_free(pixels) }
        try #require(status == 0, "\(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        return (Array(UnsafeBufferPointer(start: pixels, count: Int(w) * Int(h) * 4)), Int(w), Int(h), (Int(sw), Int(sh)))
    }

    /// The most a channel of `kept` differs from the mean of its `factor` × `factor` block of
    /// `whole` (a block at the right or bottom edge may be smaller).
    static func worstBlock(whole: [UInt8], width: Int, height: Int, kept: [UInt8], keptWidth: Int, factor f: Int) -> Int {
        var worst = 0
        for oy in 0..<(kept.count / 4 / keptWidth) {
            for ox in 0..<keptWidth {
                for c in 0..<4 {
                    var sum = 0, n = 0
                    for y in (oy * f)..<min(height, oy * f + f) {
                        for x in (ox * f)..<min(width, ox * f + f) {
                            sum += Int(whole[(y * width + x) * 4 + c])
                            n += 1
                        }
                    }
                    worst = max(worst, abs(sum / n - Int(kept[(oy * keptWidth + ox) * 4 + c])))
                }
            }
        }
        return worst
    }

    @Test(
        "A large PNG is read a row at a time and averaged down on the way (never its whole RGBA), to the pixels a whole decode averaged gives; gray, alpha and interlaced ones too"
    )
    func pngKeptSmall() throws {
        // 2050 × 1030 (not a multiple of the reduction: its last blocks are narrower): a gradient
        // in red, blue below its middle, its right quarter half transparent.
        let (width, height) = (2050, 1030)
        var rgba = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                rgba[i] = UInt8(x * 255 / (width - 1))
                rgba[i + 1] = UInt8((x + y) % 256)
                rgba[i + 2] = y < height / 2 ? 20 : 240
                rgba[i + 3] = x >= width * 3 / 4 ? 128 : 255
            }
        }
        for (channels, interlaced) in [(4, false), (3, false), (2, false), (1, false), (4, true), (3, true), (1, true)] {
            let pixels: [UInt8] = stride(from: 0, to: rgba.count, by: 4).flatMap { i -> [UInt8] in
                switch channels {
                case 1: return [rgba[i]]
                case 2: return [rgba[i], rgba[i + 3]]
                case 3: return Array(rgba[i..<(i + 3)])
                default: return Array(rgba[i..<(i + 4)])
                }
            }
            let bytes = try Self.png(pixels, width: width, height: height, channels: channels, interlaced: interlaced)
            let whole = try Self.decoded(bytes, keep: (0, 0))
            #expect(whole.width == width && whole.height == height && whole.source == (width, height))
            let kept = try Self.decoded(bytes, keep: (TerminalImage.keptWidth, TerminalImage.keptHeight))
            #expect(kept.source == (width, height), "the file's own size is kept")
            // 127 × 64 kept of 2050 × 1030 (fitted within 512 × 64): reduced 8 times, the most.
            let f = 8
            #expect(kept.width == 257 && kept.height == 129, "\(channels): \(kept.width) × \(kept.height)")
            let worst = Self.worstBlock(whole: whole.pixels, width: width, height: height, kept: kept.pixels, keptWidth: kept.width, factor: f)
            #expect(worst == 0, "\(channels) channels, interlaced \(interlaced): a pixel differs by \(worst) from the mean of its block")
        }
        // Interlaced and narrower than a pass's step: the passes with no column are skipped (as
        // libpng skips them), every pixel still counted once.
        for narrow in 1...9 {
            let tall: Int = 700
            let pixels: [UInt8] = (0..<(narrow * tall * 4)).map { (i: Int) -> UInt8 in UInt8((i * 37 + i / 4 * 11) % 256) }
            let bytes = try Self.png(pixels, width: narrow, height: tall, channels: 4, interlaced: true)
            let whole = try Self.decoded(bytes, keep: (0, 0))
            let kept = try Self.decoded(bytes, keep: (TerminalImage.keptWidth, TerminalImage.keptHeight))
            #expect(kept.height < tall && kept.height == (tall + 7) / 8, "\(narrow) wide: reduced to \(kept.width) × \(kept.height)")
            let worst = Self.worstBlock(whole: whole.pixels, width: narrow, height: tall, kept: kept.pixels, keptWidth: kept.width, factor: 8)
            #expect(worst == 0, "\(narrow) wide: a pixel differs by \(worst) from the mean of its block")
        }
        // The reduction never takes a picture under what is kept, and none is made of one within it.
        let small = try Self.png([UInt8](repeating: 9, count: 600 * 70 * 3), width: 600, height: 70, channels: 3)
        let smallKept = try Self.decoded(small, keep: (512, 64))
        #expect(smallKept.width == 600 && smallKept.height == 70)
        // A PNG cut short in its rows is an error value, on either path.
        for interlaced in [false, true] {
            let bytes = try Self.png(Array(rgba.prefix(1024 * 512 * 4)), width: 1024, height: 512, channels: 4, interlaced: interlaced)
            for keep in [(0, 0), (512, 64)] {
                var pixels: UnsafeMutablePointer<UInt8>?
                var w: Int32 = 0, h: Int32 = 0, sw: Int32 = 0, sh: Int32 = 0
                var message = [CChar](repeating: 0, count: 200)
                let cut = Array(bytes.prefix(bytes.count / 2))
                #expect(rocket_image_decode(cut, cut.count, TerminalImage.maxPixels, keep.0, keep.1, &pixels, &w, &h, &sw, &sh, &message, message.count) != 0)
                #expect(pixels == nil && message[0] != 0, "\(keep), interlaced \(interlaced)")
            }
        }
    }

    @Test(
        "Bad image data is an error value, never a crash",
        arguments: [
            [] as [UInt8], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0], [0xFF, 0xD8, 0xFF, 0xE0, 1, 2, 3], Array("GIF89a".utf8),
        ])
    func badData(bytes: [UInt8]) {
        guard case .failure(let e) = TerminalImage.decode(bytes) else { Issue.record("decoded garbage"); return }
        #expect(!e.reason.isEmpty)
    }

    @Test("A missing file says so")
    func missing() {
        guard case .failure(let e) = TerminalImage.load(path: "/nonexistent/x.png") else { Issue.record("loaded"); return }
        #expect(e.reason == "no such file")
    }

    @Test("Fitting keeps the aspect ratio within the box")
    func fit() {
        let wide = TerminalImage(width: 200, height: 50, pixels: [UInt8](repeating: 255, count: 200 * 50 * 4))
        #expect(wide.fit(maxColumns: 40, maxRows: 8) == (columns: 40, rows: 5))
        let tall = TerminalImage(width: 50, height: 200, pixels: [UInt8](repeating: 255, count: 50 * 200 * 4))
        #expect(tall.fit(maxColumns: 40, maxRows: 8) == (columns: 4, rows: 8))
    }

    @Test("Corner styles cut the corners: circular more than round, square not at all")
    func corners() {
        let solid = TerminalImage(width: 16, height: 16, pixels: [UInt8](repeating: 255, count: 16 * 16 * 4))
        func blanks(_ style: RocketImageStyle) -> Int {
            // A cell is whole when both its pixels show: "▀" over a coloured background.
            solid.cells(columns: 8, rows: 4, style: style).joined().filter { !($0.text == "▀" && $0.style.background != .default) }.count
        }
        #expect(blanks(.square) == 0)
        #expect(blanks(.round) > 0)
        #expect(blanks(.circular) > blanks(.round))
    }

    @Test("A picture file is decoded once per process, however many blocks (or lint and then play) name it")
    func decodedOnce() throws {
        let dir = newScratchDirectory("image")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let path = dir + "/logo.png"
        try FileManager.default.copyItem(atPath: Self.logoPath, toPath: path)
        let first = try TerminalImage.load(path: path).get()
        try FileManager.default.removeItem(atPath: path)
        // Gone from the disk: the second load is the first one's picture, not a second decode.
        let second = try TerminalImage.load(path: path).get()
        #expect(second.width == first.width && second.pixels == first.pixels)
        // A missing file is an unreadable one; bytes that are no picture are not.
        let missing = TerminalImage.load(path: dir + "/nope.png")
        #expect((try? missing.get()) == nil)
        if case .failure(let e) = missing { #expect(e.unreadable) }
        if case .failure(let e) = TerminalImage.decode(Array("not a picture".utf8)) { #expect(!e.unreadable) }
    }

    @Test("The pictures example shows the three corner styles differently (its picture fills its square)")
    func examplePictureShowsStyles() throws {
        let examples = URL(fileURLWithPath: Self.logoPath).deletingLastPathComponent()
        let flow = try String(contentsOf: examples.appendingPathComponent("images.json"), encoding: .utf8)
        #expect(flow.contains("\"rocket-picture.png\""))
        let picture = try TerminalImage.load(path: examples.appendingPathComponent("rocket-picture.png").path).get()
        let (columns, rows) = picture.fit(maxColumns: 16, maxRows: 8)
        let shapes = RocketImageStyle.allCases.map { style in
            picture.cells(columns: columns, rows: rows, style: style).joined().map { $0.text == " " ? 0 : 1 }
        }
        #expect(Set(shapes).count == 3, "the three styles draw three different shapes")
    }

    @Test("The image block draws the picture in its bubble; without colour, a text line instead")
    func layout() throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Self.logoPath)))
        let block = RocketImageNode(image: .bytes(bytes), text: "Our logo")
        var g = RocketGraph()
        g.root = g.add(RocketNode(content: .image(block)))
        var c = Conversation(graph: g, options: ConversationOptions(timing: .instant))
        c.start(at: 0)
        var view = ConversationView(width: 60, author: RocketAuthor(image: nil, name: "Rocket"), closeTitle: nil, strings: .english)
        view.images = [block.image.cacheKey: try block.image.decoded().get()]
        let drawn = view.layout(c, ui: ConversationUI()).0
        #expect(drawn.rows.count == 2 + ConversationView.imageRows + 1 + 1)
        #expect(drawn.rows.joined().contains { $0.text == "▀" || $0.text == "▄" })
        #expect(drawn.lines.contains { $0.contains("Our logo") })
        view.drawsImages = false
        let fallback = view.layout(c, ui: ConversationUI()).0
        #expect(fallback.lines.contains { $0.contains("▣ image") })
    }
}
