import RocketConversation
import RocketCore
import RocketTerminalApps
import RocketTerminalCore
import RocketText
import Testing

/// Ratings and multiple choices in the terminal: line mode and keys.
@Suite("Ratings and multiple choices in the terminal")
struct RatingChoiceKeyTests {
    static func graph() -> RocketGraph {
        var g = RocketGraph()
        var choice = RocketChoiceNode(text: "What did you have?", options: ["Tea", "Cake", "Milk"].map { RocketButtonNode(title: $0) })
        choice.multiple = true
        let food = g.add(RocketNode(id: "food", content: .choice(choice)))
        let stars = g.add(
            RocketNode(
                id: "stars",
                content: .rating(RocketRatingNode(text: "How was it?", scale: 5, labels: RocketRatingLabels(low: "Poor", high: "Great"), next: food))))
        g.root = stars
        return g
    }

    @Test("line mode: a rating by number or by its end's word; a multiple choice by numbers or titles")
    func lines() {
        let g = Self.graph()
        let rating = g.nodes[1], choice = g.nodes[0]
        #expect(PlainController.intent(for: "4", block: rating, strings: .english) == .success(.rate(4)))
        #expect(PlainController.intent(for: "great", block: rating, strings: .english) == .success(.rate(5)))
        #expect(PlainController.intent(for: "Poor", block: rating, strings: .english) == .success(.rate(1)))
        if case .success = PlainController.intent(for: "9", block: rating, strings: .english) { Issue.record("9 is off the scale") }
        #expect(PlainController.intent(for: "1, 3", block: choice, strings: .english) == .success(.chooseMany([0, 2])))
        #expect(PlainController.intent(for: "tea cake", block: choice, strings: .english) == .success(.chooseMany([0, 1])))
        #expect(PlainController.intent(for: "Milk", block: choice, strings: .english) == .success(.chooseMany([2])))
        if case .success = PlainController.intent(for: "1 4", block: choice, strings: .english) { Issue.record("4 is no option") }
    }

    @Test("keys: arrows or a digit pick a rating and Enter sends it; Space ticks options and Enter confirms them")
    func keys() throws {
        var c = Conversation(graph: Self.graph(), options: ConversationOptions(timing: .instant))
        c.start(at: 0)
        var ui = ConversationUI()
        // Nothing is picked at first: Enter and Space send nothing, the scale says so, and
        // under it, once sent, that a value is wanted.
        let view = ConversationView(width: 60, author: RocketAuthor(image: nil, name: "Rocket"), closeTitle: nil, strings: .english)
        #expect(!view.layout(c, ui: ui).0.lines.joined(separator: "\n").contains("Pick a rating"))
        #expect(KeyController.handle(.enter, conversation: c, ui: &ui) == .redraw)
        #expect(KeyController.handle(.character(" "), conversation: c, ui: &ui) == .redraw)
        let unpicked = view.layout(c, ui: ui).0.lines.joined(separator: "\n")
        #expect(unpicked.contains("☆ ☆ ☆ ☆ ☆ –/5") && unpicked.contains("Pick a rating from 1 to 5 first."), "\(unpicked)")
        // The first arrow picks the bottom (and the words go).
        #expect(KeyController.handle(.right, conversation: c, ui: &ui) == .redraw)
        #expect(!view.layout(c, ui: ui).0.lines.joined(separator: "\n").contains("Pick a rating"))
        #expect(KeyController.handle(.enter, conversation: c, ui: &ui) == .send(.rate(1)))
        #expect(KeyController.handle(.character("3"), conversation: c, ui: &ui) == .redraw)
        #expect(KeyController.handle(.right, conversation: c, ui: &ui) == .redraw)
        #expect(KeyController.handle(.enter, conversation: c, ui: &ui) == .send(.rate(4)))
        _ = try c.send(.rate(4), at: 1)
        ui = ConversationUI()
        #expect(KeyController.handle(.character(" "), conversation: c, ui: &ui) == .redraw)
        #expect(KeyController.handle(.down, conversation: c, ui: &ui) == .redraw)
        #expect(KeyController.handle(.down, conversation: c, ui: &ui) == .redraw)
        #expect(KeyController.handle(.character(" "), conversation: c, ui: &ui) == .redraw)
        #expect(ui.ticked == [0, 2])
        #expect(KeyController.handle(.enter, conversation: c, ui: &ui) == .send(.chooseMany([0, 2])))
    }

