import Foundation
import Testing

@testable import RocketCLI
@testable import RocketFlow

@Suite("Lint and test results as GitHub Actions annotations")
struct CIFormatTests {
    @Test("lint --format github: one workflow command a diagnostic, placed, titled by its code; the runner's special characters escaped")
    func lintAnnotations() throws {
        let dir = scratchDirectory()
        // A message with % (the runner's escape), a path with a comma and a colon in the file name.
        write(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "50%", "next": "b,c"}]}"#, to: dir + "/x:y.json")
        let run = try runRocket(["lint", dir + "/x:y.json", "--format", "github"])
        #expect(run.status == 65)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 1, "\(run.stdout)")
        let escapedName = dir.replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C") + "/x%3Ay.json"
        #expect(
            lines.first == "::error file=\(escapedName),line=1,col=78,title=rocket lint (unknown-target)::no block has the id \"b,c\" (blocks[0].next)",
            "\(lines)")
        // Warnings are warnings; a file that cannot be read has no line.
        write(#"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "hi"}, {"id": "b", "type": "text", "text": "never"}]}"#, to: dir + "/w.json")
        let warned = try runRocket(["lint", dir + "/w.json", dir + "/none.json", "--format", "github"])
        #expect(warned.status == 66)
        #expect(warned.stdout.contains("::warning file=\(dir)/w.json,line=1,col="), "\(warned.stdout)")
        #expect(warned.stdout.contains("::error file=\(dir)/none.json,title=rocket lint (unreadable)::cannot read the file: no such file"), "\(warned.stdout)")
        // Text stays the default; --json is --format json, and a second, other format is refused.
        #expect(try runRocket(["lint", dir + "/x:y.json"]).stdout.hasPrefix(dir + "/x:y.json:1:78: error: "))
        #expect(try runRocket(["lint", dir + "/x:y.json", "--format", "json"]).stdout == runRocket(["lint", dir + "/x:y.json", "--json"]).stdout)
        let both = try runRocket(["lint", dir + "/x:y.json", "--json", "--format", "github"])
        #expect(both.status == 64 && both.stderr.contains("--json is --format json"))
        let unknown = try runRocket(["lint", dir + "/x:y.json", "--format", "xml"])
        #expect(unknown.status == 64 && unknown.stderr.contains("'--format xml' must be text, json or github"), "\(unknown.stderr)")
    }

    @Test("The annotation of a message with line breaks and percent signs stays one command")
    func escaping() {
        let d = FlowDiagnostic(severity: .error, code: "c", message: "100% sure\nnext\rline", path: "a,b", line: 3, column: 4)
        #expect(
            d.githubAnnotation(file: "f,1:2.json")
                == "::error file=f%2C1%3A2.json,line=3,col=4,title=rocket lint (c)::100%25 sure\u{FFFD}next\u{FFFD}line (a,b)")
        #expect(d.githubAnnotation(file: "f", title: "rocket test: 'x, y'").contains(",title=rocket test%3A 'x%2C y'::"))
    }

    @Test("test --format github: the report as text, and each failure also an annotation on its line of the test file")
    func testAnnotations() throws {
        let dir = scratchDirectory()
        write(#"{"version": 1, "blocks": [{"id": "hi", "type": "text", "text": "Hello"}]}"#, to: dir + "/f.json")
        write(
            """
            {"cases": [
              {"name": "greets", "expect": {"reaches": ["hi"]}},
              {"name": "wrong, on purpose", "expect": {"says": ["Goodbye"]}}
            ]}
            """, to: dir + "/f.test.json")
        let run = try runRocket(["test", dir + "/f.json", "--format", "github"])
        #expect(run.status != 0)
        #expect(run.stdout.contains("PASS \(dir)/f.test.json \"greets\""), "\(run.stdout)")
        #expect(run.stdout.contains("FAIL \(dir)/f.test.json \"wrong, on purpose\""))
        let annotation = run.stdout.split(separator: "\n").first { $0.hasPrefix("::error ") }.map(String.init) ?? ""
        #expect(annotation.hasPrefix("::error file=\(dir)/f.test.json,line=3,col="), "\(run.stdout)")
        #expect(annotation.hasSuffix(",title=rocket test%3A \"wrong%2C on purpose\"::no block shown says \"Goodbye\" (it went hi)"), "\(annotation)")
        // A broken test file is an annotation too (on stdout, where the runner reads commands).
        write("{", to: dir + "/g.test.json")
        let broken = try runRocket(["test", dir + "/g.test.json", "--format", "github"])
        #expect(broken.status == 65 && broken.stdout.hasPrefix("::error file=\(dir)/g.test.json,line="), "\(broken.stdout)\(broken.stderr)")
    }
}
