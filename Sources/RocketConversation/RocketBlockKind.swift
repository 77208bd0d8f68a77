/// The kinds of block a conversation can show: the originals' five, and a list of choices.
///
/// The original matched blocks to cells by their dynamic type name, so a subclass could not be
/// drawn (R15); here every block states its kind.
///
/// ```swift
/// TextRocketBlock(text: "Hi").kind   // .text
/// ```
public enum RocketBlockKind: String, CaseIterable, Hashable, Sendable, Codable {
    case text, image, button, doubleButton, textInput
    /// A question with a list of options (beyond the seed).
    case choice
    /// A rating on a scale (beyond the seed).
    case rating
    /// Sets variables from expressions; never shown (beyond the seed).
    case set
    /// Goes to the first branch whose condition holds; never shown (beyond the seed).
    case condition
    /// Goes to another block, or into another flow and back; never shown (beyond the seed).
    case jump

    /// True for the kinds that are never shown: they run at once when reached.
    public var isSilent: Bool { self == .set || self == .condition || self == .jump }

    /// The seed's cell identifier for this kind (the class name of the block).
    public var cellIdentifier: String {
        switch self {
        case .text: return "TextRocketBlock"
        case .image: return "ImageRocketBlock"
        case .button: return "ButtonRocketBlock"
        case .doubleButton: return "DoubleButtonRocketBlock"
        case .textInput: return "TextInputRocketBlock"
        case .choice: return "ChoiceRocketBlock"
        case .rating: return "RatingRocketBlock"
        case .set: return "SetRocketBlock"
        case .condition: return "ConditionRocketBlock"
        case .jump: return "JumpRocketBlock"
        }
    }
}
