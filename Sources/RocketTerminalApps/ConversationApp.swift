public import RocketConversation
public import RocketBanners
import RocketCore
public import RocketText
public import RocketTerminalCore

/// An answer given ahead for a block (`rocket play --answers`), and where it was given (a
/// `FILE:LINE:COL` that a refusal names).
public struct GivenAnswer: Hashable, Sendable {
    /// The answer, as `--answers-out` writes it.
    public var value: RocketValue
    /// Where it was given.
    public var place: String

    /// An answer given at `place`.
    public init(value: RocketValue, place: String) {
        self.value = value
        self.place = place
    }
}

/// How a conversation ended when it was not interrupted.
public enum ConversationEnd: Hashable, Sendable {
    /// The flow reached a nil `next` (done, exit 0).
    case completed
    /// The user closed it: close button, Esc, or end of input in line mode (declined, exit 1).
    case closed
}

/// What a click in a conversation hits: a block's intent, or the banner over it.
public enum ConversationTarget: Hashable, Sendable {
    /// Send this intent.
    case intent(RocketIntent)
    /// Tap the banner (a button, or its background).
    case banner(BannerTag)
}

/// One conversation in the terminal, on a `ConversationHost` (which runs the app's effects after
/// each state change).
///
/// TTY: the keys of ``KeyController``; a flow-level banner over the top with the overlay keys
/// (Ctrl-B, Ctrl-X); clicks on buttons, the input's send button and the banner. Line mode prints
/// the transcript as it grows and reads one line per interactive block (``PlainController``):
/// refused lines say why and read again; the end of the input closes the conversation.
@MainActor
public final class ConversationApp: TerminalProgram {
    /// The host the conversation runs on.
    public let host: ConversationHost
    /// See `TerminalProgram/lineMode`.
    public var lineMode = false
    let strings: UIStrings
    let depth: ColorDepth
    /// Print what to type before each interactive block (a person typing in line mode).
    public var lineHints = false
    /// The flow-level banner over the conversation (TTY), once started.
    public private(set) var overlay: BannerOverlay?
    /// True when the end of the input (line mode) closed the conversation before it ended.
    public private(set) var inputEnded = false
    /// Called when the flow-level banner goes away.
    public var onBannerDismissed: ((BannerResult) -> Void)?
    let banner: Banner?
    let reducedMotion: Bool
    /// Where pictures come from (the host decodes them); nil draws placeholders.
    let pictures: PictureLoader?

    /// Words that send an intent while a block without a text field waits (`rocket confirm`'s
    /// yes and no words): a whole line in line mode, a single key in the terminal. Lower-cased;
    /// matched without regard to case or surrounding spaces.
    public var shortcuts: [String: RocketIntent] = [:]
    /// Answers given ahead, by block id (`rocket play --answers`): each is given once, when its
    /// block waits, as if typed; a refused one is said (with its place) and the block is asked.
    public var givenAnswers: [String: GivenAnswer] = [:]
    /// Blocks that wait only for a tap (a text or a picture without a timer) go on by themselves:
    /// nobody is there to tap (an unattended run).
    public var tapsGoOn = false
    /// The local day (`YYYY-MM-DD`) a date input's ↑/↓ start from when it is empty, for a
    /// conversation without a clock of its own (`ConversationOptions.localShift`, which wins);
    /// nil: the input's bounds only.
    public var today: String?
    /// The local time (`HH:MM`) a time input's ↑/↓ start from when it is empty, for a
    /// conversation without a clock of its own; nil: the input's bounds only.
    public var timeOfDay: String?
    /// The id of the block that waited when the end of the input closed the conversation.
    public private(set) var inputEndedAt: String?
    private var usedAnswers = Set<String>()
    /// The lines of a multi-line answer typed so far in line mode (nil: none begun).
    private var pendingLines: [String]?
    /// The state an automatic step was last tried in: the transcript's length and the block.
    private struct StepMark: Equatable {
        var transcriptCount: Int
        var index: Int
    }
    private var automaticTried: StepMark?
    private var ui = ConversationUI()
    private var prefilled: Int?
    private var interruptedBy: Int32?
    private var imageCache: [String: TerminalImage?] = [:]
    private var layoutCache = ConversationLayoutCache()
    private var printedItems = 0
    private var promptedIndex: Int?

