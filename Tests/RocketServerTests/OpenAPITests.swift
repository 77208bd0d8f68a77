import Foundation
import RocketJSON
import Testing

@testable import RocketServer

/// docs/openapi.json against the routes the server has: the document is written by hand, so
/// this holds it to the code.
@Suite("docs/openapi.json and the routes")
struct OpenAPITests {
    static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/openapi.json").path

    /// The operations the document describes: method (lower case) and path segments.
    static func operations() throws -> [(method: String, path: [String], responses: Set<String>)] {
        let root = try JSONReader.parse(Array(try Data(contentsOf: URL(fileURLWithPath: document))))
        let paths = try #require(root.object?.first { $0.key == "paths" }?.value.object)
        var out: [(String, [String], Set<String>)] = []
        for p in paths {
            for op in p.value.object ?? [] {
                guard let responses = op.value.object?.first(where: { $0.key == "responses" })?.value.object else { continue }
                out.append((op.key, p.key.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init), Set(responses.map(\.key))))
            }
        }
        return out
    }

    /// True when a document path fits a route's shape ("*" one segment, "**" the rest).
    static func fits(_ path: [String], _ shape: [String]) -> Bool {
        guard path.count == shape.count else { return false }
        return zip(path, shape).allSatisfy { part, want in
            want == "*" || want == "**" ? part.hasPrefix("{") && part.hasSuffix("}") : part == want
        }
    }

    @Test("every API route is in the document with its method, and the document names no route the server lacks")
    func routesMatch() throws {
        let ops = try Self.operations()
        for (method, shape, _) in ConversationService.routes {
            let full = ["v1"] + shape
            let listed = ops.contains { $0.method == method.lowercased() && Self.fits($0.path, full) }
            #expect(listed, "\(method) /\(full.joined(separator: "/")) is not in openapi.json")
        }
        let pages: Set<String> = ["healthz", "readyz", "metrics"]
        for op in ops {
            if op.path.first == "v1" {
                let known = ConversationService.routes.contains { $0.0.lowercased() == op.method && Self.fits(op.path, ["v1"] + $0.1) }
                #expect(known, "openapi.json has \(op.method.uppercased()) /\(op.path.joined(separator: "/")), which the server does not route")
            } else {
                #expect(op.path.count == 1 && pages.contains(op.path[0]) && op.method == "get", "\(op.path)")
            }
        }
    }

    @Test("every operation lists the refusals made before any route reads a request, and every API one the rate limit")
    func refusalsListed() throws {
        for op in try Self.operations() {
            let at = "\(op.method.uppercased()) /\(op.path.joined(separator: "/"))"
            for code in ["400", "413", "431", "501"] { #expect(op.responses.contains(code), "\(at) lacks \(code)") }
            if op.path.first == "v1" { #expect(op.responses.contains("429"), "\(at) lacks 429") }
        }
    }
}
