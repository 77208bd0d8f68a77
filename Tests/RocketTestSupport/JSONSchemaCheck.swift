import Foundation

/// Runs Python's jsonschema (draft 2020-12) over JSON documents: one verdict each. The tests that
/// hold a hand-written or generated schema (the flow format's, docs/openapi.json's) to what the
/// code accepts and writes use it.
public enum JSONSchemaCheck {
    /// Why no verdicts came back.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String
    }

    /// Checks each of `documents` (JSON texts) against `schema` (a JSON text); true where one
    /// is valid.
    public static func run(schema: String, documents: [String]) throws -> [Bool] {
        try problems(schema: schema, documents: documents).map { $0 == nil }
    }

    /// What is wrong with each of `documents` against `schema`: nil for a valid one, else its
    /// first few errors, each with its place. With `root`, the schema checked is `{"$ref": root}`
    /// inside `schema`'s document (a JSON pointer such as `#/components/schemas/Report`), so its
    /// other references resolve. `closed` checks as if every object that lists its properties
    /// allowed no others (a published document may leave them open for later versions; the
    /// answers of this one are held to what it lists).
    public static func problems(schema: String, root: String? = nil, closed: Bool = false, documents: [String]) throws -> [String?] {
        let dir = newScratchDirectory("schema")
        let schemaPath = dir + "/schema.json", docsPath = dir + "/docs.jsonl", outPath = dir + "/out.txt"
        try schema.write(toFile: schemaPath, atomically: true, encoding: .utf8)
        try (documents.map { $0.replacingOccurrences(of: "\n", with: " ") }.joined(separator: "\n") + "\n").write(
            toFile: docsPath, atomically: true, encoding: .utf8)
        let script = """
            import json, sys
            try:
                import jsonschema
            except ImportError:
                sys.exit("jsonschema is missing: sh scripts/install-deps.sh --tests (pip install jsonschema)")
            schema = json.load(open(sys.argv[1]))
            if sys.argv[3]:
                schema = dict(schema, **{"$ref": sys.argv[3], "$schema": "https://json-schema.org/draft/2020-12/schema"})
            def close(node):
                if isinstance(node, dict):
                    if "properties" in node and "additionalProperties" not in node:
                        node["additionalProperties"] = False
                    for v in node.values():
                        close(v)
                elif isinstance(node, list):
                    for v in node:
                        close(v)
            if sys.argv[4] == "closed":
                close(schema)
            jsonschema.Draft202012Validator.check_schema(schema)
            v = jsonschema.Draft202012Validator(schema)
            for line in open(sys.argv[2]):
                errors = sorted(v.iter_errors(json.loads(line)), key=lambda e: list(e.absolute_path))
                print("ok" if not errors else "bad " + "; ".join("/".join(map(str, e.absolute_path)) + ": " + e.message[:200] for e in errors[:3]))
            """
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", script, schemaPath, docsPath, root ?? "", closed ? "closed" : "open"]
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        p.standardOutput = handle
        try p.run()
        p.waitUntilExit()
        try handle.close()
        let lines = try String(contentsOfFile: outPath, encoding: .utf8).split(separator: "\n").map(String.init)
        guard p.terminationStatus == 0 else {
            throw Failure(description: "python3 with jsonschema failed (sh scripts/install-deps.sh --tests installs it)")
        }
        guard lines.count == documents.count else { throw Failure(description: "\(lines.count) verdicts for \(documents.count) documents") }
        return lines.map { $0 == "ok" ? nil : String($0.dropFirst(4)) }
    }
}
