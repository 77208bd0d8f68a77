public import RocketConversation
import RocketCore

/// The built-in texts of the terminal front end and the web widget, in the seeds' languages
/// (English, Chinese, Italian) and in Spanish, French, German, Portuguese, Japanese, Russian,
/// Korean and Dutch (``all``), chosen from `LC_ALL`, `LC_MESSAGES` or `LANG` (English
/// otherwise), or from a request's `lang`.
///
/// ```swift
/// let zh = UIStrings.forEnvironment(["LANG": "zh_CN.UTF-8"])
/// zh.continueHint   // "回车 继续"
/// ```
public struct UIStrings: Sendable, Hashable {
    /// Language code: one of ``all``'s ("en", "zh", "it", "es", "fr", "de", "pt", "ja", "ru",
    /// "ko", "nl").
    public var language: String
    /// Hint under a text block waiting for a tap.
    public var continueHint: String
    /// Hint under buttons.
    public var chooseHint: String
    /// Hint under a text input.
    public var sendHint: String
    /// The key that closes (shown before the close button's title).
    public var closeHint: String
    /// The key that quits.
    public var interruptHint: String
    /// The typing indicator's text.
    public var typing: String
    /// Default message: an answer is required.
    public var required: String
    /// Default message: too short (`%d` is the minimum).
    public var tooShort: String  // %d
    /// Default message: too long (`%d` is the maximum).
    public var tooLong: String  // %d
    /// Default message: the pattern does not match.
    public var noMatch: String
    /// A typed answer the pattern could not be checked against within its step limit.
    public var tooComplex: String
    /// Plain-mode prompt for a text block.
    public var plainContinue: String
    /// Plain-mode prompt for buttons (`%d` is their count).
    public var plainChoose: String  // %d = number of buttons
    /// Plain-mode refusal (`%@` is the line).
    public var plainNotAChoice: String  // %@
    /// Plain-mode prompt for a text input.
    public var plainType: String
    /// Plain-mode prompt for a text input whose field starts with a text (`%@`), which an empty
    /// line sends.
    public var plainTypeKeep: String  // %@
    /// The word for a picture.
    public var imageLabel: String
    /// The label of the user's own replies.
    public var you: String
    /// Hint on a banner with buttons.
    public var bannerHint: String
    /// Hint on a banner without buttons.
    public var bannerHintNoButtons: String
    /// Refusal when a banner cannot be opened.
    public var bannerBackgroundDisabled: String
    /// Hint on a banner over a conversation.
    public var bannerHintInFlow: String
    /// Hint on a banner with buttons over a conversation.
    public var bannerHintInFlowButtons: String
    /// Hint under an alert.
    public var alertHint: String
    /// Refusal of a disabled alert action (`%@` is its title).
    public var alertDisabled: String
    /// Line-mode tag of the cancel action.
    public var styleCancel: String = "cancel"
    /// Line-mode tag of a destructive action.
    public var styleDestructive: String = "destructive"
    /// Line-mode tag of a disabled action.
    public var unavailable: String = "unavailable"
    /// Line-mode refusal of a line longer than the limit (`%d` is the limit in KiB).
    public var lineTooLong: String = "That line is longer than %d KiB; it was skipped."
    /// Hint under a list (`rocket choose`).
    public var listHint: String = "↑/↓ move · Enter choose · Esc cancel"
    /// Hint item for multi-select.
    public var listSelectHint: String = "Tab select"
    /// Placeholder of a list's filter.
    public var filterPlaceholder: String = "type to filter"
    /// A filter that matches nothing.
    public var filterNoMatch: String = "no match"
    /// Line-mode refusal of too many choices (`%d` is the limit).
    public var tooManyChosen: String = "Choose at most %d."
    /// Line-mode prompt of a multi-select list (`%d` is the count).
    public var plainChooseMany: String = "Choose from 1-%d, separated by commas or spaces:"
    /// Line-mode line before the prompt of a choice or rating that starts with options chosen
    /// (`%@` is what they say), which an empty line sends.
    public var plainKeeps: String = "Enter alone keeps: %@"
    /// Words (and keys) that answer yes to a yes/no question, lower-cased; English ones work in
    /// every language.
    public var yesWords: [String] = ["y", "yes"]
    /// Words (and keys) that answer no.
    public var noWords: [String] = ["n", "no"]
    /// The yes button's title (`rocket confirm` without `--affirmative`).
    public var yesTitle = "Yes"
    /// The no button's title (`rocket confirm` without `--negative`).
    public var noTitle = "No"
    /// Refusals of a typed input's answer that is not of its type, by type.
    public var notNumber = "Please type a number."
    /// A whole number was asked for.
    public var notInteger = "Please type a whole number."
    /// An e-mail address was asked for.
    public var notEmail = "Please type an e-mail address, like name@example.org."
    /// A web address was asked for.
    public var notURL = "Please type a web address starting with https://."
    /// A date was asked for.
    public var notDate = "Please type a date as YYYY-MM-DD."
    public var notTime = "Please type a time like 14:30."
    /// A telephone number was asked for.
    public var notPhone = "Please type a phone number."
    /// Below the input's minimum (`%@` is it).
    public var tooSmall = "The least accepted is %@."
    /// Above the input's maximum (`%@` is it).
    public var tooLarge = "The most accepted is %@."
    /// Fewer options chosen than a multiple choice needs (`%d`).
    public var tooFewChosen = "Choose at least %d."
    /// The button that confirms a multiple choice's ticks when the flow names none.
    public var done = "Done"
    /// Key hint under a multiple choice.
    public var tickHint = "Space tick · Enter confirm"
    /// Key hint under a rating.
    public var rateHint = "←/→ or %b-%d rate · Enter send"
    /// Line-mode prompt of a rating (`%d` is the top of the scale).
    public var plainRate = "Rate from %b to %d:"
    /// Refusal of "<" (or Shift-Tab) with no earlier answer to go back to.
    public var cannotGoBack = "There is no earlier answer to change."
    /// Key hint: going back.
    public var backHint = "Shift-Tab back"
    /// Under a prompt with `--timeout`: the time left (`%@` is it, as "30s" or "1m30s").
    public var timesOutIn = "times out in %@"
    /// What a prompt that timed out leaves as its answer.
    public var timedOut = "timed out"
    /// `rocket input --twice`: the second question.
    public var typeAgain = "Type it again"
    /// `rocket input --twice`: the two answers were not the same.
    public var answersDiffer = "The two answers differ; please try again."
    /// Key hint under a multi-line input.
    public var multilineHint = "Enter new line · Ctrl-D send"
    /// Key hint under a date input.
    public var dateHint = "↑/↓ day · PgUp/PgDn month · Enter send"
    public var timeHint = "↑/↓ 5 min · PgUp/PgDn hour · Enter send"
    /// Key hint under a whole-number input.
    public var integerHint = "↑/↓ 1 · PgUp/PgDn 10 · Enter send"
    /// Line-mode prompt of a multi-line input: how its answer ends.
    public var plainMultiline = "Type your answer; a line holding only a dot (.) ends it:"
    /// Before a date or time input's minimum (`%@` is it).
    public var tooEarly = "Please choose %@ or later."
    /// After a date or time input's maximum (`%@` is it).
    public var tooLate = "Please choose %@ or earlier."
    /// Line-mode prompt of a text input whose field would show a hint (`%@`: the flow's
    /// placeholder, or what a typed answer may be, ``words(for:)``).
    public var plainTypeHint = "Type your answer (%@):"
    /// The form a date is typed in, shown in an empty date field (``notDate`` names it too).
    public var dateForm = "YYYY-MM-DD"
    /// The form a time is typed in, shown in an empty time field.
    public var timeForm = "HH:MM"
    /// Under a field a paste or a key went past its limit in (`%d`: the limit in KiB): what is
    /// past it was not kept.
    public var textCut = "Only the first %d KiB were kept."
    /// Over and under a list longer than the screen: how many options are out of sight that way
    /// (`%d`; drawn after ↑ or ↓).
    public var moreOptions = "%d more"
    /// Under a rating when it is sent before a value is picked (`%b` and `%d`: the scale's ends).
    public var pickRating = "Pick a rating from %b to %d first."
    /// The reply of an optional question left empty, drawn in the person's bubble (dimmed) and
    /// in brackets after "you:" in line mode.
    public var noAnswer = "No answer"
    /// A remark in brackets, as line mode writes one after "you:" (`%@`: the remark; CJK
    /// languages use full-width brackets).
    public var aside = "(%@)"
    /// The web widget's own words, by the key its script names them with (`%@` and `%d` are
    /// filled by the script).
    public var web: [String: String] = [
        "ended": "The conversation has ended.", "closed": "The conversation was closed.", "lost": "This conversation cannot go on.",
        "startAgain": "Start again", "pause": "Pause",
        "edit": "Edit", "editAnswer": "Edit your answer: %@", "continue": "Continue", "done": "Done", "chooseRange": "Choose %d to %d",
        "chooseExactly": "Choose %d", "chooseAtLeast": "Choose at least %d", "chooseUpTo": "Choose up to %d", "picture": "Picture",
        "newTab": "opens in a new tab", "dismiss": "Dismiss",
        "sendKeys": "Ctrl+Enter sends",
        "sendKeysMac": "⌘+Enter sends",
        "conversation": "Conversation",
        "notNow": "Not now.", "couldNotStart": "The conversation could not start: %@", "slowDown": "Slow down a little, please.",
        "wentWrong": "Something went wrong.", "answerTooLong": "That answer is too long; please shorten it.", "unreachable": "The server cannot be reached.",
        "retrying": "The server cannot be reached; trying again…",
        "pauseTitle": "Blocks wait for you instead of going on by themselves", "openConversation": "Open the conversation",
        "closeConversation": "Close the conversation", "unread": "%d new", "isTyping": "%@ is typing",
    ]

