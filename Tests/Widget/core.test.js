// The widget's page-free logic (Sources/RocketServer/Web/widget.js, loaded as Node loads it:
// the file gives its `core` object and draws nothing). Run: node --test Tests/Widget/
"use strict";
const test = require("node:test");
const assert = require("node:assert/strict");
const path = require("node:path");
// The source by default; served.test.js runs every test again on the script as served.
const core = require(process.env.ROCKET_WIDGET_SCRIPT || path.join(__dirname, "..", "..", "Sources", "RocketServer", "Web", "widget.js"));

test("visitor ids: what the server takes, nothing else", () => {
  for (const ok of ["a", "v-1.2_3:x", "A".repeat(128)]) assert.equal(core.isVisitorID(ok), true, ok);
  for (const bad of ["", "A".repeat(129), "a b", "é", "a/b", null, undefined, 7, "<script>"]) assert.equal(core.isVisitorID(bad), false, String(bad));
});

test("colours: #RRGGBB only", () => {
  assert.equal(core.color("#12abEF"), "#12abEF");
  for (const bad of ["#123", "red", "#1234567", "#12345g", "url(x)", "", null, 5]) assert.equal(core.color(bad), null, String(bad));
});

test("picture sources: data: images and the server's own paths; never another site or a script", () => {
  const base = "https://rocket.example";
  assert.equal(core.imageURL(base, "/v1/flows/demo/files/logo.png"), "https://rocket.example/v1/flows/demo/files/logo.png");
  assert.equal(core.imageURL(base, "data:image/png;base64,AAAA"), "data:image/png;base64,AAAA");
  for (const bad of ["//evil.example/x.png", "https://evil.example/x.png", "javascript:alert(1)", "data:text/html,<b>", "x.png", "", null, {}]) {
    assert.equal(core.imageURL(base, bad), null, String(bad));
  }
});

test("picture sizes: whole pixels from 1 to 65535 on both sides, anything else unknown", () => {
  assert.deepEqual(core.pictureSize({ width: 640, height: 480 }), [640, 480]);
  assert.deepEqual(core.pictureSize({ width: 1, height: 65535 }), [1, 65535]);
  for (const bad of [null, undefined, 5, "640x480", [640, 480], { width: 640 }, { width: 0, height: 10 }, { width: 10.5, height: 10 },
                     { width: "640", height: "480" }, { width: 65536, height: 1 }, { width: -1, height: 1 }, { width: NaN, height: 1 },
                     { width: Infinity, height: 1 }]) {
    assert.equal(core.pictureSize(bad), null, JSON.stringify(bad));
  }
});

test("fonts: a preset is a class; an object sets size (clamped), weight, family and a valid colour", () => {
  assert.deepEqual(core.fontLook("textBold"), { classes: ["rk-f-textBold"], style: {} });
  assert.deepEqual(core.fontLook(null), { classes: [], style: {} });
  const look = core.fontLook({ size: 200, weight: "bold", family: "Iosevka", color: "#102030" });
  assert.deepEqual(look.classes, ["rk-w-bold"]);
  assert.equal(look.style.fontSize, "64px");
  assert.equal(look.style.fontFamily, '"Iosevka", system-ui, sans-serif');
  assert.equal(look.style.color, "#102030");
  assert.equal(core.fontLook({ size: 1 }).style.fontSize, "8px");
  // Nothing from the view reaches a class name or a style unchecked.
  assert.deepEqual(core.fontLook("x y").classes, []);
  assert.deepEqual(core.fontLook({ weight: "bold x", color: "red; background: url(x)" }), { classes: [], style: {} });
  assert.equal(core.fontLook({ family: '"; } body { color: red' }).style.fontFamily, JSON.stringify('"; } body { color: red') + ", system-ui, sans-serif");
});

test("item keys change when what is drawn changes: the item, its input error while active, the accepted intents", () => {
  const item = { type: "textInput", index: 2, text: "Name?" };
  const v = { active: 2, inputError: null, accepts: ["submit"] };
  const k = core.itemKey(item, v);
  assert.equal(core.itemKey({ ...item }, { ...v }), k);
  assert.notEqual(core.itemKey(item, { ...v, inputError: "Too short" }), k);
  assert.notEqual(core.itemKey(item, { ...v, hint: "1 – 10" }), k, "the waiting field's hint is drawn with it");
  assert.notEqual(core.itemKey(item, { ...v, accepts: [] }), k);
  assert.notEqual(core.itemKey({ ...item, text: "Age?" }, v), k);
  // Not the active item: its key ignores the input error.
  assert.equal(core.itemKey({ ...item, index: 1 }, { ...v, inputError: "x" }), core.itemKey({ ...item, index: 1 }, v));
});

test("a late answer never takes a newer view back", () => {
  const old = { id: "a", version: 5 };
  assert.equal(core.isNewer(null, old), true);
  assert.equal(core.isNewer(old, { id: "a", version: 4 }), false);
  assert.equal(core.isNewer(old, { id: "a", version: 5 }), true);
  assert.equal(core.isNewer(old, { id: "b", version: 1 }), true);
  // After starting again, nothing about the conversation left is drawn, whatever is shown.
  assert.equal(core.isNewer(null, { id: "a", version: 9 }, "a"), false);
  assert.equal(core.isNewer({ id: "b", version: 1 }, { id: "a", version: 9 }, "a"), false);
  assert.equal(core.isNewer({ id: "b", version: 1 }, { id: "b", version: 2 }, "a"), true);
  assert.equal(core.isNewer(null, { id: "b", version: 1 }, "a"), true);
});

test("intents: stamped with the view's step; while one is in flight a press on a newer block waits and a double press is dropped", () => {
  const view = { step: 3 };
  assert.deepEqual(core.plan({ intent: "tap" }, view, null), { action: "send", intent: { intent: "tap", step: 3 } });
  assert.equal(core.plan({ intent: "tap" }, null, null).action, "drop");
  assert.equal(core.plan({ intent: "tap" }, view, { intent: "tap", step: 3 }).action, "drop");
  assert.deepEqual(core.plan({ intent: "choose", option: 1 }, { step: 4 }, { intent: "tap", step: 3 }), {
    action: "queue", intent: { intent: "choose", option: 1, step: 4 }
  });
  // The caller's object is not changed.
  const mine = { intent: "tap" };
  core.plan(mine, view, null);
  assert.deepEqual(mine, { intent: "tap" });
});

