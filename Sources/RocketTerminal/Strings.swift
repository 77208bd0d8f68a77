public import RocketAlert
import RocketCore

/// The built-in texts of the terminal front end, in the seeds' languages: English, Chinese and
/// Italian, chosen from `LC_ALL`, `LC_MESSAGES` or `LANG` (English otherwise).
///
/// ```swift
/// let zh = UIStrings.forEnvironment(["LANG": "zh_CN.UTF-8"])
/// zh.continueHint   // "回车 继续"
/// ```
public struct UIStrings: Sendable, Hashable {
    /// Language code: "en", "zh" or "it".
    public var language: String
    public var continueHint: String
    public var chooseHint: String
    public var sendHint: String
    public var closeHint: String
    public var interruptHint: String
    public var typing: String
    public var required: String
    public var tooShort: String  // %d
    public var tooLong: String   // %d
    public var noMatch: String
    public var plainContinue: String
    public var plainChoose: String   // %d = number of buttons
    public var plainNotAChoice: String  // %@
    public var plainType: String
    public var imageLabel: String
    public var you: String
    public var bannerHint: String
    public var bannerHintNoButtons: String
    public var bannerBackgroundDisabled: String
    public var bannerHintInFlow: String
    public var bannerHintInFlowButtons: String
    public var alertHint: String
    public var alertDisabled: String

    /// English.
    public static let english = UIStrings(
        language: "en", continueHint: "Enter continue", chooseHint: "←/→ choose · Enter press", sendHint: "Enter send",
        closeHint: "Esc", interruptHint: "Ctrl-C quit", typing: "typing…", required: "Please type an answer.",
        tooShort: "Please type at least %d characters.", tooLong: "Please type at most %d characters.",
        noMatch: "That doesn't look right; please try again.", plainContinue: "(press Enter to continue)",
        plainChoose: "Choose 1-%d or type a title:", plainNotAChoice: "Not a choice: %@", plainType: "Type your answer:",
        imageLabel: "image", you: "you", bannerHint: "←/→ choose · Enter press · Esc dismiss",
        bannerHintNoButtons: "Enter open · Esc dismiss", bannerBackgroundDisabled: "This banner cannot be opened; choose a button.",
        bannerHintInFlow: "Ctrl-B open · Ctrl-X dismiss", bannerHintInFlowButtons: "Ctrl-B press · Ctrl-X dismiss",
        alertHint: "↑/↓ ←/→ choose · Enter select · Esc cancel", alertDisabled: "%@ is not available now.")
    /// Chinese.
    public static let chinese = UIStrings(
        language: "zh", continueHint: "回车 继续", chooseHint: "←/→ 选择 · 回车 确认", sendHint: "回车 发送",
        closeHint: "Esc", interruptHint: "Ctrl-C 退出", typing: "正在输入…", required: "请输入内容。",
        tooShort: "请至少输入 %d 个字符。", tooLong: "最多只能输入 %d 个字符。", noMatch: "格式不正确，请重试。",
        plainContinue: "（按回车继续）", plainChoose: "请选择 1-%d 或输入按钮名称：", plainNotAChoice: "无效的选择：%@",
        plainType: "请输入：", imageLabel: "图片", you: "我", bannerHint: "←/→ 选择 · 回车 确认 · Esc 关闭",
        bannerHintNoButtons: "回车 打开 · Esc 关闭", bannerBackgroundDisabled: "无法打开此通知，请选择一个按钮。",
        bannerHintInFlow: "Ctrl-B 打开 · Ctrl-X 关闭", bannerHintInFlowButtons: "Ctrl-B 确认 · Ctrl-X 关闭",
        alertHint: "↑/↓ ←/→ 选择 · 回车 确认 · Esc 取消", alertDisabled: "%@ 暂时不可用。")
    /// Italian.
    public static let italian = UIStrings(
        language: "it", continueHint: "Invio continua", chooseHint: "←/→ scegli · Invio premi", sendHint: "Invio invia",
        closeHint: "Esc", interruptHint: "Ctrl-C esci", typing: "sta scrivendo…", required: "Scrivi una risposta.",
        tooShort: "Scrivi almeno %d caratteri.", tooLong: "Scrivi al massimo %d caratteri.",
        noMatch: "Non sembra giusto; riprova.", plainContinue: "(premi Invio per continuare)",
        plainChoose: "Scegli 1-%d o scrivi un titolo:", plainNotAChoice: "Scelta non valida: %@", plainType: "Scrivi la risposta:",
        imageLabel: "immagine", you: "tu", bannerHint: "←/→ scegli · Invio premi · Esc chiudi",
        bannerHintNoButtons: "Invio apri · Esc chiudi", bannerBackgroundDisabled: "Questa notifica non si apre; scegli un pulsante.",
        bannerHintInFlow: "Ctrl-B apri · Ctrl-X chiudi", bannerHintInFlowButtons: "Ctrl-B premi · Ctrl-X chiudi",
        alertHint: "↑/↓ ←/→ scegli · Invio seleziona · Esc annulla", alertDisabled: "%@ non è disponibile ora.")

    /// The strings for the locale named by the environment.
    public static func forEnvironment(_ env: [String: String]) -> UIStrings {
        let locale = [env["LC_ALL"], env["LC_MESSAGES"], env["LANG"]].compactMap { $0 }.first { !$0.isEmpty } ?? ""
        let lang = locale.prefix(2).lowercased()
        switch lang {
        case "zh": return .chinese
        case "it": return .italian
        default: return .english
        }
    }

    /// The message for a validation failure: the flow's own, else the default for the rule.
    public func message(for failure: RocketValidationFailure) -> String {
        if let m = failure.message { return m }
        switch failure.rule {
        case .required: return required
        case .tooShort(let n): return tooShort.replacing("%d", with: String(n))
        case .tooLong(let n): return tooLong.replacing("%d", with: String(n))
        case .pattern, .invalidPattern: return noMatch
        }
    }
}
