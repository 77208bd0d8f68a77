/// A platform-neutral reference to an image: a file path or encoded bytes (PNG or JPEG).
///
/// Engines never decode images; they carry the reference to whichever front end draws it.
///
/// ```swift
/// let logo = RocketImage.file("logo.png")
/// let inline = RocketImage.bytes([0x89, 0x50, 0x4E, 0x47])
/// logo.path   // "logo.png"
/// ```
public enum RocketImage: Hashable, Sendable, Codable {
    /// An image file on disk, by path (relative paths are resolved by the front end).
    case file(String)
    /// Encoded image bytes, for example a PNG downloaded by the app.
    case bytes([UInt8])

    /// The file path, when the image is a file.
    public var path: String? {
        if case .file(let p) = self { return p }
        return nil
    }
}
