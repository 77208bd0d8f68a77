import RocketCore
import Testing

/// RocketCore's text search and replace agree with the standard library's `_StringProcessing`
/// algorithms they stand in for (kept out of the static binary).
@Suite("Text helpers: search, replace and split without _StringProcessing")
struct TextHelpersTests {
    /// Strings over a small alphabet (so that patterns occur often), with characters that are
    /// several scalars and several bytes.
    static func samples(count: Int, seed: UInt64) -> [String] {
        let alphabet: [String] = ["a", "b", "-", " ", "·", "e\u{301}", "é", "👍🏽", "\n", "\r\n"]
        var state = seed
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        return (0..<count).map { _ in (0..<(next() % 12)).map { _ in alphabet[next() % alphabet.count] }.joined() }
    }

    @Test("firstOffset and offsets find where an array holds another, short needles and long (Knuth–Morris–Pratt), as a plain search does")
    func firstOffset() {
        // Over two letters, so that overlaps and partial matches (where the fallback table is used) are common.
        var state: UInt64 = 7
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(state >> 33)
        }
        func plain(_ text: [UInt8], _ needle: [UInt8]) -> Int? {
            guard !needle.isEmpty else { return 0 }
            guard needle.count <= text.count else { return nil }
            return (0...(text.count - needle.count)).first { Array(text[$0..<($0 + needle.count)]) == needle }
        }
        // Every match, left to right and not overlapping, as a plain search that skips each one.
        func plainAll(_ text: [UInt8], _ needle: [UInt8]) -> [Int] {
            guard !needle.isEmpty else { return [] }
            var out: [Int] = []
            var at = 0
            while at + needle.count <= text.count {
                if Array(text[at..<(at + needle.count)]) == needle {
                    out.append(at)
                    at += needle.count
                } else {
                    at += 1
                }
            }
            return out
        }
        for _ in 0..<20_000 {
            let text = (0..<(next() % 40)).map { _ in UInt8(97 + next() % 2) }
            let needle = (0..<(next() % 14)).map { _ in UInt8(97 + next() % 2) }
            #expect(text.firstOffset(of: needle) == plain(text, needle), "\(text) \(needle)")
            #expect(text.offsets(of: needle) == plainAll(text, needle), "\(text) \(needle)")
            #expect(text.offsets(of: needle, limit: 2) == Array(plainAll(text, needle).prefix(2)))
        }
        #expect(Array("feature/branch".utf8).firstOffset(of: Array("bra".utf8)) == 8)
        #expect(Array("é-é".map { $0 }).firstOffset(of: ["-", "é"]) == 1)
        // The shape that a search in place takes a billion steps over: found, and not found.
        let text = [UInt8](repeating: 97, count: 65_536)
        #expect(text.firstOffset(of: [UInt8](repeating: 97, count: 32_768) + [98]) == nil)
        #expect((text + [98]).firstOffset(of: [UInt8](repeating: 97, count: 32_768) + [98]) == 32_768)
    }

    @Test("the same answers as the standard library on 40,000 pairs of strings")
    func agrees() {
        let texts = Self.samples(count: 400, seed: 7)
        let patterns = Self.samples(count: 100, seed: 11).filter { !$0.isEmpty } + ["a", "-", "e", "\r", "\u{301}"]
        for t in texts {
            for p in patterns {
                #expect(t.containsText(p) == t.contains(p), "\(t.debugDescription) contains \(p.debugDescription)")
                #expect(t.range(ofText: p) == t.firstRange(of: p))
                #expect(t.replacingAll(p, with: "<>") == t.replacing(p, with: "<>"))
                #expect(t.splitting(at: p) == t.split(separator: p))
                #expect(t.splitting(at: p, keepingEmpty: true) == t.split(separator: p, omittingEmptySubsequences: false))
                #expect(t.splitting(at: p, maxSplits: 1, keepingEmpty: true) == t.split(separator: p, maxSplits: 1, omittingEmptySubsequences: false))
            }
        }
    }

    @Test("edges: empty text and patterns, overlapping matches, a pattern longer than the text")
    func edges() {
        #expect("".containsText(""))
        #expect("abc".containsText(""))
        #expect("abc".range(ofText: "") == nil)
        #expect("abc".replacingAll("", with: "x") == "abc")
        #expect("aaaa".replacingAll("aa", with: "b") == "bb")
        #expect("aaa".replacingAll("aa", with: "b") == "ba")
        #expect("ab".range(ofText: "abc") == nil)
        #expect("a · b ·  · c".splitting(at: " · ") == ["a", "b", "c"])
        #expect("a · b ·  · c".splitting(at: " · ", keepingEmpty: true) == ["a", "b", "", "c"])
        #expect("__W__".splitting(at: "__W__", maxSplits: 1, keepingEmpty: true) == ["", ""])
        // A combining accent belongs to its character: "e" does not occur in "é" written as e + ◌́.
        #expect(!"e\u{301}".containsText("e"))
        #expect("cafe\u{301} cafe".replacingAll("cafe", with: "tea") == "cafe\u{301} tea")
    }
}

