import Foundation
import Testing
#if canImport(Glibc)
    import Glibc
#endif

/// Every exit status the README and docs/ state, run against the program: each claim names the
/// sentence it checks (the sentence must still be in the document, so a reworded document is
/// checked again here) and a command that must end with that status.
@Suite("The exit statuses the README and docs state are the program's")
struct DocumentedExitStatusTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct Claim: CustomTestStringConvertible, Sendable {
        var document: String
        var says: String
        var args: [String]
        var stdin = ""
        var status: Int32
        var testDescription: String { "\(document): \(args.prefix(2).joined(separator: " ")) → \(status)" }
    }

    static let tiny = #"{"version": 1, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#
    static let broken = #"{"version": 1, "blocks": [{"id": "a", "type": "nope"}]}"#

    /// `FLOW`, `BROKEN`, `GATE`, `STORE` and `DIR` in arguments are replaced by scratch files.
    static let claims: [Claim] = [
        Claim(document: "README.md", says: "`play` exits 0 when the flow reaches its end", args: ["play", "FLOW"], stdin: "\n", status: 0),
        Claim(document: "README.md", says: "1 when the user closed it (close button, Esc, end of", args: ["play", "FLOW"], stdin: "", status: 1),
        Claim(document: "README.md", says: "3 when the flow's scenario says \"not now\"", args: ["play", "GATE", "--store", "STORE"], status: 3),
        Claim(document: "README.md", says: "65 for an invalid flow", args: ["play", "BROKEN"], status: 65),
        Claim(document: "README.md", says: "66 for a missing or unreadable file", args: ["play", "DIR/missing.json"], status: 66),
        Claim(document: "README.md", says: "64 for a usage error", args: ["play", "FLOW", "--no-such-flag"], status: 64),
        Claim(
            document: "README.md", says: "74 when a file cannot be written", args: ["play", "FLOW", "--answers-out", "DIR/no/a.json"], stdin: "\n", status: 74),
        Claim(document: "README.md", says: "MESSAGE` and exits 0, 65 or 66", args: ["lint", "FLOW"], status: 0),
        Claim(document: "README.md", says: "MESSAGE` and exits 0, 65 or 66", args: ["lint", "BROKEN"], status: 65),
        Claim(document: "README.md", says: "MESSAGE` and exits 0, 65 or 66", args: ["lint", "DIR/missing.json"], status: 66),
        Claim(document: "README.md", says: "Esc, \"no\" and the end of the input exit 1", args: ["confirm", "Go?"], stdin: "no\n", status: 1),
        Claim(document: "README.md", says: "Esc, \"no\" and the end of the input exit 1", args: ["input", "--title", "Name?"], stdin: "", status: 1),
        Claim(document: "README.md", says: "Esc, \"no\" and the end of the input exit 1", args: ["choose", "a", "b"], stdin: "", status: 1),
        Claim(
            document: "README.md", says: "exit 0 for an action, 1 for Cancel (Esc chooses it)",
            args: ["alert", "--action", "Delete:destructive", "--action", "Cancel:cancel"], stdin: "Delete\n", status: 0),
        Claim(
            document: "README.md", says: "exit 0 for an action, 1 for Cancel (Esc chooses it)",
            args: ["alert", "--action", "Delete:destructive", "--action", "Cancel:cancel"], stdin: "Cancel\n", status: 1),
        Claim(
            document: "README.md", says: "Esc without a cancel action, or the end of input",
            args: ["alert", "--action", "Delete:destructive", "--action", "Cancel:cancel"], stdin: "", status: 1),
        Claim(document: "README.md", says: "exit 0 for a tap", args: ["banner", "New", "--button", "Reply"], stdin: "1\n", status: 0),
        Claim(
            document: "README.md", says: "--max-executions 3 && echo",
            args: ["scenario", "try", "ask", "--store", "STORE", "--min-events", "5"], status: 1),
        Claim(
            document: "docs/SEMANTICS.md", says: "`rocket alert` refuses them (exit 64)", args: ["alert", "--action", "A:cancel", "--action", "B:cancel"],
            status: 64),
        Claim(document: "docs/SEMANTICS.md", says: "fails when the name is taken (exit 73", args: ["new", "FLOW"], status: 73),
        Claim(document: "docs/FLOW_FORMAT.md", says: "otherwise it exits 3 (\"not now\")", args: ["play", "GATE", "--store", "STORE"], status: 3),
    ]

    @Test("Each stated exit status", arguments: claims)
    func claim(_ claim: Claim) throws {
        // Line breaks in the document are spaces.
        let text = try String(contentsOf: Self.root.appendingPathComponent(claim.document), encoding: .utf8)
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(text.contains(claim.says), "\(claim.document) no longer says: \(claim.says)")
        let dir = scratchDirectory()
        write(Self.tiny, to: dir + "/flow.json")
        write(Self.broken, to: dir + "/broken.json")
        write(
            #"{"version": 1, "scenario": "s", "when": {"minEventsRequired": 5}, "blocks": [{"id": "a", "type": "text", "text": "Hi"}]}"#,
            to: dir + "/gate.json")
        let args = claim.args.map { a in
            switch a {
            case "FLOW": return dir + "/flow.json"
            case "BROKEN": return dir + "/broken.json"
            case "GATE": return dir + "/gate.json"
            case "STORE": return dir + "/store.sqlite"
            default: return a.replacingOccurrences(of: "DIR/", with: dir + "/")
            }
        }
        let r = try runRocket(args, stdin: claim.stdin)
        #expect(r.status == claim.status, "\(args): \(r.stderr)")
    }

    @Test("docs/SERVER.md: an address in use is exit status 69")
    func addressInUse() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("docs/SERVER.md"), encoding: .utf8)
        #expect(text.contains("An address in use is exit status 69."))
        // Hold a port, then ask serve for it.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        try #require(bound == 0 && listen(fd, 1) == 0)
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        let port = Int(UInt16(bigEndian: addr.sin_port))
        let dir = scratchDirectory()
        let r = try runRocket(["serve", "--port", String(port), "--store", dir + "/s.sqlite"])
        #expect(r.status == 69, "\(r.stderr)")
    }
}