    /// English.
    public static let english = UIStrings(
        language: "en", continueHint: "Enter continue", chooseHint: "←/→ choose · Enter press", sendHint: "Enter send",
        closeHint: "Esc", interruptHint: "Ctrl-C quit", typing: "typing…", required: "Please type an answer.",
        tooShort: "Please type at least %d characters.", tooLong: "Please type at most %d characters.",
        noMatch: "That doesn't look right; please try again.", tooComplex: "That answer is too complex to check; please shorten it.",
        plainContinue: "(press Enter to continue)",
        plainChoose: "Choose 1-%d or type a title:", plainNotAChoice: "Not a choice: %@", plainType: "Type your answer:",
        plainTypeKeep: "Type your answer (Enter alone keeps %@):",
        imageLabel: "image", you: "you", bannerHint: "←/→ choose · Enter press · Esc dismiss",
        bannerHintNoButtons: "Enter open · Esc dismiss", bannerBackgroundDisabled: "This banner cannot be opened; choose a button.",
        bannerHintInFlow: "Ctrl-B open · Ctrl-X dismiss", bannerHintInFlowButtons: "Ctrl-B press · Ctrl-X dismiss",
        alertHint: "↑/↓ ←/→ choose · Enter select · Esc cancel", alertDisabled: "%@ is not available now.",
        styleCancel: "cancel", styleDestructive: "destructive", unavailable: "unavailable",
        lineTooLong: "That line is longer than %d KiB; it was skipped.")
    /// Chinese.
    public static let chinese = UIStrings(
        language: "zh", continueHint: "回车 继续", chooseHint: "←/→ 选择 · 回车 确认", sendHint: "回车 发送",
        closeHint: "Esc", interruptHint: "Ctrl-C 退出", typing: "正在输入…", required: "请输入内容。",
        tooShort: "请至少输入 %d 个字符。", tooLong: "最多只能输入 %d 个字符。", noMatch: "格式不正确，请重试。", tooComplex: "这个回答太复杂，无法检查；请缩短后重试。",
        plainContinue: "（按回车继续）", plainChoose: "请选择 1-%d 或输入按钮名称：", plainNotAChoice: "无效的选择：%@",
        plainType: "请输入：", plainTypeKeep: "请输入（直接回车保留 %@）：", imageLabel: "图片", you: "我", bannerHint: "←/→ 选择 · 回车 确认 · Esc 关闭",
        bannerHintNoButtons: "回车 打开 · Esc 关闭", bannerBackgroundDisabled: "无法打开此通知，请选择一个按钮。",
        bannerHintInFlow: "Ctrl-B 打开 · Ctrl-X 关闭", bannerHintInFlowButtons: "Ctrl-B 确认 · Ctrl-X 关闭",
        alertHint: "↑/↓ ←/→ 选择 · 回车 确认 · Esc 取消", alertDisabled: "%@ 暂时不可用。",
        styleCancel: "取消", styleDestructive: "危险操作", unavailable: "不可用",
        lineTooLong: "这一行超过 %d KiB，已跳过。", listHint: "↑/↓ 移动 · 回车 选择 · Esc 取消", listSelectHint: "Tab 选中",
        filterPlaceholder: "输入以筛选", filterNoMatch: "没有匹配项", tooManyChosen: "最多选择 %d 项。", plainChooseMany: "请从 1-%d 中选择，用逗号或空格分隔：", plainKeeps: "直接回车保留：%@",
        yesWords: ["是", "是的", "好", "对", "y", "yes"], noWords: ["否", "不", "不是", "不要", "n", "no"], yesTitle: "是", noTitle: "否",
        notNumber: "请输入一个数字。", notInteger: "请输入一个整数。", notEmail: "请输入电子邮件地址，例如 name@example.org。",
        notURL: "请输入以 https:// 开头的网址。", notDate: "请按 YYYY-MM-DD 格式输入日期。", notTime: "请输入时间，例如 14:30。", notPhone: "请输入电话号码。",
        tooSmall: "最小可接受的值为 %@。", tooLarge: "最大可接受的值为 %@。", tooFewChosen: "请至少选择 %d 项。", done: "完成",
        tickHint: "空格 勾选 · 回车 确认", rateHint: "←/→ 或 %b-%d 评分 · 回车 发送", plainRate: "请打分，%b 到 %d：",
        cannotGoBack: "没有可以修改的上一个回答。", backHint: "Shift-Tab 返回", timesOutIn: "%@ 后超时", timedOut: "已超时",
        typeAgain: "请再输入一次", answersDiffer: "两次输入不一致，请重试。", multilineHint: "回车 换行 · Ctrl-D 发送", dateHint: "↑/↓ 日 · PgUp/PgDn 月 · 回车 发送",
        timeHint: "↑/↓ 5 分钟 · PgUp/PgDn 小时 · 回车 发送", integerHint: "↑/↓ 1 · PgUp/PgDn 10 · 回车 发送",
        plainMultiline: "请输入回答；只含一个句点（.）的一行表示结束：",
        tooEarly: "请选择 %@ 或更晚的。", tooLate: "请选择 %@ 或更早的。",
        plainTypeHint: "请输入（%@）：", textCut: "只保留了前 %d KiB。", moreOptions: "还有 %d 项", pickRating: "请先选择 %b 到 %d 之间的评分。", noAnswer: "未回答", aside: "（%@）",
        web: [
            "ended": "对话已结束。", "closed": "对话已关闭。", "lost": "这段对话无法继续。", "startAgain": "重新开始", "pause": "暂停", "edit": "修改", "editAnswer": "修改你的回答：%@",
            "continue": "继续", "done": "完成", "chooseRange": "选择 %d 到 %d 项", "chooseExactly": "请选择 %d 项", "chooseAtLeast": "至少选择 %d 项", "chooseUpTo": "最多选择 %d 项",
            "picture": "图片", "newTab": "在新标签页中打开", "dismiss": "关闭", "sendKeys": "Ctrl+回车 发送", "sendKeysMac": "⌘+回车 发送", "conversation": "对话",
            "notNow": "暂不显示。", "couldNotStart": "对话无法开始：%@", "slowDown": "请稍慢一点。", "wentWrong": "出了点问题。", "answerTooLong": "回答太长了，请缩短一些。",
            "unreachable": "无法连接到服务器。",
            "retrying": "无法连接到服务器，正在重试…",
            "pauseTitle": "消息会等你，而不会自动继续", "openConversation": "打开对话", "closeConversation": "关闭对话", "unread": "%d 条新消息",
            "isTyping": "%@ 正在输入",
        ])
    /// Italian.
    public static let italian = UIStrings(
        language: "it", continueHint: "Invio continua", chooseHint: "←/→ scegli · Invio premi", sendHint: "Invio invia",
        closeHint: "Esc", interruptHint: "Ctrl-C esci", typing: "sta scrivendo…", required: "Scrivi una risposta.",
        tooShort: "Scrivi almeno %d caratteri.", tooLong: "Scrivi al massimo %d caratteri.",
        noMatch: "Non sembra giusto; riprova.", tooComplex: "Risposta troppo complessa da verificare; accorciala.",
        plainContinue: "(premi Invio per continuare)",
        plainChoose: "Scegli 1-%d o scrivi un titolo:", plainNotAChoice: "Scelta non valida: %@", plainType: "Scrivi la risposta:",
        plainTypeKeep: "Scrivi la risposta (solo Invio tiene %@):",
        imageLabel: "immagine", you: "tu", bannerHint: "←/→ scegli · Invio premi · Esc chiudi",
        bannerHintNoButtons: "Invio apri · Esc chiudi", bannerBackgroundDisabled: "Questa notifica non si apre; scegli un pulsante.",
        bannerHintInFlow: "Ctrl-B apri · Ctrl-X chiudi", bannerHintInFlowButtons: "Ctrl-B premi · Ctrl-X chiudi",
        alertHint: "↑/↓ ←/→ scegli · Invio seleziona · Esc annulla", alertDisabled: "%@ non è disponibile ora.",
        styleCancel: "annulla", styleDestructive: "distruttiva", unavailable: "non disponibile",
        lineTooLong: "Questa riga supera %d KiB ed è stata ignorata.", listHint: "↑/↓ sposta · Invio scegli · Esc annulla",
        listSelectHint: "Tab seleziona", filterPlaceholder: "scrivi per filtrare", filterNoMatch: "nessun risultato",
        tooManyChosen: "Scegli al massimo %d.", plainChooseMany: "Scegli tra 1-%d, separati da virgole o spazi:", plainKeeps: "Solo Invio tiene: %@",
        yesWords: ["s", "sì", "si", "y", "yes"], noWords: ["n", "no"], yesTitle: "Sì", noTitle: "No",
        notNumber: "Scrivi un numero.", notInteger: "Scrivi un numero intero.", notEmail: "Scrivi un indirizzo e-mail, come nome@esempio.it.",
        notURL: "Scrivi un indirizzo web che inizi con https://.", notDate: "Scrivi una data come AAAA-MM-GG.", notTime: "Scrivi un orario come 14:30.",
        notPhone: "Scrivi un numero di telefono.", tooSmall: "Il minimo accettato è %@.", tooLarge: "Il massimo accettato è %@.",
        tooFewChosen: "Scegline almeno %d.", done: "Fatto", tickHint: "Spazio seleziona · Invio conferma",
        rateHint: "←/→ o %b-%d valuta · Invio invia", plainRate: "Valuta da %b a %d:",
        cannotGoBack: "Non c'è una risposta precedente da cambiare.", backHint: "Shift-Tab indietro",
        timesOutIn: "scade tra %@", timedOut: "tempo scaduto", typeAgain: "Scrivilo di nuovo",
        answersDiffer: "Le due risposte non coincidono; riprova.", multilineHint: "Invio a capo · Ctrl-D invia",
        dateHint: "↑/↓ giorno · PgUp/PgDn mese · Invio invia", timeHint: "↑/↓ 5 min · PgUp/PgDn ora · Invio invia",
        integerHint: "↑/↓ 1 · PgUp/PgDn 10 · Invio invia",
        plainMultiline: "Scrivi la risposta; una riga con solo un punto (.) la chiude:",
        tooEarly: "Scegli %@ o più tardi.", tooLate: "Scegli %@ o prima.",
        plainTypeHint: "Scrivi la risposta (%@):", dateForm: "AAAA-MM-GG", textCut: "Sono stati tenuti solo i primi %d KiB.", moreOptions: "altri %d",
        pickRating: "Scegli prima un voto da %b a %d.", noAnswer: "Nessuna risposta", aside: "(%@)",
        web: [
            "ended": "La conversazione è finita.", "closed": "La conversazione è stata chiusa.", "lost": "Questa conversazione non può continuare.",
            "startAgain": "Ricomincia", "pause": "Pausa",
            "edit": "Modifica", "editAnswer": "Modifica la risposta: %@", "continue": "Continua", "done": "Fatto", "chooseRange": "Scegline da %d a %d",
            "chooseExactly": "Scegline %d", "chooseAtLeast": "Scegline almeno %d", "chooseUpTo": "Scegline al massimo %d", "picture": "Immagine",
            "newTab": "si apre in una nuova scheda",
            "dismiss": "Chiudi",
            "sendKeys": "Ctrl+Invio invia", "sendKeysMac": "⌘+Invio invia",
            "conversation": "Conversazione",
            "notNow": "Non ora.", "couldNotStart": "La conversazione non è potuta iniziare: %@",
            "slowDown": "Rallenta un po', per favore.", "wentWrong": "Qualcosa è andato storto.",
            "answerTooLong": "La risposta è troppo lunga; accorciala, per favore.",
            "unreachable": "Il server non è raggiungibile.", "retrying": "Il server non è raggiungibile; riprovo…",
            "pauseTitle": "I messaggi ti aspettano invece di proseguire da soli",
            "openConversation": "Apri la conversazione", "closeConversation": "Chiudi la conversazione", "unread": "%d nuovi",
            "isTyping": "%@ sta scrivendo",
        ])