    /// An app for a host. `banner` goes over the top, on the host's clock; `pictures` decodes the
    /// flow's pictures (the host's `PictureLoader`; nil: placeholders are drawn).
    public init(
        host: ConversationHost, strings: UIStrings, depth: ColorDepth = .indexed256, banner: Banner? = nil, reducedMotion: Bool = false,
        pictures: PictureLoader? = nil
    ) {
        self.host = host
        self.pictures = pictures
        self.strings = strings
        self.depth = depth
        self.banner = banner
        self.reducedMotion = reducedMotion
    }

    /// See `TerminalProgram/outcome`.
    public var outcome: ProgramOutcome<ConversationEnd>? {
        if let s = interruptedBy { return .interrupted(signal: s) }
        switch host.conversation.status {
        case .dismissed(.completed): return .done(.completed)
        case .dismissed(.closedByUser): return .declined(.closed)
        case .dismissed(.interrupted), .dismissed(.dismissedByApp): return .interrupted(signal: ProgramSignal.interrupt)
        default: return nil
        }
    }

    /// See `TerminalProgram/summary`: the conversation's first words (the question) and the
    /// answer of its last block (a typed answer, masked when secret, or the pressed button).
    public var summary: ProgramSummary? {
        let c = host.conversation
        var question: String?
        var lastID: RocketNodeID?
        for case .block(_, let id, let text) in c.transcript {
            if question == nil, !text.isEmpty { question = text }
            lastID = id
        }
        return ProgramSummary.of(outcome, question: question) {
            guard let lastID, let key = c.graph[lastID].id, let answer = c.answers[key] else { return "" }
            if answer.isSecret { return ProgramSummary.secretMask }
            // An optional question left empty: said as line mode says it, not a blank.
            return answer.value.isEmpty ? strings.aside.replacingAll("%@", with: strings.noAnswer) : answer.value
        }
    }

    /// See `TerminalProgram/lineRequest`: a line per interactive block, a secret one with echo off.
    public var lineRequest: LineRequest? {
        guard lineMode, outcome == nil, let index = host.conversation.interactiveIndex, automaticStep() == nil else { return nil }
        if case .textInput(let input) = host.conversation.node(at: index).content { return LineRequest(secret: input.isSecret) }
        return LineRequest()
    }

    /// See `TerminalProgram/start(now:)`.
    public func start(now: Double) -> [ProgramOutput] {
        host.show()
        guard let banner else { return [] }
        if lineMode { return [.say(BannerOverlay.lineText(for: banner))] }
        var view = BannerView(width: 40, strings: strings)
        view.reducedMotion = reducedMotion
        view.hint = banner.buttons.items.isEmpty ? strings.bannerHintInFlow : strings.bannerHintInFlowButtons
        let overlay = BannerOverlay(banner: banner, center: BannerCenter(clock: host.clock, queue: BannerQueue(reducedMotion: reducedMotion)), view: view)
        overlay.onDismissed = { [weak self] in self?.onBannerDismissed?($0) }
        self.overlay = overlay
        overlay.show()
        return []
    }

