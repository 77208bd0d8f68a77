import Synchronization
import CImageCodecs
public import RocketCore
import RocketPlatform
public import RocketTerminalCore

/// Decoding pictures, the host's part of them: PNG and JPEG bytes through the system's libpng and
/// libjpeg, files read one bounded way and decoded once per process.
///
/// ```swift
/// if case .success(let image) = TerminalImage.load(path: "logo.png") {
///     let rows = image.cells(columns: 16, rows: 8, style: .round)
/// }
/// ```
extension TerminalImage {
    /// Decodes PNG or JPEG bytes; a picture larger than ``TerminalImage/keptWidth`` ×
    /// ``TerminalImage/keptHeight`` is kept scaled down within them (decoded at 1/2, 1/4 or 1/8
    /// of its size on the way, while it stays at least the size kept: a JPEG in its DCT, a PNG
    /// by averaging its rows as they are read, an interlaced one's pass by pass, so its whole
    /// RGBA is never held).
    public static func decode(_ bytes: [UInt8]) -> Result<TerminalImage, ImageError> {
        var out: UnsafeMutablePointer<UInt8>?
        var w: Int32 = 0, h: Int32 = 0, sourceWidth: Int32 = 0, sourceHeight: Int32 = 0
        var message = [CChar](repeating: 0, count: 200)
        let status = bytes.withUnsafeBufferPointer { buffer in
            rocket_image_decode(
                buffer.baseAddress, buffer.count, maxPixels, keptWidth, keptHeight, &out, &w, &h, &sourceWidth, &sourceHeight, &message,
                message.count)
        }
        guard status == 0, let out, w > 0, h > 0 else {
            let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(ImageError(reason: text.isEmpty ? "unreadable image" : text))
        }
        defer { rocket_image_free(out) }
        return .success(
            TerminalImage.scaledDown(
                UnsafeBufferPointer(start: out, count: Int(w) * Int(h) * 4), width: Int(w), height: Int(h),
                source: (Int(sourceWidth), Int(sourceHeight))))
    }

    /// The largest image file read.
    public static let maxFileBytes = RocketLimits.fileBytes

    /// Reads and decodes an image file, once per process and path: a picture many blocks (or
    /// lint and then play) name is decoded once.
    public static func load(path: String) -> Result<TerminalImage, ImageError> {
        if let known = loaded.withLock({ $0[path] }) { return known }
        let result: Result<TerminalImage, ImageError>
        switch FileIO.read(path, limit: maxFileBytes) {
        case .failure(let f): result = .failure(ImageError(reason: f.reason, unreadable: true))
        case .success(let bytes): result = decode(bytes)
        }
        loaded.withLock { $0[path] = result }
        return result
    }
}

/// The loaded pictures of one process, by path (a picture many blocks name is decoded once).
private let loaded = Mutex<[String: Result<TerminalImage, ImageError>]>([:])

extension RocketImage {
    /// The image decoded: read from its file or from its bytes.
    public func decoded() -> Result<TerminalImage, ImageError> {
        switch self {
        case .file(let p): return TerminalImage.load(path: p)
        case .bytes(let b): return TerminalImage.decode(b)
        }
    }
}

extension TerminalImage {
    /// The host's ``PictureLoader``: files and bytes decoded here, failures drawn as placeholders.
    public static let loader: PictureLoader = { try? $0.decoded().get() }
}