    /// What the web widget is given to say, by key: its own words (``web``) and those it shares
    /// with the terminal, each written once (`noAnswer`, `pickRating`).
    public var widgetWords: [String: String] {
        web.merging(["noAnswer": noAnswer, "pickRating": pickRating]) { own, _ in own }
    }

    /// Every language we have: the seeds' (English, Chinese, Italian), then Spanish, French,
    /// German, Portuguese and Japanese. English is the first, the one used without another.
    public static let all: [UIStrings] = [
        .english, .chinese, .italian, .spanish, .french, .german, .portuguese, .japanese, .russian, .korean, .dutch,
    ]

    /// The locale the environment names for messages: `LC_ALL`, else `LC_MESSAGES`, else `LANG`
    /// (`it_IT.UTF-8`; "" when none is set).
    public static func locale(_ env: [String: String]) -> String {
        [env["LC_ALL"], env["LC_MESSAGES"], env["LANG"]].compactMap { $0 }.first { !$0.isEmpty } ?? ""
    }

    /// The strings for the locale named by the environment.
    public static func forEnvironment(_ env: [String: String]) -> UIStrings {
        let code = language(forLocale: locale(env))
        return all.first { $0.language == code } ?? .english
    }

    /// The ``language`` of the messages for `locale` (`it_IT.UTF-8`, `zh-CN`, `en`): the one
    /// its first two letters name among ``all``, English when we have none in it.
    public static func language(forLocale locale: String) -> String {
        let code = locale.prefix(2).lowercased()
        return all.contains { $0.language == code } ? code : "en"
    }