    /// See `TerminalProgram/update(_:now:)`.
    public func update(_ event: ProgramEvent<ConversationTarget>, now: Double) -> [ProgramOutput] {
        var out: [ProgramOutput] = []
        switch event {
        case .tick:
            host.tick()
            overlay?.tick()
            if lineMode { out = newLines() }
        case .key(let key):
            if overlay?.handleOverlayKey(key) == true { break }
            syncUI()
            if case .character(let ch) = key, let intent = shortcut(String(ch)) {
                apply(.send(intent))
                break
            }
            apply(KeyController.handle(key, conversation: host.conversation, ui: &ui))
            // Text typed or pasted past the field's limit is not kept: said under the field, not
            // lost unseen (only after such a key: a refusal of the answer keeps its own words).
            switch key {
            case .character, .paste:
                if ui.editor.cut { ui.error = strings.textCut.replacingAll("%d", with: String(LineEditor.limit / 1024)) }
            default: break
            }
        case .click(.intent(let intent)): apply(.send(intent))
        case .click(.banner(let tag)): overlay?.send(.tap(tag))
        case .interrupt(let s):
            interruptedBy = s
            host.dismiss(reason: .interrupted)
        case .line(let line): out = answer(line)
        case .inputEnded:
            // A multi-line answer under way is sent: the end of input ends it, as a "." does.
            if let lines = pendingLines, let index = host.conversation.interactiveIndex {
                pendingLines = nil
                out = finishLines(lines, block: host.conversation.node(at: index))
                break
            }
            // End of input closes the conversation, as the close button does.
            if host.conversation.status.reason == nil {
                inputEnded = true
                inputEndedAt = host.conversation.interactiveBlock?.id
            }
            if (try? host.send(.close)) == nil { host.dismiss(reason: .closedByUser) }
        }
        out += runAutomaticStep()
        // A banner does not outlive its conversation.
        if outcome != nil { overlay?.dismissNow() }
        return out
    }

    /// What goes on by itself now, if anything: the waiting block's given answer (`key`), or a
    /// tap when taps go on by themselves (`key` nil). Cheap: the answer itself is matched only
    /// when the step is taken. Each state is tried once (a refused answer is not tried again).
    private func automaticStep() -> (mark: StepMark, key: String?)? {
        guard outcome == nil, tapsGoOn || !givenAnswers.isEmpty else { return nil }
        let c = host.conversation
        guard let index = c.interactiveIndex else { return nil }
        let mark = StepMark(transcriptCount: c.transcript.count, index: index)
        guard automaticTried != mark else { return nil }
        let block = c.node(at: index)
        if let key = block.id, !usedAnswers.contains(key), givenAnswers[key] != nil { return (mark, key) }
        if tapsGoOn, block.kind == .text || block.kind == .image { return (mark, nil) }
        return nil
    }

    /// Takes the automatic step, if any: one a call (a flow that loops goes on tick by tick,
    /// so Ctrl-C and the terminal are served between steps).
    private func runAutomaticStep() -> [ProgramOutput] {
        guard let step = automaticStep() else { return [] }
        // In line mode the transcript so far comes first (the block before its answer), and what
        // the step made appear after it.
        var out = lineMode ? newLines() : []
        automaticTried = step.mark
        func then() -> [ProgramOutput] { lineMode ? out + newLines() : out }
        guard let key = step.key, let given = givenAnswers[key] else {
            apply(.send(.tap))
            return then()
        }
        usedAnswers.insert(key)
        let block = host.conversation.node(at: step.mark.index)
        let refused: String
        switch host.conversation.intent(answering: given.value, at: step.mark.index) {
        case .failure(let refusal): refused = refusal.message
        case .success(let intent):
            switch send(intent, block: block) {
            case .success(let echo):
                guard lineMode else { return [] }
                out += echo
                // A person at a terminal in line mode sees typed lines already, not given ones.
                if lineHints, case .textInput = block.content,
                    let text = host.conversation.transcript.lazy.reversed().compactMap({ item -> String? in
                        if case .reply(step.mark.index, let text, _) = item { return text }
                        return nil
                    }).first
                {
                    out.append(reply(text))
                }
                return then()
            case .failure(let e): refused = e.message
            }
        }
        let message = "\(given.place): the answer for \(key.quotedForMessage) is refused: \(refused)"
        if lineMode {
            out.append(.refuse(Sanitizer.clean(message, keepNewlines: false)))
            return then()
        }
        syncUI()  // the block's fresh state first, or the next frame's sync would clear the message
        ui.error = message
        return []
    }

