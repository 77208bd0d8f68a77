// The widget's script as the server serves it (scripts/gen-web-assets.py cuts its comments and
// indentation into Sources/RocketServer/WebAssetsSource.swift): every test of core.test.js again,
// on that text, so a cut that changes what the script does fails here. Run: node --test Tests/Widget/
"use strict";
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const swift = fs.readFileSync(path.join(__dirname, "..", "..", "Sources", "RocketServer", "WebAssetsSource.swift"), "utf8");
const start = swift.match(/static let script = (#+)"""\n/);
if (!start) throw new Error("WebAssetsSource.swift holds no script");
const body = swift.slice(start.index + start[0].length);
const end = body.indexOf('\n        """' + start[1]);
// Each line of the raw string is indented by 8 spaces in the Swift source (empty lines are not).
const served = body.slice(0, end).split("\n").map((l) => l.replace(/^ {8}/, "")).join("\n") + "\n";
const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "rocket-widget-")), "served.js");
fs.writeFileSync(file, served);
process.on("exit", () => fs.rmSync(path.dirname(file), { recursive: true, force: true }));
process.env.ROCKET_WIDGET_SCRIPT = file;
require("./core.test.js");
