import Foundation
import Testing

/// `scripts/check-imports.py`: the layer rules of docs/ARCHITECTURE.md held against the code.
@Suite("The layer rules, checked against the code")
struct LayerRuleTests {
    func check(_ root: String) throws -> RunResult {
        try runProgram("/usr/bin/env", ["python3", DocumentedExitStatusTests.root.appendingPathComponent("scripts/check-imports.py").path, root])
    }

    @Test("The project keeps its rules")
    func project() throws {
        let r = try check(DocumentedExitStatusTests.root.path)
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test("A fixture with a forbidden import, a forbidden dependency and Glibc in a pure target fails, naming each place")
    func fixture() throws {
        let dir = scratchDirectory()
        let fm = FileManager.default
        for folder in ["docs", "Sources/Low", "Sources/High", "Sources/Top"] {
            try fm.createDirectory(atPath: dir + "/" + folder, withIntermediateDirectories: true)
        }
        write(
            """
            // swift-tools-version: 6.0
            import PackageDescription
            let package = Package(name: "Fixture", targets: [
                .target(name: "Low"),
                .target(name: "High", dependencies: ["Low"]),
                .target(name: "Top", dependencies: ["High"]),
            ])
            """, to: dir + "/Package.swift")
        write(
            """
            | Module | Kind | What | May depend on |
            |---|---|---|---|
            | `Low` | library | the bottom | the standard library |
            | `High` | library | above it, pure | the standard library |
            | `Top` | library | the top | `High`, Glibc |
            """, to: dir + "/docs/ARCHITECTURE.md")
        write("import Foundation\npublic func low() {}\n", to: dir + "/Sources/Low/Low.swift")
        write("#if canImport(Glibc)\n    import Glibc\n#endif\npublic func high() {}\n", to: dir + "/Sources/High/High.swift")
        write("import High\nimport Glibc\n", to: dir + "/Sources/Top/Top.swift")
        let r = try check(dir)
        #expect(r.status == 1)
        #expect(r.stderr.contains("Sources/Low/Low.swift:1: Low may not import Foundation"), "\(r.stderr)")
        #expect(r.stderr.contains("Package.swift: High depends on Low"), "\(r.stderr)")
        #expect(r.stderr.contains("Sources/High/High.swift:2: High may not import Glibc"), "\(r.stderr)")
        #expect(!r.stderr.contains("Top.swift"), "Top may import High and Glibc: \(r.stderr)")
    }
}