    private func apply(_ action: FrontEndAction) {
        switch action {
        case .send(let intent):
            do {
                try host.send(intent)
            } catch .invalidInput(let failure) {
                ui.error = host.conversation.interpolate(strings.message(for: failure))
            } catch .noCloseButton {
                // Esc without a close button still ends the conversation, as the user asked.
                host.dismiss(reason: .closedByUser)
            } catch {
                // Not applicable now (a bounce is running, or the block already fired): ignore.
            }
        case .interrupt:
            interruptedBy = ProgramSignal.interrupt
            host.dismiss(reason: .interrupted)
        case .redraw, .none:
            break
        }
    }

    /// The shortcut `text` names, when the interactive block has no text field.
    private func shortcut(_ text: String) -> RocketIntent? {
        guard !shortcuts.isEmpty, let index = host.conversation.interactiveIndex else { return nil }
        if case .textInput = host.conversation.node(at: index).content { return nil }
        return shortcuts[text.trimmingSpaces().lowercased()]
    }

    /// A new interactive block resets focus and text; an input starts with its starting text
    /// (``Conversation/startingText(at:)``: its `value`, or the answer gone back to).
    private func syncUI() {
        let c = host.conversation
        // The day and time ↑/↓ start from are the conversation's own, as its bounds counted
        // from today and its today() read them.
        ui.now = host.clock.now
        let local = c.localTime(at: host.clock.now)
        ui.today = local?.dayText ?? today
        ui.timeOfDay = local?.timeText ?? timeOfDay
        KeyController.sync(&ui, with: c)
        guard let index = c.interactiveIndex, prefilled != index else { return }
        prefilled = index
        if let text = c.startingText(at: index), ui.editor.text.isEmpty { ui.editor.insert(text) }
    }

    /// See `TerminalProgram/nextDeadline(now:)`.
    public func nextDeadline(now: Double) -> Double? {
        if automaticStep() != nil { return now }
        let deadlines = [host.nextDeadline, overlay?.nextDeadline(now: now)].compactMap { $0 }
        return deadlines.min()
    }

    // MARK: TTY

    /// Loads (once) every picture the transcript shows, and the author's, looked at again only
    /// when the transcript grew; and the focused button's or option's picture of the waiting
    /// block, each decoded once it is focused (a key that moves the focus looks up one picture,
    /// not the transcript).
    private func loadImages() -> [String: TerminalImage] {
        let c = host.conversation
        var wanted: [RocketImage] = []
        if c.transcript.count != imagesFor {
            imagesFor = c.transcript.count
            if let avatar = c.author.image { wanted.append(avatar) }
            for case .block(_, let id, _) in c.transcript {
                if case .image(let img) = c.graph[id].content { wanted.append(img.image) }
            }
        }
        if let index = c.interactiveIndex {
            switch c.node(at: index).content {
            case .button(let b): wanted += [b.image].compactMap { $0 }
            case .doubleButton(let left, let right): wanted += [ui.focus == 1 ? right.image : left.image].compactMap { $0 }
            case .choice(let choice) where !choice.multiple && choice.options.indices.contains(ui.focus):
                wanted += [choice.options[ui.focus].image].compactMap { $0 }
            default: break
            }
        }
        var grew = false
        for image in wanted where imageCache[image.cacheKey] == nil {
            imageCache[image.cacheKey] = .some(pictures?(image))
            grew = true
        }
        if grew { loadedImages = imageCache.compactMapValues { $0 } }
        return loadedImages
    }
    private var loadedImages: [String: TerminalImage] = [:]
    private var imagesFor = -1

    /// See `TerminalProgram/view(width:now:)`: the banner's rows first, the conversation's below.
    public func view(width: Int, now: Double) -> ProgramFrame<ConversationTarget> {
        frame(width: width, height: nil, now: now)
    }

    /// See `TerminalProgram/view(width:height:now:)`: as ``view(width:now:)`` while it all fits
    /// the screen. A conversation taller than the screen keeps a long list's focus in sight
    /// (`ConversationView/height`), and a banner goes under it instead of over it: the rows over
    /// the screen's top are the scrollback's, where a banner would never be seen (and the rows
    /// it pushed down would be lost between the scrollback and the screen).
    public func view(width: Int, height: Int, now: Double) -> ProgramFrame<ConversationTarget> {
        frame(width: width, height: max(1, height), now: now)
    }