@Suite("Hints for names: the nearest within two edits, without measuring what cannot be near")
struct SuggestionTests {
    @Test("The nearest name within two edits and a third of the word, ties broken by name; none past them")
    func nearest() {
        #expect(Suggestions.closest(to: "nxt", in: ["next", "text", "nest"]) == "next")
        #expect(Suggestions.closest(to: "tet", in: ["text", "test"]) == "test")  // a tie: the first by name
        #expect(Suggestions.closest(to: "NEXT", in: ["next"]) == "next")
        #expect(Suggestions.closest(to: "abcdef", in: ["abc", "xyzdef"]) == nil)
        #expect(Suggestions.closest(to: "plian", in: ["plain", "json"]) == "plain")
        // Short words: one edit at most, so a hint has something in common with the word.
        #expect(Suggestions.closest(to: "zz", in: ["a", "b"]) == nil)
        #expect(Suggestions.closest(to: "b", in: ["a"]) == nil, "one letter for another is a guess")
        #expect(Suggestions.closest(to: "ab", in: ["abc"]) == "abc")
        #expect(Suggestions.closest(to: "txt", in: ["text", "tax"]) == "text")  // "tax" is two edits away
        #expect(Suggestions.closest(to: "plya", in: ["play", "lint"]) == "play")
        // Two neighbours swapped are one edit, the commonest typo.
        #expect(Suggestions.editDistance("aks", "ask") == 1 && Suggestions.editDistance("titel", "title") == 1)
        #expect(Suggestions.editDistance("abc", "ca") == 3 && Suggestions.editDistance("kitten", "sitting") == 3)
        #expect(Suggestions.closest(to: "aks", in: ["ask", "bye"]) == "ask")
    }

    @Test("Long names get no hint and long candidates are passed over (two 60,000-character names took 40 s to measure)")
    func longNames() {
        let long = String(repeating: "a", count: 60_000)
        #expect(Suggestions.closest(to: long, in: [long + "b"]) == nil)
        #expect(Suggestions.closest(to: "ab", in: [long, "abc"]) == "abc")
        let edge = String(repeating: "x", count: Suggestions.maxWordLength)
        #expect(Suggestions.closest(to: edge, in: [edge + "y"]) == nil)  // the candidate is too long
        #expect(Suggestions.closest(to: edge.dropLast() + "z", in: [edge]) == edge)
    }

    @Test("names in the order people sort them: digits as numbers, a total order (sorting is stable whatever the input order)")
    func naturalOrder() {
        let names = ["step10", "step2", "step1", "intro", "step02", "Step3", "v1.10.json", "v1.9.json", "a", "a1", "a01", "a1b", "a01c", "b", "z0", "9", "10"]
        let sorted = names.sorted(by: PathName.naturalOrder)
        #expect(
            sorted == [
                "9", "10", "Step3", "a", "a01", "a1", "a1b", "a01c", "b", "intro", "step1", "step02", "step2", "step10", "v1.9.json", "v1.10.json", "z0",
            ], "\(sorted)")
        // A strict total order: irreflexive, asymmetric, transitive, over many names.
        let many = TextHelpersTests.samples(count: 120, seed: 9).map { $0 + ["", "1", "01", "10", "2", "007"][$0.utf8.count % 6] }
        for a in many {
            #expect(!PathName.naturalOrder(a, a))
            for b in many where PathName.naturalOrder(a, b) {
                #expect(!PathName.naturalOrder(b, a), "\(a) \(b)")
                for c in many where PathName.naturalOrder(b, c) { #expect(PathName.naturalOrder(a, c), "\(a) \(b) \(c)") }
            }
        }
        // Huge runs of digits compare by length, never as numbers that overflow.
        #expect(PathName.naturalOrder("f" + String(repeating: "9", count: 40), "f1" + String(repeating: "0", count: 40)))
    }
}
