// swift-tools-version: 6.0
// RocketAlert: engagement engines (conversations, banners, scenarios, reactive alerts),
// a terminal front end and the `rocket` command. Only the toolchain's own modules are used.
import PackageDescription

let package = Package(
    name: "RocketAlert",
    products: [
        .library(name: "RocketCore", targets: ["RocketCore"]),
        .library(name: "RocketConversation", targets: ["RocketConversation"]),
        .library(name: "RocketAlert", targets: ["RocketAlert"]),
        .library(name: "RocketJSON", targets: ["RocketJSON"]),
        .library(name: "RocketFlow", targets: ["RocketFlow"]),
        .library(name: "RocketText", targets: ["RocketText"]),
        .library(name: "RocketTerminalCore", targets: ["RocketTerminalCore"]),
        .library(name: "RocketTerminal", targets: ["RocketTerminal"]),
        .library(name: "RocketTerminalApps", targets: ["RocketTerminalApps"]),
        .library(name: "RocketScenarioEngine", targets: ["RocketScenarioEngine"]),
        .library(name: "RocketScenariosSQLite", targets: ["RocketScenariosSQLite"]),
        .library(name: "RocketScenarios", targets: ["RocketScenarios"]),
        .library(name: "RocketScenariosDefaults", targets: ["RocketScenariosDefaults"]),
        .library(name: "RocketScenariosPostgres", targets: ["RocketScenariosPostgres"]),
        .library(name: "RocketBanners", targets: ["RocketBanners"]),
        .library(name: "RocketReactor", targets: ["RocketReactor"]),
        .library(name: "RocketServer", targets: ["RocketServer"]),
        .library(name: "RocketReport", targets: ["RocketReport"]),
        .executable(name: "rocket", targets: ["rocket"]),
    ],
    targets: [
        // Shared, platform-neutral values: colours, fonts, images, clocks.
        .target(name: "RocketCore"),
        // The conversation engine: a value block graph, a value state, effects the host performs.
        .target(name: "RocketConversation", dependencies: ["RocketCore", "RocketJSON", "CPCRE2"]),
        // PCRE2 through the system's libpcre2-8 (Debian: libpcre2-dev): bounded pattern matching.
        .systemLibrary(name: "CPCRE2", path: "Sources/CPCRE2", pkgConfig: "libpcre2-8", providers: [.apt(["libpcre2-dev"])]),
        // The seed API (Rocket, the five block classes, NotificationCenter events) over the engine.
        .target(name: "RocketAlert", dependencies: ["RocketConversation", "RocketFlow", "RocketCore"]),
        // The one JSON layer: a positioned reader with limits, JSONValue and its writer, Codable coders.
        .target(name: "RocketJSON"),
        // Flow files: the flow document, loading with diagnostics, validation, conversion, writing.
        .target(name: "RocketFlow", dependencies: ["RocketJSON", "RocketConversation", "RocketScenarioEngine", "RocketBanners", "RocketCore"]),
        // PNG and JPEG decoding through the system's libpng and libjpeg (Debian: libpng-dev, libjpeg-dev), and gzip through zlib.
        .target(name: "CImageCodecs", linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("jpeg"), .linkedLibrary("z"), .linkedLibrary("m")]),
        // prctl(2), which is variadic and so out of Swift's reach: a process kept from dumping its memory.
        .target(name: "CProcess"),
        // An HTTP(S) POST that reads only the answer's status, under one deadline, through OpenSSL
        // (the server's webhooks): the certificate and its name checked, TLS 1.2 at least.
        .target(name: "CHTTPClient", linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]),
        // The platform: files read and written one bounded way, paths, the environment, threads, child processes.
        .target(name: "RocketPlatform", dependencies: ["RocketCore", "CProcess"]),
        // The built-in texts of every front end, in the seeds' languages.
        .target(name: "RocketText", dependencies: ["RocketConversation", "RocketCore"]),
        // The terminal's pure core: keys, widths, the screen buffer, the diff renderer, themes, line
        // reading, pictures as cells, the program protocol. No system calls.
        .target(name: "RocketTerminalCore", dependencies: ["RocketConversation", "RocketCore", "RocketText"]),
        // The terminal's POSIX host: raw mode, signals, the program loop, decoding pictures.
        .target(name: "RocketTerminal", dependencies: ["RocketTerminalCore", "RocketCore", "RocketPlatform", "RocketText", "CImageCodecs"]),
        // The terminal's apps (conversation, banner, alert, prompts) over the core: no system calls;
        // pictures come from the host through a PictureLoader.
        .target(
            name: "RocketTerminalApps",
            dependencies: ["RocketTerminalCore", "RocketConversation", "RocketBanners", "RocketReactor", "RocketCore", "RocketText"]),
        // MPGNotification's banners with a presentation queue.
        .target(name: "RocketBanners", dependencies: ["RocketCore"]),
        // AlertReactor and the Reactor contract on Swift concurrency.
        .target(name: "RocketReactor", dependencies: ["RocketCore"]),
        // Reports from event records: counts, funnels, comparisons with their statistics; JSON and a
        // self-contained HTML page. Pure: records in, a report out.
        .target(name: "RocketReport", dependencies: ["RocketJSON", "RocketCore"]),
        // SQLite through the system's libsqlite3 (Debian: libsqlite3-dev).
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The one SQLite layer: a connection behind a mutex, cached statements, transactions, migrations.
        // The write-ahead log's writes gathered into one call per commit (a VFS over SQLite's own).
        .target(name: "CSQLiteLog"),
        .target(name: "RocketSQLite", dependencies: ["CSQLite", "CSQLiteLog"]),
        // libpq (Debian: libpq-dev), linked from its static archive with the libraries it needs
        // (libpgcommon and libpgport from postgresql-server-dev-15, OpenSSL for TLS and SCRAM),
        // and its GSSAPI and LDAP entry points stubbed out (see nogss.c), so the static `rocket`
        // stays static.
        .target(
            name: "CPostgres",
            linkerSettings: [
                .linkedLibrary(":libpq.a"), .unsafeFlags(["-L/usr/lib/postgresql/15/lib"]), .linkedLibrary("pgcommon_shlib"),
                .linkedLibrary("pgport_shlib"), .linkedLibrary("ssl"), .linkedLibrary("crypto"), .linkedLibrary("pthread"),
            ]),
        // The one PostgreSQL layer: a pool of connections, statements with parameters,
        // transactions, migrations; URLs whose passwords never reach a message.
        .target(name: "RocketPostgres", dependencies: ["CPostgres", "RocketCore"]),
        // WaitForIt's rule engine: rules, decisions with explanations, the store interface and the
        // in-memory store. Pure: no clock, no environment, no files.
        .target(name: "RocketScenarioEngine", dependencies: ["RocketCore", "RocketJSON"]),
        // The SQLite scenario store (and the store file's one schema).
        .target(name: "RocketScenariosSQLite", dependencies: ["RocketScenarioEngine", "RocketSQLite", "RocketCore"]),
        // The PostgreSQL scenario store (and the database's one schema), for servers that share one truth.
        .target(name: "RocketScenariosPostgres", dependencies: ["RocketScenarioEngine", "RocketPostgres"]),
        // WaitForIt's API as apps use it: the engine and the SQLite store, the default store from the
        // environment, scenario types' calls at the time now.
        .target(name: "RocketScenarios", dependencies: ["RocketScenarioEngine", "RocketScenariosSQLite", "RocketCore"]),
        // The UserDefaults store (WaitForIt's keys) and WaitForIt's Date forms: the only Foundation part of scenarios.
        .target(name: "RocketScenariosDefaults", dependencies: ["RocketScenarios"]),
        // GNU libmicrohttpd (Debian: libmicrohttpd-dev), linked from its static archive with the
        // TLS entry points stubbed out (rocket serves plain HTTP; see notls.c).
        .target(name: "CMicroHTTPD", linkerSettings: [.linkedLibrary(":libmicrohttpd.a"), .linkedLibrary("pthread")]),
        // `rocket serve`: the conversation service (HTTP-free logic), the archive, the web widget, the HTTP server.
        .target(
            name: "RocketServer",
            dependencies: [
                "RocketConversation", "RocketFlow", "RocketScenarioEngine", "RocketScenariosSQLite", "RocketJSON", "RocketCore", "RocketPlatform",
                "RocketText", "RocketBanners", "RocketReactor", "CMicroHTTPD", "RocketSQLite", "CImageCodecs", "RocketReport", "RocketPostgres",
                "RocketScenariosPostgres", "CHTTPClient",
            ],
            // The web front end's files, embedded through WebAssetsSource.swift (scripts/gen-web-assets.py).
            exclude: ["Web"]),
        // The command-line tool.
        // The command model and every command, as a library (tested in-process); `rocket` is its thin main.
        .target(
            name: "RocketCLI",
            dependencies: [
                "RocketJSON", "RocketTerminal", "RocketTerminalCore", "RocketTerminalApps", "RocketFlow", "RocketConversation", "RocketBanners",
                "RocketReactor", "RocketCore", "RocketScenarios", "RocketScenariosPostgres", "RocketPostgres",
                "RocketServer", "RocketPlatform", "RocketText", "RocketReport",
            ]),
        .executableTarget(name: "rocket", dependencies: ["RocketCLI"]),
        // Benchmarks: run with `swift run -c release RocketBench`. Never part of `swift test`.
        .executableTarget(
            name: "RocketBench",
            dependencies: [
                "RocketJSON", "RocketFlow", "RocketAlert", "RocketConversation", "RocketTerminal", "RocketTerminalCore", "RocketTerminalApps",
                "RocketScenarios",
                "RocketScenariosDefaults", "RocketCore",
                "RocketServer", "RocketPlatform", "RocketText", "RocketReport",
            ]),
        // Fuzzing of the readers of others' bytes: scripts/fuzz.sh. Built normally, it replays files.
        .executableTarget(
            name: "RocketFuzz",
            dependencies: [
                "RocketJSON", "RocketFlow", "RocketConversation", "RocketCore", "RocketTerminal", "RocketTerminalCore", "RocketTerminalApps",
                "RocketServer", "RocketScenarioEngine", "RocketReport", "RocketPlatform",
            ]),
        .testTarget(name: "RocketAlertTests", dependencies: ["RocketJSON", "RocketAlert", "RocketConversation", "RocketFlow", "RocketCore"]),
        .testTarget(
            name: "RocketFlowTests",
            dependencies: [
                "RocketJSON", "RocketFlow", "RocketAlert", "RocketConversation", "RocketScenarios", "RocketBanners", "RocketCore", "RocketText",
                "RocketTestSupport",
            ]),
        // Test support: a small virtual terminal; pseudo-terminals for end-to-end runs; a JPEG encoder for fixtures.
        .target(
            name: "RocketTestSupport", dependencies: ["RocketTerminal", "RocketTerminalCore", "RocketTerminalApps", "RocketPostgres", "CTestSupport"],
            path: "Tests/RocketTestSupport"),
        .target(name: "CTestSupport", path: "Tests/CTestSupport", linkerSettings: [.linkedLibrary("jpeg"), .linkedLibrary("png")]),
        .testTarget(
            name: "RocketTerminalTests",
            dependencies: [
                "RocketTerminal", "RocketTerminalCore", "RocketTerminalApps", "RocketConversation", "RocketBanners", "RocketReactor", "RocketCore",
                "RocketPlatform", "RocketText", "RocketTestSupport", "CTestSupport",
            ]),
        .executableTarget(
            name: "ScenarioStress", dependencies: ["RocketScenarios", "RocketScenarioEngine", "RocketScenariosPostgres"], path: "Tests/ScenarioStress"),
        .testTarget(
            name: "RocketScenariosTests",
            dependencies: [
                "RocketScenarios", "RocketScenarioEngine", "RocketScenariosSQLite", "RocketScenariosDefaults", "RocketScenariosPostgres", "RocketPostgres",
                "RocketJSON", "ScenarioStress", "RocketTestSupport",
            ]),
        .testTarget(
            name: "RocketServerTests",
            dependencies: [
                "RocketServer", "RocketConversation", "RocketFlow", "RocketScenarios", "RocketScenarioEngine", "RocketScenariosSQLite", "RocketJSON",
                "RocketCore", "RocketTestSupport", "RocketSQLite", "RocketScenariosPostgres", "RocketPostgres", "CMicroHTTPD", "RocketReport",
            ],
            exclude: ["Fixtures"]),
        .testTarget(name: "RocketBannersTests", dependencies: ["RocketBanners", "RocketCore"]),
        .testTarget(name: "RocketReactorTests", dependencies: ["RocketReactor", "RocketCore"]),
        .testTarget(
            name: "RocketCLITests",
            dependencies: [
                "rocket", "RocketCLI", "RocketTestSupport", "CTestSupport", "RocketFlow", "RocketScenarios", "RocketScenarioEngine",
                "RocketScenariosSQLite", "RocketBanners",
                "RocketReactor", "RocketConversation", "RocketReport", "RocketJSON", "RocketPostgres", "RocketScenariosPostgres",
            ],
            exclude: ["Golden", "Fixtures"]),
        .testTarget(name: "RocketReportTests", dependencies: ["RocketReport", "RocketJSON", "RocketCore"]),
    ],
    swiftLanguageModes: [.v6]
)

// Every Swift target: the upcoming language features that make dependencies and existentials explicit.
for target in package.targets where target.type != .system {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