    private func frame(width: Int, height: Int?, now: Double) -> ProgramFrame<ConversationTarget> {
        let c = host.conversation
        syncUI()
        var view = ConversationView(width: width, author: c.author, closeTitle: c.closeButton?.title, strings: strings)
        view.drawsImages = depth > .none
        if view.drawsImages { view.images = loadImages() }
        let banner = overlay?.frame(width: view.width, now: now)
        view.height = height.map { max(1, $0 - (banner?.rows.count ?? 0)) }
        var (buffer, regions) = view.layout(c, ui: ui, cache: &layoutCache)
        ui.page = c.interactiveIndex.flatMap { layoutCache.lists[$0]?.count } ?? 10
        var hits: [HitRegion<ConversationTarget>] = []
        var offset = 0
        if let banner {
            let over = height.map { buffer.rows.count + banner.rows.count <= $0 } ?? true
            let bannerRow = over ? 0 : buffer.rows.count
            if over {
                offset = banner.rows.count
                buffer.rows.insert(contentsOf: banner.rows, at: 0)
                if let cursor = buffer.cursor { buffer.cursor = (cursor.row + offset, cursor.column) }
            } else {
                buffer.rows += banner.rows
            }
            hits = banner.hits.map { HitRegion(row: $0.row + bannerRow, columns: $0.columns, target: .banner($0.target)) }
        }
        hits += regions.map { HitRegion(row: $0.row + offset, columns: $0.columns, target: .intent($0.target)) }
        return ProgramFrame(buffer: buffer, hits: hits)
    }

    // MARK: Line mode

    private func say(_ s: String) -> ProgramOutput { .say(s) }

    /// The widest line mode writes a list of options on one line.
    static let plainLineColumns = 80

    /// The user's reply as line mode prints it: "you: " and the text, its further lines indented.
    private func reply(_ text: String) -> ProgramOutput {
        // An optional question left empty: said so in brackets (a bare "you:" reads as lost).
        if text.isEmpty { return say("\(strings.you): " + strings.aside.replacingAll("%@", with: strings.noAnswer)) }
        return say("\(strings.you): \(Sanitizer.clean(text).replacingAll("\n", with: "\n  "))")
    }

