import Foundation
import Testing

/// `--state` files written by the release before snapshot format 2 resume after the upgrade and
/// are written again in format 2 (Fixtures/snapshot-v1, made by that release).
@Suite("Saved conversations of the previous release resume")
struct SnapshotCompatibilityTests {
    static let fixtures = DocumentedExitStatusTests.root.appendingPathComponent("Tests/RocketCLITests/Fixtures/snapshot-v1").path

    /// A copy of the fixtures (the runs rewrite the state files).
    func copy() throws -> String {
        let dir = scratchDirectory() + "/v1"
        try FileManager.default.copyItem(atPath: Self.fixtures, toPath: dir)
        return dir
    }

    @Test(
        "Each version-1 state file resumes where it stopped, and is saved again as version 2",
        arguments: [
            // (flow, state file, input, what the resumed run shows, the blocks saved after it)
            ("welcome", "start", "1\n", "What's your name?", #""blocks":[{"id":"welcome","#),
            ("welcome", "name", "Ada\n", "Hello Countess Ada", #"{"id":"ada","#),
            ("welcome", "timer", "1\n", "What's your name?", #"{"id":"name","#),
        ])
    func resumes(flow: String, state: String, input: String, shown: String, saved: String) throws {
        let dir = try copy()
        let statePath = dir + "/\(state).state.json"
        let before = try String(contentsOfFile: statePath, encoding: .utf8)
        #expect(before.contains(#""version":1"#))
        let r = try runRocket(["play", dir + "/\(flow).json", "--plain", "--instant", "--state", statePath], stdin: input)
        #expect(r.stderr.contains(shown), "\(r.stderr)")
        #expect(!r.stderr.contains("error"), "\(r.stderr)")
        let after = try String(contentsOfFile: statePath, encoding: .utf8)
        #expect(after.contains(#""version":2"#) && after.contains(saved), "\(after)")
        #expect(!after.contains(#""_0""#) && !after.contains(#"{"active":{}}"#))
    }

    @Test("A version-1 state file of a finished choice resumes to its end and is removed")
    func choiceEnds() throws {
        let dir = try copy()
        let statePath = dir + "/choice.state.json"
        let r = try runRocket(["play", dir + "/choice.json", "--plain", "--instant", "--state", statePath], stdin: "\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("Great, Pro!"))
        #expect(!FileManager.default.fileExists(atPath: statePath))
    }

    @Test("A version-1 state file of another flow is refused with 65, as before")
    func otherFlow() throws {
        let dir = try copy()
        let r = try runRocket(["play", dir + "/choice.json", "--plain", "--state", dir + "/name.state.json"])
        #expect(r.status == 65)
        #expect(r.stderr.contains("different flow"))
    }
}
