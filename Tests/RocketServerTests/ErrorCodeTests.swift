import Foundation
import RocketJSON
import Testing

@testable import RocketConversation
@testable import RocketServer

/// docs/SERVER.md's table of error codes against the codes the server's source answers with:
/// the table is written by hand, so this holds it to the code, both ways.
@Suite("docs/SERVER.md's error codes and the server's answers")
struct ErrorCodeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The (code, status) pairs of the table under "### Error codes".
    static func documented() throws -> [String: Set<Int>] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/SERVER.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "### Error codes").dropFirst().first?.components(separatedBy: "\n## ").first)
        var out: [String: Set<Int>] = [:]
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, let status = Int(cells[1]) else { continue }
            out[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`")), default: []].insert(status)
        }
        return out
    }

    /// The (code, status) pairs the server's source answers with: every `error(STATUS, "code"`
    /// and `errorWrapping(STATUS, "code"` in Sources/RocketServer, and the engine's refusals of
    /// an intent (422, through `RocketIntentError.code`).
    static func answered() throws -> [String: Set<Int>] {
        let folder = root.appendingPathComponent("Sources/RocketServer")
        var source = ""
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where name.hasSuffix(".swift") {
            source += try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
        }
        var out: [String: Set<Int>] = [:]
        let call = try Regex(#"(?:error|errorWrapping)\(\s*([0-9]{3}),\s*"([a-z][a-z-]*)""#)
        for match in source.matches(of: call) {
            guard let status = match.output[1].substring.flatMap({ Int($0) }), let code = match.output[2].substring else { continue }
            out[String(code), default: []].insert(status)
        }
        let intentErrors: [RocketIntentError] = [
            .notActive, .noInteractiveBlock, .tapDisabled, .wrongKind(expected: .text, intent: .tap),
            .invalidInput(RocketValidationFailure(rule: .required, message: "x")), .noCloseButton, .noSuchOption(1), .cannotGoBack,
        ]
        for e in intentErrors { out[e.code, default: []].insert(422) }
        return out
    }

    @Test("every code the server answers with is in the table with its status, and the table names nothing else")
    func tableMatchesSource() throws {
        let documented = try Self.documented()
        let answered = try Self.answered()
        #expect(answered.count > 40, "the source scan found \(answered.count) codes")
        for (code, statuses) in answered.sorted(by: { $0.key < $1.key }) {
            #expect(documented[code] == statuses, "\(code): answered with \(statuses.sorted()), documented \(documented[code]?.sorted() ?? [])")
        }
        for code in documented.keys.sorted() where answered[code] == nil {
            Issue.record("\(code) is documented but never answered")
        }
    }

    @Test("docs/openapi.json's Error schema lists exactly the codes of the table")
    func openAPIEnum() throws {
        let root = try JSONReader.parse(Array(try Data(contentsOf: Self.root.appendingPathComponent("docs/openapi.json"))))
        func field(_ v: JSONNode?, _ key: String) -> JSONNode? { v?.object?.first { $0.key == key }?.value }
        let code = field(field(field(field(field(field(root, "components"), "schemas"), "Error"), "properties"), "error"), "properties")
        let listed = try #require(field(field(code, "code"), "enum")?.array).compactMap(\.string)
        #expect(Set(listed) == Set(try Self.documented().keys))
        #expect(listed.count == Set(listed).count, "each code once")
    }

    @Test("the intents route's row names every intent the API takes")
    func intentsDocumented() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("docs/SERVER.md"), encoding: .utf8)
        let row = try #require(text.split(separator: "\n").first { $0.hasPrefix("| `POST /v1/conversations/{id}/intents`") })
        for name in RocketIntent.Name.allCases {
            #expect(row.contains("\"\(name.rawValue)\""), "\(name.rawValue) is missing from the intents row")
        }
    }
}