test("a corrected answer typed while the refused one is in flight waits for its answer, then goes if it was refused", () => {
  // The refusal of "12" reached the page by the stream first; "twelve" is typed and sent.
  const sent = { intent: "submit", text: "12", step: 1 };
  const plan = core.plan({ intent: "submit", text: "twelve" }, { step: 1 }, sent);
  assert.deepEqual(plan, { action: "queue", intent: { intent: "submit", text: "twelve", step: 1 } });
  assert.deepEqual(core.afterAnswer(sent, plan.intent, 422), plan.intent);
  // Accepted after all: the block moved on, the second answer is not sent.
  assert.equal(core.afterAnswer(sent, plan.intent, 200), null);
  assert.equal(core.afterAnswer(sent, plan.intent, 409), null);
  // A press on a newer block goes once the answer is accepted, never after a refusal.
  const newer = { intent: "tap", step: 2 };
  assert.deepEqual(core.afterAnswer(sent, newer, 200), newer);
  assert.equal(core.afterAnswer(sent, newer, 422), null);
  assert.equal(core.afterAnswer(sent, null, 200), null);
  // The same answer again is a double press.
  assert.equal(core.plan({ intent: "submit", text: "12" }, { step: 1 }, sent).action, "drop");
});

test("banner buttons: close, up to two titles, nothing else", () => {
  assert.deepEqual(core.bannerButtons({ buttons: "close" }), [["×", "close"]]);
  assert.deepEqual(core.bannerButtons({ buttons: ["Yes", "No", "Maybe"] }), [["Yes", "button1"], ["No", "button2"]]);
  assert.deepEqual(core.bannerButtons({}), []);
  assert.deepEqual(core.bannerButtons({ buttons: "x" }), []);
});

test("alerts: an action sheet puts cancel last; focus never starts on a destructive or disabled action", () => {
  const actions = [
    { title: "Cancel", style: "cancel", enabled: true },
    { title: "Delete", style: "destructive", enabled: true },
    { title: "Save", style: "default", enabled: false },
    { title: "Keep", style: "default", enabled: true },
  ];
  assert.deepEqual(core.alertOrder({ style: "actionSheet", actions }), [1, 2, 3, 0]);
  assert.deepEqual(core.alertOrder({ style: "alert", actions }), [0, 1, 2, 3]);
  assert.equal(core.alertFocus(actions, null), 0);
  assert.equal(core.alertFocus(actions, "Keep"), 3);
  assert.equal(core.alertFocus(actions, "Delete"), 0, "a destructive action does not keep the focus");
  assert.equal(core.alertFocus(actions, "Save"), 0, "a disabled action does not keep the focus");
  assert.equal(core.alertFocus([{ title: "Delete", style: "destructive", enabled: true }], null), -1);
});

test("Tab and Shift-Tab wrap around the enabled actions", () => {
  assert.equal(core.nextTab(3, 0, false), 1);
  assert.equal(core.nextTab(3, 2, false), 0);
  assert.equal(core.nextTab(3, -1, false), 0);
  assert.equal(core.nextTab(3, 0, true), 2);
  assert.equal(core.nextTab(3, -1, true), 2);
  assert.equal(core.nextTab(0, 0, false), -1);
});

test("visitor tokens: the server's shape only; the visitor id is its first part", () => {
  const token = "anon." + "a".repeat(32) + "." + "0123456789abcdef".repeat(4);
  assert.equal(core.isToken(token), true);
  assert.equal(core.tokenVisitor(token), "anon." + "a".repeat(32));
  for (const bad of ["", "anon.x.y", token + "0", token.toUpperCase(), "ada", null, 3, token.replace("anon.", "user.")]) {
    assert.equal(core.isToken(bad), false, String(bad));
    assert.equal(core.tokenVisitor(bad), null, String(bad));
  }
});

test("event streams: complete events parsed, a partial one kept for the next read", () => {
  const first = core.sseParse("retry: 2000\n\nid: 3\nevent: state\ndata: {\"a\":1}\n\nevent: events\ndata: [1,\ndata: 2]\n\n: keep-alive\n\nevent: sta");
  assert.deepEqual(first.events, [
    { event: "state", data: "{\"a\":1}", id: "3" },
    { event: "events", data: "[1,\n2]", id: null },
  ]);
  assert.equal(first.rest, "event: sta");
  const second = core.sseParse(first.rest + "te\r\ndata:x\r\n\r\n");
  assert.deepEqual(second.events, [{ event: "state", data: "x", id: null }]);
  assert.equal(second.rest, "");
  assert.deepEqual(core.sseParse("").events, []);
  assert.deepEqual(core.sseParse("data\n\n").events, [{ event: "message", data: "", id: null }]);
});

test("a banner's countdown: paused time does not count, resumed time does", () => {
  let c = core.countdown(8000, 1000);
  assert.equal(core.remaining(c, 3000), 6000);
  c = core.pause(c, 3000);
  assert.equal(core.remaining(c, 60000), Infinity, "paused: never due");
  assert.deepEqual(core.pause(c, 9999), c, "pausing twice changes nothing");
  c = core.resume(c, 60000);
  assert.equal(core.remaining(c, 61000), 5000);
  assert.deepEqual(core.resume(c, 70000), c, "resuming a running countdown changes nothing");
  assert.equal(core.remaining(c, 100000), 0);
  assert.equal(core.remaining(core.countdown(-5, 0), 0), 0);
});

test("answered blocks become the visitor's reply: the pressed title, the side, the chosen option", () => {
  assert.equal(core.answerTitle({ type: "button", title: "OK", pressed: true }), "OK");
  assert.equal(core.answerTitle({ type: "button", title: "OK", pressed: false }), null);
  const two = { type: "doubleButton", left: { title: "No" }, right: { title: "Yes" } };
  assert.equal(core.answerTitle({ ...two, pressed: "right" }), "Yes");
  assert.equal(core.answerTitle({ ...two, pressed: "left" }), "No");
  assert.equal(core.answerTitle({ ...two, pressed: null }), null);
  const choice = { type: "choice", options: [{ title: "Red" }, { title: "Blue" }] };
  assert.equal(core.answerTitle({ ...choice, chosen: 1 }), "Blue");
  assert.equal(core.answerTitle({ ...choice, chosen: null }), null);
  assert.equal(core.answerTitle({ ...choice, chosen: 7 }), null);
  assert.equal(core.answerTitle({ type: "text", text: "Hi" }), null);
});

