import Synchronization
public import RocketConversation
public import RocketCore

/// A decoded picture (8-bit RGBA) drawn as truecolour half-block cells: each cell shows two
/// pixels, the upper one as the foreground of "▀" and the lower one as its background.
///
/// Pictures are decoded by the host (RocketTerminal's `TerminalImage.load(path:)` and
/// `decode(_:)`) and handed to the apps that draw them (``PictureLoader``).
///
/// ```swift
/// let dot = TerminalImage(width: 1, height: 1, pixels: [255, 0, 0, 255])
/// let rows = dot.cells(columns: 2, rows: 1, style: .square)
/// ```
public final class TerminalImage: Sendable {
    /// Pixel columns.
    public let width: Int
    /// Pixel rows.
    public let height: Int
    /// RGBA bytes, row by row.
    public let pixels: [UInt8]
    /// The size of the picture it was decoded from (its file's, before it was scaled down to
    /// what a terminal draws): ``width`` × ``height`` unless it was.
    public let source: (width: Int, height: Int)
    private let scaled = Mutex<[Int: [UInt8]]>([:])  // memo of resampled pixels by (columns << 16 | rows)

    /// The most pixels an image may have (a bound on memory: 4096 × 4096).
    public static let maxPixels = RocketLimits.picturePixels

    /// An image from RGBA bytes.
    public convenience init(width: Int, height: Int, pixels: [UInt8]) {
        self.init(width: width, height: height, pixels: pixels, source: (width, height))
    }

    /// An image from RGBA bytes, decoded from a picture of size `source`.
    public init(width: Int, height: Int, pixels: [UInt8], source: (width: Int, height: Int)) {
        self.width = width
        self.height = height
        self.pixels = pixels
        self.source = source
    }

    /// The cell size that keeps the aspect ratio within a box (a cell is about twice as tall as wide,
    /// and holds two pixel rows).
    public func fit(maxColumns: Int, maxRows: Int) -> (columns: Int, rows: Int) {
        let aspect = Double(width) / Double(height)
        var rows = max(1, maxRows)
        var columns = Int((Double(rows * 2) * aspect).rounded())
        if columns > maxColumns {
            columns = max(1, maxColumns)
            rows = max(1, Int((Double(columns) / aspect / 2).rounded()))
        }
        return (max(1, columns), rows)
    }

    /// The most rows of cells a picture is drawn in anywhere (an image block, the picture of a
    /// focused option): 16 pixels high.
    public static let tallestRows = 8
    /// The widest and the tallest a picture is kept once decoded (``scaledDown(_:width:height:source:)``):
    /// four pixels for each one drawn at ``tallestRows`` (which keeps the box filter's
    /// quality), and as wide as a picture that tall can be drawn on a wide terminal. A 4096 ×
    /// 4096 picture then holds 16 KiB, not 64 MiB.
    public static let keptHeight = tallestRows * 2 * 4
    /// See ``keptHeight``.
    public static let keptWidth = 512

    /// The size a `width` × `height` picture is kept at: within ``keptWidth`` × ``keptHeight``,
    /// its aspect kept (at least a pixel each way); a picture within them, its own.
    public static func keptSize(width: Int, height: Int) -> (width: Int, height: Int) {
        guard width > keptWidth || height > keptHeight else { return (width, height) }
        let scale = min(Double(keptWidth) / Double(width), Double(keptHeight) / Double(height))
        return (max(1, min(keptWidth, Int((Double(width) * scale).rounded()))), max(1, min(keptHeight, Int((Double(height) * scale).rounded()))))
    }

    /// A picture from decoded RGBA bytes, box-filtered down to ``keptSize(width:height:)``; a
    /// smaller one is copied as it is. `source` is the size of the picture they were decoded
    /// from (nil: theirs).
    public static func scaledDown(
        _ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, source: (width: Int, height: Int)? = nil
    ) -> TerminalImage {
        let kept = keptSize(width: width, height: height)
        let source = source ?? (width, height)
        guard kept != (width, height) else { return TerminalImage(width: width, height: height, pixels: Array(pixels), source: source) }
        return TerminalImage(
            width: kept.width, height: kept.height,
            pixels: boxFilter(pixels, width: width, height: height, columns: kept.width, pixelRows: kept.height), source: source)
    }