    /// Over (`above`) or under a list's window: how many of its items (`count`) are out of sight
    /// that way, after an arrow pointing there ("↓ 34 more"). Every list in the terminal says it
    /// so: a conversation's options, an action sheet's actions, `rocket choose`'s options.
    public func outOfSight(_ count: Int, above: Bool) -> String {
        (above ? "↑ " : "↓ ") + moreOptions.replacingAll("%d", with: String(count))
    }

    /// The words of a field's hint (`RocketFieldHint`): the flow's placeholder as it is; a
    /// range as `1 – 10`, `≥ 18` or `≤ 2026-12-31` (the same in every language); a date's or
    /// time's form in this language.
    public func words(for hint: RocketFieldHint) -> String {
        switch hint {
        case .text(let text): return text
        case .range(let low?, let high?): return "\(low) – \(high)"
        case .range(let low?, nil): return "≥ \(low)"
        case .range(nil, let high?): return "≤ \(high)"
        case .range(nil, nil): return ""
        case .form(let type): return type == .time ? timeForm : type == .date ? dateForm : ""
        }
    }

    /// The rule of a multiple choice with bounds, in the words the web widget says it with
    /// ("Choose up to 2", "Choose 2 to 3", "Choose 2", "Choose at least 2"); nil when it has none.
    public func chooseRule(least: Int?, most: Int?) -> String? {
        func fill(_ key: String, _ numbers: [Int]) -> String {
            var text = web[key] ?? ""
            for n in numbers {
                guard let r = text.range(ofText: "%d") else { break }
                text.replaceSubrange(r, with: String(n))
            }
            return text
        }
        switch (least, most) {
        case (let l?, let m?) where l == m: return fill("chooseExactly", [l])
        case (let l?, let m?): return fill("chooseRange", [l, m])
        case (let l?, nil): return fill("chooseAtLeast", [l])
        case (nil, let m?): return fill("chooseUpTo", [m])
        case (nil, nil): return nil
        }
    }

