import RocketFlow
import RocketJSON

/// `rocket schema`: the flow format's JSON Schema, made from the format's table.
enum SchemaCommand {
    static let spec = CommandSpec(
        name: "schema", abstract: "Print the JSON Schema of flow files (draft 2020-12), for editors that validate as you type.",
        positionals: [], positionalCount: 0...0,
        options: [.flag("--tests", "The schema of flows' test files (NAME.test.json, rocket test) instead.")],
        discussion: """
            The schema comes from the same table as the loader, so it refuses what 'rocket lint' refuses
            by shape: unknown fields and block types, wrong types, missing fields, bad durations, fonts and
            colours. Lint checks more (references, cycles, regular expressions). The file
            schema/flow-v1.schema.json in the source is this output; with --tests,
            schema/flow-tests-v1.schema.json.
            """,
        exitStatus: "0 printed; 64 usage error.",
        examples: ["rocket schema > flow.schema.json", "rocket schema | python3 -m json.tool --compact", "rocket schema --tests > flow-tests.schema.json"])

    static func run(_ args: [String]) throws(UsageError) -> ExitStatus {
        let parsed = try parse(args, as: spec)
        if parsed.helpRequested { printOut(spec.help); return ExitStatus.ok }
        printOut((parsed.has("--tests") ? FlowTestFormat.jsonSchema : FlowFormat.v1.jsonSchema).serialized())
        return ExitStatus.ok
    }
}