    @Test("digits typed within a second of each other make one number on the scale: 1 then 0 picks 10; later, or off the scale, each digit alone")
    func twoDigitRating() throws {
        var g = RocketGraph()
        g.root = g.add(RocketNode(id: "nps", content: .rating(RocketRatingNode(text: "Recommend us?", scale: 10, lowest: 0))))
        var c = Conversation(graph: g, options: ConversationOptions(timing: .instant))
        c.start(at: 0)
        var ui = ConversationUI()
        ui.now = 100
        func type(_ ch: Character, at now: Double) -> FrontEndAction {
            ui.now = now
            return KeyController.handle(.character(ch), conversation: c, ui: &ui)
        }
        #expect(type("1", at: 100) == .redraw && ui.focus == 1)
        #expect(type("0", at: 100.4) == .redraw && ui.focus == 10, "1, 0: ten")
        #expect(KeyController.handle(.enter, conversation: c, ui: &ui) == .send(.rate(10)))
        #expect(type("1", at: 101) == .redraw && type("1", at: 101.2) == .redraw && ui.focus == 1, "11 is off the scale: the second 1 alone")
        #expect(type("0", at: 101.4) == .redraw && ui.focus == 10)
        #expect(type("5", at: 103) == .redraw && ui.focus == 5)
        #expect(type("0", at: 103 + KeyController.digitPause) == .redraw && ui.focus == 0, "too late to make 50 (and 50 is off the scale)")
        #expect(type("1", at: 110) == .redraw && type("0", at: 112) == .redraw && ui.focus == 0, "two seconds apart: each alone")
        // Another key between two digits ends the number.
        #expect(type("1", at: 120) == .redraw && KeyController.handle(.right, conversation: c, ui: &ui) == .redraw && ui.focus == 2)
        #expect(type("0", at: 120.1) == .redraw && ui.focus == 0)
        // Without a clock, digits are never put together.
        ui.now = nil
        _ = KeyController.handle(.character("1"), conversation: c, ui: &ui)
        _ = KeyController.handle(.character("0"), conversation: c, ui: &ui)
        #expect(ui.focus == 0)
        // A scale of stars: 1 then 2 is not 12 but 2.
        var stars = RocketGraph()
        stars.root = stars.add(RocketNode(id: "s", content: .rating(RocketRatingNode(text: "Stars?", scale: 5))))
        var s = Conversation(graph: stars, options: ConversationOptions(timing: .instant))
        s.start(at: 0)
        var sui = ConversationUI()
        sui.now = 5
        _ = KeyController.handle(.character("1"), conversation: s, ui: &sui)
        _ = KeyController.handle(.character("2"), conversation: s, ui: &sui)
        #expect(sui.focus == 1 && KeyController.handle(.enter, conversation: s, ui: &sui) == .send(.rate(2)))
    }

    @Test("a typed character moves the focus to the next option that begins with it, going round, in a list of one or several")
    func typeAhead() throws {
        for multiple in [false, true] {
            var g = RocketGraph()
            var choice = RocketChoiceNode(text: "Drink?", options: ["Tea", "Cake", "coffee", "Milk"].map { RocketButtonNode(title: $0) })
            choice.multiple = multiple
            g.root = g.add(RocketNode(id: "drink", content: .choice(choice)))
            var c = Conversation(graph: g, options: ConversationOptions(timing: .instant))
            c.start(at: 0)
            var ui = ConversationUI()
            #expect(KeyController.handle(.character("c"), conversation: c, ui: &ui) == .redraw)
            #expect(ui.focus == 1)
            _ = KeyController.handle(.character("C"), conversation: c, ui: &ui)
            #expect(ui.focus == 2, "letters in any case")
            _ = KeyController.handle(.character("c"), conversation: c, ui: &ui)
            #expect(ui.focus == 1, "round to the first again")
            _ = KeyController.handle(.character("m"), conversation: c, ui: &ui)
            #expect(ui.focus == 3)
            #expect(KeyController.handle(.character("x"), conversation: c, ui: &ui) == .none)
            #expect(ui.focus == 3)
            // Space still ticks (several) or chooses (one).
            #expect(KeyController.handle(.character(" "), conversation: c, ui: &ui) == (multiple ? .redraw : .send(.choose(3))))
        }
    }

