/// The five kinds of block a conversation can show.
///
/// The original matched blocks to cells by their dynamic type name, so a subclass could not be
/// drawn (R15); here every block states its kind.
///
/// ```swift
/// TextRocketBlock(text: "Hi").kind   // .text
/// ```
public enum RocketBlockKind: String, CaseIterable, Hashable, Sendable, Codable {
    case text, image, button, doubleButton, textInput

    /// The seed's cell identifier for this kind (the class name of the block).
    public var cellIdentifier: String {
        switch self {
        case .text: return "TextRocketBlock"
        case .image: return "ImageRocketBlock"
        case .button: return "ButtonRocketBlock"
        case .doubleButton: return "DoubleButtonRocketBlock"
        case .textInput: return "TextInputRocketBlock"
        }
    }
}