test("links: a button opens http and https pages with a host only, and an answered one still names its page", () => {
  for (const ok of ["https://rocket.example/docs?x=1#y", "http://rocket.example", "HTTPS://Rocket.Example/a(b)", "https://例え.jp/パス"]) {
    assert.equal(core.link(ok), ok, ok);
  }
  for (const bad of ["javascript:alert(1)", "JaVaScRiPt:alert(1)", "data:text/html,<b>", "//evil.example", "https://", "https:///x", "https://?q",
    "https://a b", "https://a\"onmouseover=x", "https://a'b", "https://a<b>", "https://a\\b", "https://a`b", "https://a\nb", "ftp://x", "",
    "https://" + "a".repeat(2041), null, 7, {}]) {
    assert.equal(core.link(bad), null, String(bad));
  }
  assert.equal(core.link("https://" + "a".repeat(2040)), "https://" + "a".repeat(2040));
  const button = { type: "button", title: "Docs", link: "https://rocket.example/docs" };
  assert.equal(core.answerLink({ ...button, pressed: true }), "https://rocket.example/docs");
  assert.equal(core.answerLink({ ...button, pressed: false }), null);
  assert.equal(core.answerLink({ ...button, link: "javascript:x", pressed: true }), null);
  const two = { type: "doubleButton", left: { title: "No" }, right: { title: "Pricing", link: "https://rocket.example/pricing" } };
  assert.equal(core.answerLink({ ...two, pressed: "right" }), "https://rocket.example/pricing");
  assert.equal(core.answerLink({ ...two, pressed: "left" }), null);
  const choice = { type: "choice", options: [{ title: "Blog", link: "https://blog.example" }, { title: "None" }] };
  assert.equal(core.answerLink({ ...choice, chosen: 0 }), "https://blog.example");
  assert.equal(core.answerLink({ ...choice, chosen: 1 }), null);
  assert.equal(core.answerLink({ ...choice, chosen: 5 }), null);
  assert.equal(core.answerLink({ type: "text", text: "Hi" }), null);
});

test("a play page's address gives flow variables, bounded and well-formed only", () => {
  assert.deepEqual(core.queryVars("?user=Ada&plan=pro+plus&x%20y=1&=v&ok"), { user: "Ada", plan: "pro plus", ok: "" });
  assert.deepEqual(core.queryVars("?user=%E0%A4&name=%C3%A9"), { name: "é" }, "a broken escape is skipped");
  assert.deepEqual(core.queryVars("a=1&a=2"), { a: "1" }, "the first of a repeated name");
  assert.deepEqual(core.queryVars("v=" + "x".repeat(1025)), {});
  assert.deepEqual(core.queryVars("v=" + "%C3%A9".repeat(513)), {}, "1,026 bytes in 513 characters");
  const many = Array.from({ length: 100 }, (_, i) => "n" + i + "=1").join("&");
  assert.equal(Object.keys(core.queryVars(many)).length, 64);
  assert.deepEqual(core.queryVars(null), {});
});

test("banner text always reads: the flow's colour when it has 4.5:1, else white or black", () => {
  assert.ok(Math.abs(core.contrast("#ffffff", "#000000") - 21) < 0.01);
  assert.ok(Math.abs(core.contrast("#777777", "#777777") - 1) < 0.01);
  assert.equal(core.readableText("#00897b", null), "#000000", "white on teal is 4.31:1");
  assert.equal(core.readableText("#1f4e79", null), "#ffffff");
  assert.equal(core.readableText("#1f4e79", "#ffff00"), "#ffff00", "the flow's own colour when it reads");
  assert.equal(core.readableText("#1f4e79", "#2a5a8a"), "#ffffff", "not when it does not");
  assert.equal(core.readableText("not a colour", null), "#ffffff", "the default background");
  for (const bg of ["#000000", "#ffffff", "#ff0000", "#00ff00", "#0000ff", "#808080", "#00897b", "#f5a623"]) {
    assert.ok(core.contrast(core.readableText(bg, null), bg) >= 4.5, bg);
  }
});

test("a site's accent: kept when it reads at 4.5:1 on the frame and a bubble in each scheme, else darkened or lightened until it does", () => {
  const reads = (c, grounds) => grounds.every((g) => core.contrast(c, g) >= 4.5);
  // A dark brand colour reads on white as it is; the dark scheme lightens it.
  const navy = core.accent("#1F3A93");
  assert.equal(navy.light, "#1f3a93");
  assert.equal(navy.changed, false);
  assert.equal(navy.lightInk, "#ffffff");
  assert.ok(reads(navy.dark, core.ACCENT.dark) && navy.dark !== "#1f3a93", navy.dark);
  assert.equal(navy.darkInk, core.ACCENT.darkInk);
  // Yellow on white is 1.1:1: darkened, and said to be.
  const yellow = core.accent("#ffcc00");
  assert.equal(yellow.changed, true);
  assert.ok(reads(yellow.light, core.ACCENT.light), yellow.light);
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(yellow.light.substr(i, 2), 16));
  assert.ok(r > b && g > b && yellow.light !== "#000000", "still a yellow's dark shade, not black: " + yellow.light);
  assert.equal(yellow.dark, "#ffcc00", "it reads on the dark frame as it is");
  // Every colour ends readable, its ink on it too.
  for (const c of ["#000000", "#ffffff", "#ff0000", "#00ff00", "#0000ff", "#808080", "#00897b", "#f5a623", "#e0115f"]) {
    const a = core.accent(c);
    assert.ok(reads(a.light, core.ACCENT.light) && reads(a.dark, core.ACCENT.dark), c);
    assert.ok(core.contrast(a.lightInk, a.light) >= 4.5 && core.contrast(a.darkInk, a.dark) >= 4.5, c);
  }
  for (const bad of ["red", "#fff", "", null, "#12345g", "url(x)", "#ffffff; color: red"]) assert.equal(core.accent(bad), null, String(bad));
});