    @Test("drawn: stars filled to the value with the words under the ends; boxes ticked, and a Done button")
    func drawn() throws {
        var c = Conversation(graph: Self.graph(), options: ConversationOptions(timing: .instant))
        c.start(at: 0)
        var ui = ConversationUI()
        _ = KeyController.handle(.character("4"), conversation: c, ui: &ui)
        func drawn() -> String {
            ConversationView(width: 60, author: RocketAuthor(image: nil, name: "Rocket"), closeTitle: nil, strings: .english).layout(c, ui: ui).0.lines
                .joined(separator: "\n")
        }
        var text = drawn()
        #expect(text.contains("★ ★ ★ ★ ☆ 4/5"), "\(text)")
        #expect(text.contains("1 Poor … 5 Great"))
        _ = try c.send(.rate(4), at: 1)
        ui = ConversationUI()
        _ = KeyController.handle(.character(" "), conversation: c, ui: &ui)
        text = drawn()
        #expect(text.contains("☑ Tea") && text.contains("☐ Cake") && text.contains("[ Done ]"), "\(text)")
        #expect(text.contains("Space tick · Enter confirm"))
    }

    @Test("a scale from 0: line mode takes 0 to 10 and the ends' words, keys pick 0 with a digit or Home, the numbers are drawn")
    func fromZero() throws {
        var g = RocketGraph()
        let labels = RocketRatingLabels(low: "Never", high: "Surely")
        g.root = g.add(RocketNode(id: "nps", content: .rating(RocketRatingNode(text: "Recommend us?", scale: 10, lowest: 0, labels: labels))))
        let block = g.nodes[0]
        #expect(PlainController.intent(for: "0", block: block, strings: .english) == .success(.rate(0)))
        #expect(PlainController.intent(for: " 10 ", block: block, strings: .english) == .success(.rate(10)))
        #expect(PlainController.intent(for: "never", block: block, strings: .english) == .success(.rate(0)))
        #expect(PlainController.intent(for: "Surely", block: block, strings: .english) == .success(.rate(10)))
        for bad in ["11", "-1", "zero", ""] {
            guard case .failure(let e) = PlainController.intent(for: bad, block: block, strings: .english) else {
                Issue.record("\(bad) is off the scale")
                continue
            }
            #expect(e.message.hasSuffix("Rate from 0 to 10:"), "\(e.message)")
        }
        var c = Conversation(graph: g, options: ConversationOptions(timing: .instant))
        c.start(at: 0)
        var ui = ConversationUI()
        #expect(KeyController.handle(.character("7"), conversation: c, ui: &ui) == .redraw)
        #expect(KeyController.handle(.enter, conversation: c, ui: &ui) == .send(.rate(7)))
        #expect(KeyController.handle(.character("0"), conversation: c, ui: &ui) == .redraw)
        #expect(KeyController.handle(.enter, conversation: c, ui: &ui) == .send(.rate(0)))
        #expect(KeyController.handle(.end, conversation: c, ui: &ui) == .redraw)
        #expect(KeyController.handle(.right, conversation: c, ui: &ui) == .redraw)
        #expect(KeyController.handle(.character(" "), conversation: c, ui: &ui) == .send(.rate(10)))
        #expect(KeyController.handle(.home, conversation: c, ui: &ui) == .redraw)
        func drawn() -> String {
            ConversationView(width: 60, author: RocketAuthor(image: nil, name: "Rocket"), closeTitle: nil, strings: .english).layout(c, ui: ui).0.lines
                .joined(separator: "\n")
        }
        var text = drawn()
        #expect(text.contains("0 1 2 3 4 5 6 7 8 9 10 0/10") && !text.contains("★") && !text.contains("☆"), "\(text)")
        #expect(text.contains("0 Never … 10 Surely") && text.contains("←/→ or 0-10 rate"), "\(text)")
        _ = try c.send(.rate(0), at: 1)
        ui = ConversationUI()
        text = drawn()
        #expect(text.contains("0/10"), "\(text)")
    }

    @Test("a rating of 10 in a terminal narrower than its stars draws what fits and never traps")
    func narrow() throws {
        var g = RocketGraph()
        g.root = g.add(RocketNode(id: "r", content: .rating(RocketRatingNode(text: "Score?", scale: 10))))
        var c = Conversation(graph: g, options: ConversationOptions(timing: .instant))
        c.start(at: 0)
        var ui = ConversationUI()
        _ = KeyController.handle(.character("9"), conversation: c, ui: &ui)
        for width in [1, 12, 13, 20] {
            let (screen, _) = ConversationView(width: width, author: RocketAuthor(image: nil, name: "R"), closeTitle: nil, strings: .english)
                .layout(c, ui: ui)
            #expect(screen.lines.contains { $0.contains("★") }, "width \(width)")
        }
    }
}
