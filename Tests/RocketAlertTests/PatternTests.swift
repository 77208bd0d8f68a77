import Testing
import RocketConversation
#if canImport(Glibc)
    import Glibc
#endif

@Suite("Validation patterns with a bounded cost")
struct PatternTests {
    /// CPU time of this process (not wall time: another process on the machine cannot inflate it
    /// much, and the bound asserted is ten times the measured typical cost).
    func cpuSeconds(_ body: () -> Void) -> Double {
        var a = timespec(), b = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a)
        body()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b)
        return Double(b.tv_sec - a.tv_sec) + Double(b.tv_nsec - a.tv_nsec) / 1e9
    }

    @Test("The catastrophic pattern stops at its step limit and counts as a failed validation")
    func catastrophic() throws {
        let rule = RocketInputValidation(pattern: "^(a+)+$", message: "letters a only")
        let text = String(repeating: "a", count: 30) + "!"
        var failure: RocketValidationFailure?
        let spent = cpuSeconds { failure = rule.check(text) }
        #expect(failure == RocketValidationFailure(rule: .patternTooComplex("^(a+)+$"), message: "letters a only"))
        #expect(spent < 1.0, "took \(spent) s of CPU")
        #expect(rule.check(String(repeating: "a", count: 30)) == nil)
    }

    @Test("Any of these patterns against 64 KiB of hostile text stays within its limits")
    func hostileTexts() throws {
        let patterns = ["^(a+)+$", "(a|aa)*b", "^(\\w+\\s?)*$", "(.*a){12}", "^(([a-z])+.)+[A-Z]([a-z])+$", "(x+x+)+y"]
        let texts = [
            String(repeating: "a", count: 65_536), String(repeating: "a", count: 65_535) + "!",
            String(repeating: "x", count: 65_536), String(repeating: "ab ", count: 21_845),
        ]
        for p in patterns {
            let compiled = try RocketPattern.compile(p).get()
            for t in texts {
                var outcome: RocketPattern.Outcome?
                let spent = cpuSeconds { outcome = compiled.match(t) }
                #expect(outcome != nil)
                #expect(spent < 1.0, "\(p) took \(spent) s of CPU")
            }
        }
    }

    @Test("Ordinary patterns behave as before: anchors, classes, case-insensitive flags, Unicode")
    func ordinary() throws {
        #expect(RocketInputCondition.pattern("(?i)^ada").matches("Ada Lovelace"))
        #expect(!RocketInputCondition.pattern("^ada").matches("Ada"))
        #expect(RocketInputValidation(pattern: "^[^0-9]*$").check("Grace") == nil)
        #expect(RocketInputValidation(pattern: "^[^0-9]*$").check("R2D2")?.rule == .pattern("^[^0-9]*$"))
        #expect(RocketInputValidation(pattern: "^\\d{4}$").check("1234") == nil)
        #expect(RocketInputValidation(pattern: "^\\w+$").check("界é") == nil)
        #expect(RocketInputValidation(pattern: "(").check("x")?.rule == .invalidPattern("("))
        #expect(!RocketInputCondition.pattern("(").matches("("))
    }

    @Test("Nested quantifiers are recognised for lint; simple ones are not")
    func nested() {
        for p in ["^(a+)+$", "(\\w*)*", "(?:x+y?){2,}", "((ab)*c)+", "([a-z]+)*"] {
            #expect(RocketPattern.hasNestedQuantifier(p), "\(p)")
        }
        for p in ["^a+$", "(ab)+", "[a+]+", "\\(a+\\)+", "(a{2,3})+", "^[^0-9]*$", "(?i)^ada"] {
            #expect(!RocketPattern.hasNestedQuantifier(p), "\(p)")
        }
    }
}