    private func newLines() -> [ProgramOutput] {
        var out: [ProgramOutput] = []
        let c = host.conversation
        // A prompt's conversation has no author name: its lines have no prefix.
        let name = Sanitizer.clean(c.author.name, keepNewlines: false)
        let lead = name.isEmpty ? "" : name + ": "
        // Gone back: the transcript is shorter than what was printed; the block gone back to is
        // asked again.
        if printedItems > c.transcript.count {
            printedItems = max(0, c.transcript.count - 1)
            promptedIndex = nil
        }
        while printedItems < c.transcript.count {
            switch c.transcript[printedItems] {
            case .block(_, let id, let rawText):
                let text = Sanitizer.clean(rawText).replacingAll("\n", with: "\n  ")
                switch c.graph[id].content {
                case .image(let img):
                    let file = img.image.path.map { ": " + Sanitizer.clean(PathName.lastComponent($0), keepNewlines: false) } ?? ""
                    out.append(say("\(lead)[\(strings.imageLabel)\(file)]" + (text.isEmpty ? "" : " " + text)))
                case .button(let b):
                    out.append(say("\(lead)[1] \(Sanitizer.clean(b.shownTitle(in: c), keepNewlines: false))"))
                case .doubleButton(let l, let r):
                    let left = Sanitizer.clean(l.shownTitle(in: c), keepNewlines: false)
                    let right = Sanitizer.clean(r.shownTitle(in: c), keepNewlines: false)
                    out.append(say("\(lead)[1] \(left)  [2] \(right)"))
                case .choice(let choice):
                    out.append(say(lead + text))
                    let options = choice.options.enumerated().map {
                        "[\($0.offset + 1)] " + Sanitizer.clean($0.element.shownTitle(in: c), keepNewlines: false)
                    }
                    // On one line while it fits 80 columns; a longer list, an option a line (as
                    // `rocket choose` prints its own), so no option is broken across lines.
                    let indent = String(repeating: " ", count: min(DisplayWidth.of(lead), 40))
                    let line = indent + options.joined(separator: "  ")
                    if DisplayWidth.of(line) <= ConversationApp.plainLineColumns {
                        out.append(say(line))
                    } else {
                        out += options.map { say(indent + $0) }
                    }
                case .rating(let r):
                    out.append(say(lead + text))
                    let low = r.labels.low.map { " " + Sanitizer.clean(c.interpolate($0), keepNewlines: false) } ?? ""
                    let high = r.labels.high.map { " " + Sanitizer.clean(c.interpolate($0), keepNewlines: false) } ?? ""
                    out.append(
                        say(String(repeating: " ", count: min(DisplayWidth.of(lead), 40)) + "\(r.values.lowerBound)\(low) … \(r.values.upperBound)\(high)"))
                case .textInput where text.isEmpty:
                    break  // no question: the prompt is the field alone
                default:
                    out.append(say(lead + text))
                }
            case .reply(_, let text, _):
                // On a terminal the user's own line is already on the screen: say it once.
                if !lineHints { out.append(reply(text)) }
            }
            printedItems += 1
        }
        if outcome == nil, let index = c.interactiveIndex, promptedIndex != index {
            promptedIndex = index
            // A block answered from what was given ahead is not prompted for.
            if lineHints, automaticStep() == nil {
                let block = c.node(at: index)
                switch block.kind {
                case .text, .image: out.append(say(strings.plainContinue))
                case .button, .doubleButton: out.append(say(strings.plainChoose.replacingAll("%d", with: block.kind == .button ? "1" : "2")))
                case .choice:
                    if case .choice(let choice) = block.content {
                        if let kept = keptChoices(at: index) { out.append(say(strings.plainKeeps.replacingAll("%@", with: kept.words))) }
                        if choice.multiple, let rule = strings.chooseRule(least: choice.minChosen, most: choice.maxChosen) { out.append(say(rule)) }
                        let prompt = choice.multiple ? strings.plainChooseMany : strings.plainChoose
                        out.append(say(prompt.replacingAll("%d", with: String(choice.options.count))))
                    }
                case .textInput:
                    if case .textInput(let input) = block.content, input.multiline {
                        out.append(say(strings.plainMultiline))
                    } else if case .textInput(let input) = block.content, !input.isSecret, let keep = c.startingText(at: index) {
                        // An empty line sends the starting text: the prompt says what that is.
                        out.append(say(strings.plainTypeKeep.replacingAll("%@", with: Sanitizer.clean(keep, keepNewlines: false))))
                    } else if let hint = c.fieldHint(at: index, now: host.clock.now), hint.isTypeHint {
                        // What the field would show of a typed answer: its bounds or form. (Not the
                        // flow's placeholder, which after the prompt would read as what Enter keeps.)
                        out.append(say(strings.plainTypeHint.replacingAll("%@", with: Sanitizer.clean(strings.words(for: hint), keepNewlines: false))))
                    } else {
                        out.append(say(strings.plainType))
                    }
                case .rating:
                    if let kept = keptChoices(at: index) { out.append(say(strings.plainKeeps.replacingAll("%@", with: kept.words))) }
                    if case .rating(let r) = block.content { out.append(say(r.filling(strings.plainRate))) }
                case .set, .condition, .jump: break  // never shown
                }
            }
        }
        return out
    }

    /// The options a choice or rating waiting at `index` starts with (``Conversation/startingChoices(at:)``):
    /// the intent an empty line sends, and what they say (titles, or the rating's value).
    private func keptChoices(at index: Int) -> (intent: RocketIntent, words: String)? {
        let c = host.conversation
        guard let start = c.startingChoices(at: index), !start.isEmpty else { return nil }
        switch c.node(at: index).content {
        case .choice(let choice):
            let words = start.map { Sanitizer.clean(choice.options[$0].shownTitle(in: c), keepNewlines: false) }.joined(separator: ", ")
            return (choice.multiple ? .chooseMany(start) : .choose(start[0]), words)
        case .rating(let r):
            let value = r.values.lowerBound + start[0]
            return (.rate(value), "\(value) / \(r.values.upperBound)")
        default: return nil
        }
    }