test("the accent's grounds are the widget's own: the frame and bubble colours of widget.css in each scheme", () => {
  const fs = require("node:fs");
  const css = fs.readFileSync(path.join(__dirname, "..", "..", "Sources", "RocketServer", "Web", "widget.css"), "utf8");
  const light = css.match(/^\.rk\{--rk-bg:(#[0-9a-f]+);--rk-ink:#[0-9a-f]+;--rk-bubble:(#[0-9a-f]+);/m);
  const dark = css.match(/prefers-color-scheme:dark\)\{\.rk\{--rk-bg:(#[0-9a-f]+);--rk-ink:#[0-9a-f]+;--rk-bubble:(#[0-9a-f]+);--rk-mine:var\(--rk-accent-dark,#[0-9a-f]+\);--rk-mine-ink:var\(--rk-accent-dark-ink,(#[0-9a-f]+)\)/);
  assert.ok(light && dark, "widget.css starts with the colours of both schemes");
  const six = (c) => c.length === 4 ? "#" + c[1] + c[1] + c[2] + c[2] + c[3] + c[3] : c;
  assert.deepEqual(core.ACCENT.light, [six(light[1]), six(light[2])]);
  assert.deepEqual(core.ACCENT.dark, [six(dark[1]), six(dark[2])]);
  assert.equal(core.ACCENT.darkInk, dark[3]);
});

test("the script tag's attributes: a mode or a cap that cannot be read is said, with what is used instead", () => {
  const of = (attrs) => (name) => (name in attrs ? attrs[name] : null);
  assert.deepEqual(core.attributeProblems(of({})), []);
  assert.deepEqual(core.attributeProblems(of({ "data-mode": "launcher", "data-session-cap": "2" })), []);
  assert.deepEqual(core.attributeProblems(of({ "data-mode": "inline" })), []);
  assert.deepEqual(core.attributeProblems(of({ "data-mode": "launchr" })), ['data-mode must be inline or launcher, not "launchr"; the conversation is inline']);
  assert.deepEqual(core.attributeProblems(of({ "data-session-cap": "two" })),
    ['data-session-cap must be a whole number of flows (0 to 9999), not "two"; no cap is kept']);
  assert.equal(core.attributeProblems(of({ "data-mode": "x".repeat(500) }))[0].length < 120, true, "a long value is cut");
  assert.deepEqual(core.attributeProblems(of({ "data-position": " Left " })), []);
  assert.deepEqual(core.attributeProblems(of({ "data-position": "top-left" })),
    ['data-position must be left or right, not "top-left"; the launcher keeps the page\'s end corner']);
});

test("the launcher's corner: left or right as asked, else none (the page's end)", () => {
  assert.equal(core.launcherSide("left"), "left");
  assert.equal(core.launcherSide(" RIGHT "), "right");
  for (const bad of ["", "top", "bottom-left", null, undefined, 3, "left;color:red"]) assert.equal(core.launcherSide(bad), null, String(bad));
});

test("a start's unused values are told to the page's developer, named and counted, never trusted as anything but names", () => {
  assert.equal(core.unusedVarsNote("welcome", { status: "started" }), null);
  assert.equal(core.unusedVarsNote("welcome", { unusedVars: [] }), null);
  assert.equal(core.unusedVarsNote("welcome", null), null);
  assert.equal(core.unusedVarsNote("welcome", { unusedVars: ["plna"] }),
    'the flow "welcome" reads nothing named "plna", so it changes nothing (a typo in data-vars or vars?)');
  assert.equal(core.unusedVarsNote("w", { unusedVars: ["a", "b", 7] }), 'the flow "w" reads nothing named "a" and "b", so they change nothing (a typo in data-vars or vars?)');
  const many = Array.from({ length: 12 }, (_, i) => "n" + i);
  assert.ok(core.unusedVarsNote("w", { unusedVars: many }).includes('"n9" and 2 more'));
  assert.equal(core.unusedVarsNote("w", { unusedVars: "plna" }), null, "not a list");
});

test("auto-advance is held while the visitor is engaged or turned it off, and only asked for when it changes", () => {
  const running = { autoAdvance: true, held: false }, held = { autoAdvance: true, held: true };
  assert.equal(core.holdWanted(running, true, false, null), true, "pointer, focus or typing");
  assert.equal(core.holdWanted(running, false, true, null), true, "turned off");
  assert.equal(core.holdWanted(running, false, false, null), null, "already running");
  assert.equal(core.holdWanted(held, false, false, null), false, "let it run again");
  assert.equal(core.holdWanted(held, true, false, null), null, "already held");
  assert.equal(core.holdWanted(running, true, false, true), null, "a request is out");
  assert.equal(core.holdWanted({ autoAdvance: false, held: false }, true, true, null), null, "nothing to hold");
  assert.equal(core.holdWanted({ autoAdvance: false, held: true }, false, false, null), false, "a hold left over is let go");
  assert.equal(core.holdWanted(null, true, false, null), null);
});

test("a text input's native control follows its inputType, bounds and secrecy", () => {
  assert.deepEqual(core.fieldFor({ type: "textInput" }), { type: "text", inputmode: null, autocomplete: "on", step: null, min: null, max: null });
  assert.deepEqual(core.fieldFor({ inputType: "number", min: 0, max: 10 }),
    { type: "text", inputmode: "decimal", autocomplete: "on", step: null, min: null, max: null },
    "a number is typed as text with the digits keyboard; the server checks it and its bounds");
  assert.equal(core.fieldFor({ inputType: "integer" }).inputmode, "numeric");
  assert.deepEqual(core.fieldFor({ inputType: "date", min: "2026-01-31" }),
    { type: "date", inputmode: null, autocomplete: "on", step: null, min: "2026-01-31", max: null });
  assert.deepEqual(core.fieldFor({ inputType: "time", min: "09:00", max: "17:30" }),
    { type: "time", inputmode: null, autocomplete: "on", step: null, min: "09:00", max: "17:30" });
  assert.equal(core.fieldFor({ inputType: "email" }).type, "email");
  assert.equal(core.fieldFor({ inputType: "email" }).autocomplete, "email");
  assert.equal(core.fieldFor({ inputType: "url" }).type, "url");
  assert.equal(core.fieldFor({ inputType: "phone" }).type, "tel");
  assert.equal(core.fieldFor({ inputType: "text", min: 3 }).min, null, "bounds only on number and date fields");
  const pin = core.fieldFor({ inputType: "integer", secret: true, min: 0 });
  assert.equal(pin.type, "password");
  assert.equal(pin.inputmode, "numeric", "a secret PIN still gets the digits keyboard");
  assert.equal(pin.min, null);
  assert.equal(core.fieldFor({ inputType: "nonsense" }).type, "text");
});

test("a date's bounds counted from today are days of the visitor's calendar", () => {
  const f = core.fieldFor({ inputType: "date", min: "today+1d", max: "today+2w" }, "2026-12-06");
  assert.equal(f.min, "2026-12-07");
  assert.equal(f.max, "2026-12-20");
  assert.equal(core.dayFrom("today", "2026-12-06"), "2026-12-06");
  assert.equal(core.dayFrom("today-18y", "2024-02-29"), "2006-02-28", "a year back from 29 February keeps to the month's last day");
  assert.equal(core.dayFrom("today+1m", "2026-01-31"), "2026-02-28");
  assert.equal(core.dayFrom("today-1d", "2026-01-01"), "2025-12-31");
  assert.equal(core.dayFrom("today+1m", "9999-12-31"), null, "past the year 9999");
  assert.equal(core.dayFrom("2026-05-01", null), "2026-05-01", "a day as written needs no today");
  assert.equal(core.dayFrom("today+1d", null), null, "no today: no bound");
  for (const bad of ["today+", "today+1x", "tomorrow", "today+1234567d", "today +1d", 7]) assert.equal(core.dayFrom(bad, "2026-12-06"), null, String(bad));
  assert.deepEqual(core.fieldFor({ inputType: "date", min: "today+1x" }, "2026-12-06").min, null);
  assert.equal(core.localDay(new Date(2026, 0, 5, 23, 59)), "2026-01-05", "the local day, not UTC's");
});

test("a multiple choice's reply lists the titles chosen; a rating's is its value on its scale", () => {
  const many = { type: "choice", multiple: true, options: [{ title: "Tea" }, { title: "Cake" }, { title: "Milk" }] };
  assert.equal(core.answerTitle({ ...many, chosen: [0, 2] }), "Tea, Milk");
  assert.equal(core.answerTitle({ ...many, chosen: [] }), null);
  assert.equal(core.answerTitle({ ...many, chosen: null }), null);
  assert.equal(core.answerTitle({ ...many, chosen: [9] }), null, "an index outside the options is no title");
  assert.equal(core.answerTitle({ type: "rating", scale: 5, rated: 4 }), "4 / 5");
  assert.equal(core.answerTitle({ type: "rating", scale: 5, rated: null }), null);
});

test("Edit is offered on the answer back would reopen, only when the view accepts back", () => {
  const v = { backTo: 2, accepts: ["submit", "back"] };
  assert.equal(core.editable(v, { type: "reply", after: 2 }), true);
  assert.equal(core.editable(v, { type: "reply", after: 1 }), false);
  assert.equal(core.editable(v, { type: "choice", index: 2 }), true);
  assert.equal(core.editable(v, { type: "textInput", index: 2 }), false, "an input's answer is its reply item");
  assert.equal(core.editable({ backTo: 2, accepts: ["submit"] }, { type: "reply", after: 2 }), false);
  assert.equal(core.editable({ backTo: null, accepts: ["back"] }, { type: "reply", after: 2 }), false);
});

test("the widget's own words: the language, its first part, else English, else the key; arguments fill in turn", () => {
  const table = { en: { done: "Done", range: "Choose %d to %d" }, it: { done: "Fatto" } };
  assert.equal(core.word(table, "it", "done"), "Fatto");
  assert.equal(core.word(table, "it-IT", "done"), "Fatto");
  assert.equal(core.word(table, "fr", "done"), "Done");
  assert.equal(core.word(table, "it", "range", [1, 3]), "Choose 1 to 3", "a word the language lacks is English");
  assert.equal(core.word(table, "en", "nothing"), "nothing");
  assert.equal(core.word("__WORDS__", "en", "done"), "done", "no table: the key");
  assert.equal(core.word(table, "en", "range", [2]), "Choose 2 to %d");
  const scale = { en: { pick: "Pick a rating from %b to %d first." }, ja: { pick: "先に %b から %d の評価を選んでください。" } };
  assert.equal(core.word(scale, "en", "pick", [0, 10]), "Pick a rating from 0 to 10 first.", "%b, a scale's bottom, fills in turn too");
  assert.equal(core.word(scale, "ja", "pick", [1, 5]), "先に 1 から 5 の評価を選んでください。");
});

test("which language's words a page needs: the language the server has, its first part, else English", () => {
  const langs = ["en", "zh", "it", "pt", "ja"];
  assert.equal(core.wordsKey(langs, "it"), "it");
  assert.equal(core.wordsKey(langs, "it-IT"), "it", "its first part");
  assert.equal(core.wordsKey(langs, "pt-BR"), "pt");
  assert.equal(core.wordsKey(langs, "zh-Hant-TW"), "zh");
  assert.equal(core.wordsKey(langs, "fr"), "en", "a language the server lacks: English, fetched from nowhere");
  assert.equal(core.wordsKey(langs, ""), "en");
  assert.equal(core.wordsKey(langs, undefined), "en");
  assert.equal(core.wordsKey("__WORD_LANGS__", "it"), "en", "no list: English");
  assert.equal(core.wordsKey(["en", "pt-BR"], "pt-BR"), "pt-BR", "a full tag the server has is kept whole");
});

test("the language the words are shown in: the one asked when its words are here, else English", () => {
  const langs = ["en", "it", "pt"];
  const table = { en: { done: "Done" }, it: { done: "Fatto" } };
  assert.equal(core.wordsShown(table, langs, "it"), "it");
  assert.equal(core.wordsShown(table, langs, "it-CH"), "it-CH", "its words are Italian's: it is marked as asked");
  assert.equal(core.wordsShown(table, langs, "pt"), "en", "not fetched (or failed): English words, marked English");
  assert.equal(core.wordsShown(table, langs, "fr"), "en", "a language the server lacks");
  assert.equal(core.wordsShown(table, langs, "en"), "en");
  assert.equal(core.wordsShown(null, langs, "it"), "en");
});

test("a table of words fetched: texts by key only, bounded; anything else is refused", () => {
  assert.deepEqual(core.wordTable({ done: "Fatto", edit: "Modifica" }), { done: "Fatto", edit: "Modifica" });
  assert.deepEqual(core.wordTable({}), {});
  assert.equal(core.wordTable(null), null);
  assert.equal(core.wordTable([]), null);
  assert.equal(core.wordTable("done"), null);
  assert.equal(core.wordTable({ done: 1 }), null, "a text that is no string");
  assert.equal(core.wordTable({ done: "x".repeat(501) }), null, "a text too long");
  const many = {};
  for (let i = 0; i < 201; i++) many["k" + i] = "v";
  assert.equal(core.wordTable(many), null, "too many");
  const table = core.wordTable(JSON.parse('{"__proto__": "x", "done": "Fatto"}'));
  assert.equal(table.done, "Fatto");
  assert.equal(Object.getPrototypeOf(table), Object.prototype, "a key named __proto__ changes no prototype");
});

test("page triggers: each condition, combinations, and what is refused", () => {
  assert.deepEqual(core.parseTrigger("delay:30s"), { delay: 30000, scroll: null, exitIntent: false, visits: 0 });
  assert.deepEqual(core.parseTrigger("scroll:50% exit-intent"), { delay: 0, scroll: 0.5, exitIntent: true, visits: 0 });
  assert.deepEqual(core.parseTrigger(" visits:3, delay:1.5m "), { delay: 90000, scroll: null, exitIntent: false, visits: 3 });
  assert.equal(core.parseTrigger("delay:250ms").delay, 250);
  for (const bad of ["", "   ", "delay", "delay:30", "delay:-1s", "delay:25h", "delay:1441m", "scroll:101%", "scroll:50", "visits:0",
    "visits:x", "exit", "onload", "a b c d e f g h i", null, 7, "delay:30s;alert(1)"]) {
    assert.ok(core.parseTrigger(bad).error, String(bad));
  }
  const spec = core.parseTrigger("delay:10s scroll:50% visits:2");
  const seen = { elapsed: 10000, scrolled: 0.5, exited: false, visits: 2 };
  assert.equal(core.triggerReady(spec, seen), true);
  assert.equal(core.triggerReady(spec, { ...seen, elapsed: 9999 }), false);
  assert.equal(core.triggerReady(spec, { ...seen, scrolled: 0.49 }), false);
  assert.equal(core.triggerReady(spec, { ...seen, visits: 1 }), false);
  assert.equal(core.triggerReady(core.parseTrigger("exit-intent"), { ...seen, exited: false }), false);
  assert.equal(core.triggerReady(core.parseTrigger("exit-intent"), { ...seen, exited: true }), true);
});

test("scrolled: the bottom of the window over the page; a page that does not scroll is read whole", () => {
  assert.equal(core.scrolled(0, 800, 800), 1);
  assert.equal(core.scrolled(0, 800, 400), 1);
  assert.equal(core.scrolled(0, 500, 2000), 0.25);
  assert.equal(core.scrolled(1500, 500, 2000), 1);
  assert.equal(core.scrolled(5000, 500, 2000), 1);
  assert.equal(core.scrolled(-50, 500, 2000), 0.225);
});

test("visits: the first page begins one; a page within 30 minutes continues it; later, the next", () => {
  const gap = 30 * 60 * 1000;
  let v = core.countVisit(null, 1000, gap);
  assert.deepEqual(v, { count: 1, last: 1000, since: 1000 });
  v = core.countVisit(v, 1000 + gap, gap);
  assert.deepEqual(v, { count: 1, last: 1000 + gap, since: 1000 });
  v = core.countVisit(v, 2000 + 2 * gap, gap);
  assert.deepEqual(v, { count: 2, last: 2000 + 2 * gap, since: 2000 + 2 * gap });
  // Anything else stored (a tampered or older value, a clock gone back) starts over.
  for (const junk of [{}, { count: "2" }, { count: 3, last: 9e15, since: 1 }, "x", 5, { count: NaN, last: 1, since: 1 }]) {
    assert.deepEqual(core.countVisit(junk, 1000, gap), { count: 1, last: 1000, since: 1000 }, JSON.stringify(junk));
  }
});

test("the per-visit cap explains itself; none means no cap", () => {
  assert.equal(core.sessionRefusal(null, 5), null);
  assert.equal(core.sessionRefusal(2, 1), null);
  assert.equal(core.sessionRefusal(1, 1), "this visit has shown 1 flow; the page allows 1");
  assert.equal(core.sessionRefusal(2, 3), "this visit has shown 3 flows; the page allows 2");
});

test("a conversation is lost when the server no longer has it, no longer serves its flow, or keeps no version of its changed flow; other refusals are not", () => {
  assert.equal(core.conversationLost(404, "unknown-conversation"), true);
  assert.equal(core.conversationLost(409, "flow-changed"), true);
  assert.equal(core.conversationLost(410, "flow-gone"), true);
  // A stale step is answered with the conversation as it is: it goes on.
  assert.equal(core.conversationLost(409, "stale-step"), false);
  assert.equal(core.conversationLost(422, "invalid-input"), false);
  assert.equal(core.conversationLost(404, "not-found"), false);
  assert.equal(core.conversationLost(503, "store-unavailable"), false);
  assert.equal(core.conversationLost(200, undefined), false);
});

test("a dropped event stream: none when what it follows is gone; else 2 s, doubling each try in a row up to 30 s, spread over its last quarter", () => {
  const lost = core.conversationLost;
  assert.equal(core.streamRetry(404, "unknown-conversation", 0, lost, 0.5), null);
  assert.equal(core.streamRetry(410, "flow-gone", 3, lost, 0.5), null);
  // Network failures (status 0), a restarting server, rate limits: tried again, later each time.
  assert.deepEqual([0, 1, 2, 3, 4, 5, 40].map((k) => core.streamRetry(0, undefined, k, lost, 1)), [2000, 4000, 8000, 16000, 30000, 30000, 30000]);
  assert.equal(core.streamRetry(503, "store-unavailable", 0, lost, 0), 1500);
  assert.equal(core.streamRetry(429, "rate-limited", 1, lost, 0.5), 3500);
  // A 404 of another kind (a proxy's page) is not taken for a lost conversation.
  assert.equal(core.streamRetry(404, undefined, 0, lost, 1), 2000);
  // A refusal's Retry-After is waited out at least, up to a minute; one that is no number of
  // seconds is not taken.
  assert.equal(core.streamRetry(503, "too-many-streams", 0, lost, 1, "10"), 10000);
  assert.equal(core.streamRetry(503, "too-many-streams", 4, lost, 1, "10"), 30000);
  assert.equal(core.streamRetry(429, "too-many-for-address", 0, lost, 1, "600"), 60000);
  for (const odd of [null, undefined, "", "-5", "1.5", "Wed, 21 Oct 2026 07:28:00 GMT", "9999999"]) {
    assert.equal(core.streamRetry(503, "too-many-streams", 0, lost, 1, odd), 2000, String(odd));
  }
  // Odd inputs stay in range: a number of milliseconds from 1.5 s to 30 s.
  for (const [tries, random, want] of [[-3, -1, 1500], [NaN, 7, 2000], [1e9, 0.2, 24000], [undefined, undefined, 1500]]) {
    assert.equal(core.streamRetry(0, undefined, tries, lost, random), want, `${tries} ${random}`);
  }
});

test("an alert is gone when the server no longer has it; other refusals leave it open", () => {
  assert.equal(core.alertGone(404, "unknown-alert"), true);
  assert.equal(core.alertGone(404, "unknown-conversation"), false);
  assert.equal(core.alertGone(404, undefined), false);
  assert.equal(core.alertGone(409, "already-answered"), false);
  assert.equal(core.alertGone(503, "store-unavailable"), false);
  // A dropped stream of an alert that is gone is not opened again.
  assert.equal(core.streamRetry(404, "unknown-alert", 0, core.alertGone, 0.5), null);
});

test("language tags: what the server takes, nothing else", () => {
  for (const ok of ["fr", "pt-BR", "zh-Hant-TW", "de-CH-1996", "ast", "en-US-u-ca-gregory"]) assert.equal(core.languageTag(ok), ok, ok);
  for (const bad of ["", "f", "fran", "fr_FR", "fr-", "-fr", "fr--CA", "fr-toolongsubtag", "<b>", "fr CA", "x".repeat(36), null, undefined, 7, {}]) {
    assert.equal(core.languageTag(bad), null, String(bad));
  }
});

test("the widget's own words are marked with their language only when it differs from the flow's texts'", () => {
  assert.equal(core.wordsLangWithin({ flowLang: "ar", lang: "en" }), "en");
  assert.equal(core.wordsLangWithin({ flowLang: "he-IL", lang: "en" }), "en");
  assert.equal(core.wordsLangWithin({ flowLang: "pt-BR", lang: "pt" }), null, "the same language");
  assert.equal(core.wordsLangWithin({ flowLang: "FR", lang: "fr" }), null, "tags compare without case");
  assert.equal(core.wordsLangWithin({ lang: "en" }), null, "a flow that names no languages");
  for (const bad of [null, undefined, {}, { flowLang: "<b>", lang: "en" }, { flowLang: "ar", lang: 7 }]) assert.equal(core.wordsLangWithin(bad), null);
});

test("data-vars: a JSON object of flow variables, checked as the server will take them", () => {
  assert.deepEqual(core.dataVars('{"plan": "pro", "seats": 5, "beta": true}'), { vars: { plan: "pro", seats: 5, beta: true } });
  assert.deepEqual(core.dataVars("{}"), { vars: {} });
  for (const [text, says] of [
    ["plan=pro", "must be JSON"], ["[1]", "JSON object"], ["null", "JSON object"], ['"pro"', "JSON object"],
    ['{"a b": 1}', "no variable name"], ['{"x": null}', "must be a text"], ['{"x": [1]}', "must be a text"], ['{"x": {"y": 1}}', "must be a text"],
    [JSON.stringify({ x: "é".repeat(513) }), "1024 bytes"],
    [JSON.stringify(Object.fromEntries(Array.from({ length: 65 }, (_, i) => ["v" + i, i]))), "at most 64"],
  ]) {
    const r = core.dataVars(text);
    assert.ok(r.error && r.error.includes(says), `${text.slice(0, 40)}: ${JSON.stringify(r)}`);
  }
  // Exactly at each limit is taken; one past it is not, in data-vars and in the address alike.
  const L = core.varLimits;
  const atLimit = { ["n".repeat(L.nameBytes)]: "é".repeat(L.valueBytes / 2) };
  for (let i = 1; i < L.count; i++) atLimit["v" + i] = i;
  assert.deepEqual(core.dataVars(JSON.stringify(atLimit)).vars, atLimit);
  assert.ok(core.dataVars(JSON.stringify({ ["n".repeat(L.nameBytes + 1)]: 1 })).error);
  assert.deepEqual(core.queryVars("?" + "n".repeat(L.nameBytes + 1) + "=1&ok=" + "a".repeat(L.valueBytes)), { ok: "a".repeat(L.valueBytes) });
  assert.deepEqual(core.queryVars("?x=" + "a".repeat(L.valueBytes + 1)), {});
  assert.equal(Object.keys(core.queryVars("?" + Array.from({ length: L.count + 5 }, (_, i) => "v" + i + "=1").join("&"))).length, L.count);
  assert.deepEqual(core.mergeVars({ a: "1", b: "2" }, { b: "3" }), { a: "1", b: "3" }, "the address's over the tag's");
});

test("a multiple choice's rule: the words' key and numbers, as the terminal says it", () => {
  assert.equal(core.chooseRule(undefined, undefined), null);
  assert.deepEqual(core.chooseRule(undefined, 2), { key: "chooseUpTo", args: [2] });
  assert.deepEqual(core.chooseRule(2, undefined), { key: "chooseAtLeast", args: [2] });
  assert.deepEqual(core.chooseRule(2, 3), { key: "chooseRange", args: [2, 3] });
  assert.deepEqual(core.chooseRule(2, 2), { key: "chooseExactly", args: [2] }, "not \"Choose 2 to 2\"");
});

test("a rating's typed digits: one alone, two within the pause as a number on the scale, else each alone", () => {
  let t = core.typedRating(null, "1", 1000, 0, 10);
  assert.deepEqual(t, { value: 1, digits: "1", at: 1000 });
  t = core.typedRating(t, "0", 1400, 0, 10);
  assert.equal(t.value, 10, "1 then 0: ten");
  assert.equal(core.typedRating(core.typedRating(null, "1", 0, 0, 10), "1", 200, 0, 10).value, 1, "11 is off the scale: the second 1 alone");
  assert.equal(core.typedRating(core.typedRating(null, "1", 0, 0, 10), "0", core.digitPause, 0, 10).value, 0, "too late: the 0 alone");
  assert.equal(core.typedRating(core.typedRating(null, "1", 0, 1, 5), "2", 100, 1, 5).value, 2, "stars: 1 then 2 is 2, not 12");
  assert.equal(core.typedRating(null, "0", 0, 1, 5), null, "0 is off a scale from 1");
  assert.equal(core.typedRating(null, "9", 0, 1, 5), null);
  assert.equal(core.typedRating(null, "a", 0, 0, 10), null, "not a digit");
  assert.equal(core.typedRating(null, "10", 0, 0, 10), null, "a key is one digit");
  assert.equal(core.digitPause, 1000);
});

test("keyboard inset: what a phone's keyboard covers of the window, and what is left; nothing while zoomed in", () => {
  // A 740 px window with a 300 px keyboard: 440 px visible, the bottom 300 covered.
  assert.deepEqual(core.keyboardInset(740, { height: 440, offsetTop: 0, scale: 1 }), { inset: 300, visible: 440 });
  // Safari pans the visible part down to the field: the covered part is below what is seen.
  assert.deepEqual(core.keyboardInset(740, { height: 440, offsetTop: 120, scale: 1 }), { inset: 180, visible: 440 });
  // No keyboard, a rounding pixel, a pinch zoom, unknown sizes: nothing to move.
  const none = { inset: 0, visible: null };
  assert.deepEqual(core.keyboardInset(740, { height: 740, offsetTop: 0, scale: 1 }), none);
  assert.deepEqual(core.keyboardInset(740, { height: 739.6, offsetTop: 0, scale: 1 }), none);
  assert.deepEqual(core.keyboardInset(740, { height: 370, offsetTop: 100, scale: 2 }), none);
  for (const [h, vv] of [[740, null], [0, { height: 400 }], [NaN, { height: 400 }], [740, { height: 0 }], [740, { height: Infinity }], [Infinity, { height: 400 }]]) {
    assert.deepEqual(core.keyboardInset(h, vv), none, JSON.stringify([h, vv]));
  }
  // Missing offset or scale read as 0 and 1; an offset past the window never gives a negative inset.
  assert.deepEqual(core.keyboardInset(740, { height: 400 }), { inset: 340, visible: 400 });
  assert.deepEqual(core.keyboardInset(740, { height: 400, offsetTop: 900, scale: 1 }), none);
});

test("Rocket-Settled names the view a page holds: its version and settled items; nothing for a view that does not say", () => {
  assert.equal(core.settledHeader({ version: 7, settled: 3 }), "7/3");
  assert.equal(core.settledHeader({ version: 0, settled: 0 }), "0/0");
  assert.equal(core.settledHeader(null), null);
  assert.equal(core.settledHeader({ version: 7 }), null);
  assert.equal(core.settledHeader({ version: 7, settled: 1.5 }), null);
  assert.equal(core.settledHeader({ version: -1, settled: 0 }), null);
  assert.equal(core.settledHeader({ version: 1e10, settled: 0 }), null);
  assert.equal(core.settledHeader({ version: "7", settled: 3 }), null);
});

test("an answer without the items a page holds is made whole from the view shown, or read again", () => {
  const a = { type: "text", index: 0 }, b = { type: "text", index: 1 }, c = { type: "button", index: 2, pressed: false };
  const shown = { id: "x", version: 4, settled: 2, transcript: [a, b, c] };
  // A whole view is taken as it is.
  const whole = { id: "x", version: 5, settled: 3, transcript: [a, b, { type: "button", index: 2, pressed: true }] };
  assert.equal(core.merged(shown, whole), whole);
  assert.equal(core.merged(null, whole), whole);
  assert.equal(core.merged(shown, Object.assign({ transcriptFrom: 0 }, whole)).transcript.length, 3);
  // Two items left out: the shown view's first two, then the answer's (the button, pressed now).
  const part = { id: "x", version: 5, settled: 3, transcriptFrom: 2, transcriptBase: 4, transcript: [{ type: "button", index: 2, pressed: true }, { type: "text", index: 3 }] };
  const made = core.merged(shown, part);
  assert.deepEqual(made.transcript, [a, b, { type: "button", index: 2, pressed: true }, { type: "text", index: 3 }]);
  assert.equal(made.transcriptFrom, undefined);
  assert.equal(made.transcriptBase, undefined);
  // The view shown is newer than the one the answer builds on: its first items are the same.
  assert.deepEqual(core.merged(Object.assign({}, shown, { version: 5 }), part).transcript.length, 4);
  assert.equal(made.version, 5);
  assert.equal(made.settled, 3);
  assert.equal(part.transcript.length, 2, "the answer is not changed");
  assert.equal(shown.transcript.length, 3, "nor the view shown");
  // What the page cannot supply: read again.
  assert.equal(core.merged(null, part), null);
  assert.equal(core.merged({ id: "y", version: 4, settled: 2, transcript: [a, b] }, part), null, "another conversation");
  assert.equal(core.merged({ id: "x", version: 4, settled: 1, transcript: [a, b, c] }, part), null, "fewer settled than left out");
  assert.equal(core.merged({ id: "x", version: 4, settled: 2, transcript: [a] }, part), null, "fewer items than left out");
  assert.equal(core.merged({ id: "x", version: 4, transcript: [a, b] }, part), null, "a view that says nothing settled");
  // A view older than the one the answer builds on (a stream frame that overtook the one before):
  // its first items may have been taken back since, even with as many settled.
  assert.equal(core.merged({ id: "x", version: 3, settled: 2, transcript: [a, b, c] }, part), null, "an older view");
  assert.equal(core.merged(shown, Object.assign({}, part, { transcriptBase: undefined })), null, "no base");
  assert.equal(core.merged(shown, Object.assign({}, part, { transcriptBase: "4" })), null, "a base that is no number");
  for (const bad of [-1, 1.5, "2", null, NaN]) {
    assert.equal(core.merged(shown, Object.assign({}, part, { transcriptFrom: bad })), null, String(bad));
  }
  assert.equal(core.merged(shown, Object.assign({}, part, { transcript: "x" })), null);
  // What cannot be filled in is read again when it is the conversation shown (or none is), never
  // when it is one the page has left.
  assert.equal(core.rereads(shown, part), true);
  assert.equal(core.rereads(null, part), true);
  assert.equal(core.rereads({ id: "y", version: 1, settled: 0, transcript: [] }, part), false);
});