    /// Box-filtered RGBA pixels of `source` (`width` × `height`) at `columns` × `pixelRows`.
    static func boxFilter(_ source: UnsafeBufferPointer<UInt8>, width: Int, height: Int, columns: Int, pixelRows: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: columns * pixelRows * 4)
        for y in 0..<pixelRows {
            let y0 = y * height / pixelRows, y1 = max(y0 + 1, (y + 1) * height / pixelRows)
            for x in 0..<columns {
                let x0 = x * width / columns, x1 = max(x0 + 1, (x + 1) * width / columns)
                var sum = (0, 0, 0, 0)
                var n = 0
                // Sample at most 8×8 source pixels per target pixel (bounded work for huge images).
                let sy = max(1, (y1 - y0) / 8), sx = max(1, (x1 - x0) / 8)
                var yy = y0
                while yy < y1 {
                    var xx = x0
                    while xx < x1 {
                        let i = (yy * width + xx) * 4
                        sum.0 += Int(source[i])
                        sum.1 += Int(source[i + 1])
                        sum.2 += Int(source[i + 2])
                        sum.3 += Int(source[i + 3])
                        n += 1
                        xx += sx
                    }
                    yy += sy
                }
                let o = (y * columns + x) * 4
                let d = max(1, n)
                (out[o], out[o + 1], out[o + 2], out[o + 3]) = (UInt8(sum.0 / d), UInt8(sum.1 / d), UInt8(sum.2 / d), UInt8(sum.3 / d))
            }
        }
        return out
    }

    /// Box-filtered RGBA pixels at `columns` × `rows * 2`, remembered for the last few sizes (a
    /// terminal resized through many widths does not keep one copy per width).
    func resampled(columns: Int, pixelRows: Int) -> [UInt8] {
        let key = columns << 16 | pixelRows
        if let done = scaled.withLock({ $0[key] }) { return done }
        let out = pixels.withUnsafeBufferPointer { Self.boxFilter($0, width: width, height: height, columns: columns, pixelRows: pixelRows) }
        scaled.withLock {
            if $0.count >= 8 { $0.removeAll() }
            $0[key] = out
        }
        return out
    }

    /// Rows of cells for the picture at `columns` × `rows` cells, with corners cut by `style`
    /// (cut and transparent pixels take the terminal's background).
    public func cells(columns: Int, rows: Int, style: RocketImageStyle) -> [[Cell]] {
        let pixelRows = rows * 2
        let px = resampled(columns: columns, pixelRows: pixelRows)
        // The corner radius in pixels (a pixel is a half-cell: square-ish on most terminals).
        // `.round` uses a quarter of the height: the original's 6 pt of a 140 pt picture would
        // vanish at cell resolution.
        let radius = style == .round ? Double(pixelRows) / 4 : style.cornerRadius(forHeight: Double(pixelRows))
        func visible(_ x: Int, _ y: Int) -> TermColor? {
            let i = (y * columns + x) * 4
            if px[i + 3] < 128 { return nil }
            if radius > 0 {
                let fx = Double(x) + 0.5, fy = Double(y) + 0.5
                let cx = min(max(fx, radius), Double(columns) - radius)
                let cy = min(max(fy, radius), Double(pixelRows) - radius)
                let dx = fx - cx, dy = fy - cy
                if dx * dx + dy * dy > radius * radius { return nil }
            }
            return .rgb(px[i], px[i + 1], px[i + 2])
        }
        var out: [[Cell]] = []
        for r in 0..<rows {
            var line: [Cell] = []
            for x in 0..<columns {
                let top = visible(x, r * 2), bottom = visible(x, r * 2 + 1)
                var style = CellStyle()
                switch (top, bottom) {
                case (nil, nil):
                    line.append(Cell(" "))
                case (let t?, nil):
                    style.foreground = t
                    line.append(Cell("▀", style: style))
                case (nil, let b?):
                    style.foreground = b
                    line.append(Cell("▄", style: style))
                case (let t?, let b?):
                    style.foreground = t
                    style.background = b
                    line.append(Cell("▀", style: style))
                }
            }
            out.append(line)
        }
        return out
    }
}

/// Why an image could not be drawn.
public struct ImageError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A short reason.
    public var reason: String
    /// True when the file could not be read at all (missing, not a regular file, too large);
    /// false when its bytes are not a picture.
    public var unreadable = false

    /// An error with its reason.
    public init(reason: String, unreadable: Bool = false) {
        self.reason = reason
        self.unreadable = unreadable
    }
    /// The reason, as messages print it.
    public var description: String { reason }
}

extension RocketImage {
    /// The key pictures are cached under: the path, or a digest of the bytes.
    public var cacheKey: String {
        switch self {
        case .file(let p): return p
        case .bytes(let b):
            var h: UInt64 = 0xcbf29ce484222325  // FNV-1a
            for byte in b { h = (h ^ UInt64(byte)) &* 0x100000001b3 }
            return "bytes:\(b.count):\(h)"
        }
    }
}

/// Where an app gets the pictures it draws (a flow's images, an avatar): the host decodes them
/// (files and codecs are the host's) and the app asks with the picture's reference; nil draws a
/// placeholder instead.
public typealias PictureLoader = @Sendable (RocketImage) -> TerminalImage?