    private func answer(_ line: String) -> [ProgramOutput] {
        let c = host.conversation
        guard let index = c.interactiveIndex else { return [] }
        let block = c.node(at: index)
        // A multi-line answer: its lines up to one holding only "." ("\." is a typed dot).
        if case .textInput(let input) = block.content, input.multiline, pendingLines != nil || line != "<" {
            if line == "." {
                let lines = pendingLines ?? []
                pendingLines = nil
                return finishLines(lines, block: block)
            }
            pendingLines = (pendingLines ?? []) + [line == "\\." ? "." : line]
            return []
        }
        var line = line
        // An empty line sends the starting text (as Enter on a field that holds it does), or the
        // options a choice or rating starts with.
        if case .textInput = block.content, line.isEmpty, let text = c.startingText(at: index) { line = text }
        if line.isEmpty, let kept = keptChoices(at: index) {
            switch send(kept.intent, block: block) {
            case .success(let out): return out
            case .failure(let e): return [.refuse(e.message)]
            }
        }
        let chosen = shortcut(line).map { Result<RocketIntent, PlainInputError>.success($0) }
        switch chosen ?? PlainController.intent(for: line, block: block, strings: strings) {
        case .success(let intent):
            switch send(intent, block: block) {
            case .success(let out): return out
            case .failure(let e): return [.refuse(e.message)]
            }
        case .failure(let e):
            return [.refuse(e.message)]
        }
    }

    /// Sends the lines of a multi-line answer as one text (an empty answer when there are none:
    /// the end of input right away, or a "." first).
    private func finishLines(_ lines: [String], block: RocketNode) -> [ProgramOutput] {
        var text = lines.joined(separator: "\n")
        if text.isEmpty, let index = host.conversation.interactiveIndex, let value = host.conversation.startingText(at: index) { text = value }
        switch send(.submit(text), block: block) {
        case .success(let out): return out
        case .failure(let e): return [.refuse(e.message)]
        }
    }

    /// Sends `intent` to `block`, the interactive one: what line mode echoes (a button is echoed
    /// by its title, what "1" chose), or the message of a refusal.
    private func send(_ intent: RocketIntent, block: RocketNode) -> Result<[ProgramOutput], PlainInputError> {
        do {
            try host.send(intent)
            switch (intent, block.content) {
            case (.pressButton, .button(let b)):
                return .success([say("\(strings.you): \(Sanitizer.clean(host.conversation.interpolate(b.title), keepNewlines: false))")])
            case (.pressLeft, .doubleButton(let l, _)), (.pressRight, .doubleButton(_, let l)):
                return .success([say("\(strings.you): \(Sanitizer.clean(host.conversation.interpolate(l.title), keepNewlines: false))")])
            case (.choose(let k), .choice(let choice)) where choice.options.indices.contains(k):
                return .success([say("\(strings.you): \(Sanitizer.clean(host.conversation.interpolate(choice.options[k].title), keepNewlines: false))")])
            case (.chooseMany(let picked), .choice(let choice)):
                // The options ticked, in the options' order, as the answer keeps them.
                let titles = Set(picked).sorted().filter { choice.options.indices.contains($0) }.map {
                    Sanitizer.clean(host.conversation.interpolate(choice.options[$0].title), keepNewlines: false)
                }
                return .success([say("\(strings.you): \(titles.joined(separator: ", "))")])
            case (.rate(let value), .rating(let rating)):
                // As the browser's reply says it: the value out of the top of the scale.
                return .success([say("\(strings.you): \(value) / \(rating.values.upperBound)")])
            default: return .success([])
            }
        } catch .invalidInput(let failure) {
            return .failure(PlainInputError(message: host.conversation.interpolate(strings.message(for: failure))))
        } catch .cannotGoBack {
            return .failure(PlainInputError(message: strings.cannotGoBack))
        } catch {
            return .success([])  // a block that is not interactive now: the line is dropped
        }
    }
}