    /// True when a bound is a day or a time of day (said as earlier and later, not less and more).
    private static func isMoment(_ bound: String) -> Bool {
        RocketInputType.date.parse(bound) != nil || RocketInputType.time.parse(bound) != nil
    }

    /// The message for a validation failure: the flow's own, else the default for the rule.
    public func message(for failure: RocketValidationFailure) -> String {
        if let m = failure.message { return m }
        switch failure.rule {
        case .required: return required
        case .tooShort(let n): return tooShort.replacingAll("%d", with: String(n))
        case .tooLong(let n): return tooLong.replacingAll("%d", with: String(n))
        case .pattern, .invalidPattern: return noMatch
        case .patternTooComplex: return tooComplex
        case .wrongType(let t):
            switch t {
            case .text: return noMatch
            case .number: return notNumber
            case .integer: return notInteger
            case .email: return notEmail
            case .url: return notURL
            case .date: return notDate
            case .time: return notTime
            case .phone: return notPhone
            }
        case .tooSmall(let b): return (Self.isMoment(b) ? tooEarly : tooSmall).replacingAll("%@", with: b)
        case .tooLarge(let b): return (Self.isMoment(b) ? tooLate : tooLarge).replacingAll("%@", with: b)
        case .tooFewChosen(let n): return tooFewChosen.replacingAll("%d", with: String(n))
        case .tooManyChosen(let n): return tooManyChosen.replacingAll("%d", with: String(n))
        }
    }
}
