(function () {
  "use strict";

  // The widget's logic that needs no page: what a visitor id, a picture source or a colour may
  // be, how a font is drawn, when an intent is sent, which action takes the focus. Under Node
  // (`node --test Tests/Widget/`) this object is all the file gives; in a page the rest below
  // draws with it.
  var core = {
    /**
     * The variables a start may give, as the server takes them (RocketLimits.startVariables,
     * startVariableNameBytes, startVariableValueBytes; a Swift test checks they agree).
     */
    varLimits: { count: 64, nameBytes: 64, valueBytes: 1024 },
    /** The longest typed answer the server takes, in bytes of UTF-8 (RocketLimits.submittedTextBytes). */
    answerBytes: 8192,
    /** How soon after a digit typed on a rating another makes a number with it, in ms (RocketRatingNode.digitPause). */
    digitPause: 1000,
    /** The largest width or height of a picture believed (the server's PictureFormat.largestSide). */
    largestSide: 65535,
    /**
     * The value a digit typed on a rating from `bottom` to `top` picks at `now` (ms), after
     * `last` (what the digits before it picked, or null): with a digit typed less than
     * `digitPause` before, the number they make while it is on the scale ("1", "0": 10); else the
     * digit alone. Null when that is off the scale. As the terminal picks (KeyController).
     */
    typedRating: function (last, digit, now, bottom, top) {
      if (!/^[0-9]$/.test(digit)) return null;
      if (last && now - last.at < core.digitPause) {
        var joined = Number(last.digits + digit);
        if (joined >= bottom && joined <= top) return { value: joined, digits: last.digits + digit, at: now };
      }
      var alone = Number(digit);
      return alone >= bottom && alone <= top ? { value: alone, digits: digit, at: now } : null;
    },
    /** True for a name a start's variable may have: letters, digits, '_', '.' or '-' (ASCII, so bytes). */
    isVarName: function (name) {
      return typeof name === "string" && name.length >= 1 && name.length <= core.varLimits.nameBytes && /^[A-Za-z0-9_.-]+$/.test(name);
    },
    /**
     * The words of a multiple choice's rule, as the terminal says it (UIStrings.chooseRule): the
     * key of the widget's words and its numbers, or null without bounds ("Choose 2", not "Choose
     * 2 to 2").
     */
    chooseRule: function (min, max) {
      if (!min && !max) return null;
      if (!min) return { key: "chooseUpTo", args: [max] };
      if (!max) return { key: "chooseAtLeast", args: [min] };
      return min === max ? { key: "chooseExactly", args: [min] } : { key: "chooseRange", args: [min, max] };
    },
    /** The UTF-8 bytes of a text, as the server counts them. */
    utf8Bytes: function (text) { return unescape(encodeURIComponent(text)).length; },
    /** True for the visitor ids the server takes: 1–128 letters, digits, '.', '_', ':' or '-'. */
    isVisitorID: function (v) { return typeof v === "string" && /^[A-Za-z0-9._:-]{1,128}$/.test(v); },
    /** True for a visitor token the server issued: anon., 32 hex digits, a dot, 64 hex digits. */
    isToken: function (t) { return typeof t === "string" && /^anon\.[0-9a-f]{32}\.[0-9a-f]{64}$/.test(t); },
    /** The visitor id a token carries, or null. */
    tokenVisitor: function (t) { return core.isToken(t) ? t.slice(0, 37) : null; },
    /**
     * Reads an event stream's text: the complete events in `text` ({event, data, id}; data lines
     * joined with "\n", comments skipped) and what is left for the next read.
     */
    sseParse: function (text) {
      var events = [], blocks = text.replace(/\r\n?/g, "\n").split("\n\n"), rest = blocks.pop();
      for (var i = 0; i < blocks.length; i++) {
        var ev = { event: "message", data: null, id: null }, lines = blocks[i].split("\n");
        for (var j = 0; j < lines.length; j++) {
          var line = lines[j], colon = line.indexOf(":");
          if (!line || colon === 0) continue;
          var field = colon < 0 ? line : line.slice(0, colon), value = colon < 0 ? "" : line.slice(colon + 1);
          if (value.charAt(0) === " ") value = value.slice(1);
          if (field === "event") ev.event = value;
          else if (field === "data") ev.data = ev.data === null ? value : ev.data + "\n" + value;
          else if (field === "id") ev.id = value;
        }
        if (ev.data !== null) events.push(ev);
      }
      return { events: events, rest: rest };
    },
    /**
     * A countdown that can be paused (a banner's time on screen, WCAG 2.2.1): `left` ms remain,
     * running since `since` (null while paused). Pure: the caller passes the time.
     */
    countdown: function (ms, now) { return { left: Math.max(0, ms), since: now }; },
    /** The countdown paused at `now`. */
    pause: function (c, now) { return c.since === null ? c : { left: Math.max(0, c.left - (now - c.since)), since: null }; },
    /** The countdown running again from `now`. */
    resume: function (c, now) { return c.since === null ? { left: c.left, since: now } : c; },
    /** Milliseconds until the countdown ends (Infinity while paused). */
    remaining: function (c, now) { return c.since === null ? Infinity : Math.max(0, c.left - (now - c.since)); },
    /**
     * The reply an answered block becomes: the title of the pressed button, the chosen side or
     * option; null while it is unanswered.
     */
    answerTitle: function (item) {
      if (item.type === "button") return item.pressed === true ? item.title : null;
      if (item.type === "doubleButton") return item.pressed === "left" ? item.left.title : item.pressed === "right" ? item.right.title : null;
      if (item.type === "choice" && Array.isArray(item.chosen)) {
        var titles = [];
        for (var i = 0; i < item.chosen.length; i++) if (item.options[item.chosen[i]]) titles.push(item.options[item.chosen[i]].title);
        return titles.length ? titles.join(", ") : null;
      }
      if (item.type === "choice") return typeof item.chosen === "number" && item.options[item.chosen] ? item.options[item.chosen].title : null;
      if (item.type === "rating") return typeof item.rated === "number" ? item.rated + " / " + item.scale : null;
      return null;
    },
    /**
     * The page a button opens, when it names one a widget may open: an `http:` or `https:` URL
     * with a host, without spaces, quotes or angle brackets (the server's loader refuses any
     * other; this is said again where it becomes an `href`). Null otherwise.
     */
    link: function (url) {
      return typeof url === "string" && url.length <= 2048 && /^https?:\/\/[^\s\/?#:"'<>\\\x60][^\s"'<>\\\x60]*$/i.test(url) ? url : null;
    },
    /** The page the pressed button, side or option of an answered block opens; null for none. */
    answerLink: function (item) {
      var pressed = item.type === "button" ? (item.pressed === true ? item : null)
        : item.type === "doubleButton" ? (item.pressed === "left" ? item.left : item.pressed === "right" ? item.right : null)
        : item.type === "choice" && typeof item.chosen === "number" ? item.options[item.chosen] : null;
      return pressed ? core.link(pressed.link) : null;
    },
    /**
     * The language whose words the widget shows for `lang`, among `langs` (those the server has):
     * the language, else its first part (`it-IT` → `it`), else English, as ``word`` looks them up.
     */
    wordsKey: function (langs, lang) {
      var have = Array.isArray(langs) ? langs : [], l = typeof lang === "string" ? lang : "";
      if (l && have.indexOf(l) >= 0) return l;
      var first = l.split("-")[0];
      return first && have.indexOf(first) >= 0 ? first : "en";
    },
    /**
     * The language the widget's words for `lang` are shown in, given the tables at hand
     * (`table`, language → words) among those the server has (`langs`): `lang` when its words are
     * here, else English (they could not be fetched), so they are marked as what they are.
     */
    wordsShown: function (table, langs, lang) {
      var k = core.wordsKey(langs, lang);
      return k !== "en" && table && typeof table === "object" && table[k] ? lang : "en";
    },
    /**
     * The words of one language as `/widget/words/LANG` answers them, kept only when they are an
     * object of texts by key (at most 200, each at most 500 characters); null otherwise.
     */
    wordTable: function (value) {
      if (!value || typeof value !== "object" || Array.isArray(value)) return null;
      var out = {}, keys = Object.keys(value);
      if (keys.length > 200) return null;
      for (var i = 0; i < keys.length; i++) {
        var t = value[keys[i]];
        if (typeof t !== "string" || t.length > 500) return null;
        out[keys[i]] = t;
      }
      return out;
    },
    /**
     * The widget's word `key` in language `lang` from `table` (language → key → text, made from
     * the server's UIStrings): the language, else its first part (`it-IT` → `it`), else English,
     * else the key; each `%d` or `%@` in turn takes the next of `args`.
     */
    word: function (table, lang, key, args) {
      var t = typeof table === "object" && table ? table : {};
      var l = typeof lang === "string" ? lang : "";
      var words = t[core.wordsKey(Object.keys(t), l)] || {}, english = t.en || {};
      var text = typeof words[key] === "string" ? words[key] : typeof english[key] === "string" ? english[key] : key, i = 0;
      return text.replace(/%[bd@]/g, function (m) { return args && i < args.length ? String(args[i++]) : m; });
    },
    /**
     * True when `item` shows the answer that `back` would reopen: the reply to the block the view
     * names in `backTo`, or that block's own answer (a pressed button, a choice, a rating).
     */
    editable: function (v, item) {
      if (typeof v.backTo !== "number" || v.accepts.indexOf("back") < 0) return false;
      if (item.type === "reply") return item.after === v.backTo;
      return item.index === v.backTo && item.type !== "textInput";
    },
    /**
     * The native control for a text input, so phones show the right keyboard: its `type`,
     * `inputmode`, `autocomplete`, `step`, `min` and `max` from the block's `inputType`, `min`,
     * `max` and `secret` (a secret one is a password field whatever it takes).
     */
    fieldFor: function (item, today) {
      // Numbers are text fields with a numeric keyboard: a number field hides what does not
      // parse (a decimal comma, in some locales), changes on the mouse wheel, and loses what was
      // typed when the block is drawn again; the server reads and checks the text.
      var kinds = {
        number: { type: "text", inputmode: "decimal" },
        integer: { type: "text", inputmode: "numeric" },
        email: { type: "email", inputmode: "email", autocomplete: "email" },
        url: { type: "url", inputmode: "url", autocomplete: "url" },
        date: { type: "date" },
        time: { type: "time" },
        phone: { type: "tel", inputmode: "tel", autocomplete: "tel" }
      };
      var k = kinds[item.inputType] || { type: "text" };
      var out = { type: k.type, inputmode: k.inputmode || null, autocomplete: k.autocomplete || "on", step: k.step || null, min: null, max: null };
      if (item.secret) { out.type = "password"; out.autocomplete = "off"; out.step = null; }
      var bound = function (b) { return typeof b === "number" || typeof b === "string" ? String(b) : null; };
      if (out.type === "number" || out.type === "date" || out.type === "time") { out.min = bound(item.min); out.max = bound(item.max); }
      // A date's bound counted from today (today+7d) is that day of the visitor's calendar.
      if (out.type === "date") { out.min = out.min && core.dayFrom(out.min, today); out.max = out.max && core.dayFrom(out.max, today); }
      return out;
    },
    /**
     * A date bound as a day YYYY-MM-DD: as written, or counted from `today` (a YYYY-MM-DD):
     * "today", "today+7d", "today-18y" (days, weeks, months, years; a month step keeps the day
     * where the month has it, else its last). Null for anything else, or outside years 1–9999.
     */
    dayFrom: function (bound, today) {
      if (typeof bound !== "string") return null;
      if (/^\d{4}-\d{2}-\d{2}$/.test(bound)) return bound;
      var m = /^today(?:([+-])(\d{1,6})([dwmy]))?$/.exec(bound);
      var t = /^(\d{4})-(\d{2})-(\d{2})$/.exec(typeof today === "string" ? today : "");
      if (!m || !t) return null;
      var n = m[1] ? (m[1] === "-" ? -1 : 1) * Number(m[2]) : 0;
      var days = m[3] === "d" ? n : m[3] === "w" ? 7 * n : 0;
      var months = m[3] === "m" ? n : m[3] === "y" ? 12 * n : 0;
      var total = Number(t[1]) * 12 + Number(t[2]) - 1 + months;
      var y = Math.floor(total / 12), mo = total - y * 12;
      if (y < 1 || y > 9999) return null;
      var d = new Date(0);
      d.setUTCFullYear(y, mo + 1, 0);  // the month's last day
      d.setUTCFullYear(y, mo, Math.min(Number(t[3]), d.getUTCDate()));
      d.setUTCDate(d.getUTCDate() + days);
      var yy = d.getUTCFullYear();
      if (yy < 1 || yy > 9999) return null;
      return core.dayText(yy, d.getUTCMonth() + 1, d.getUTCDate());
    },
    /** A day as YYYY-MM-DD from its year, month (1–12) and day of the month. */
    dayText: function (y, m, d) {
      var pad = function (v, w) { var s = String(v); while (s.length < w) s = "0" + s; return s; };
      return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2);
    },
    /** The local day of `date` (a Date) as YYYY-MM-DD. */
    localDay: function (date) {
      return core.dayText(date.getFullYear(), date.getMonth() + 1, date.getDate());
    },
    /**
     * The flow variables a page's address gives (`/play/banner?user=Ada`), within
     * `varLimits` (names as `isVarName` says); others are skipped.
     */
    queryVars: function (search) {
      var out = {}, n = 0;
      if (typeof search !== "string") return out;
      var pairs = search.replace(/^\?/, "").split("&");
      for (var i = 0; i < pairs.length && n < core.varLimits.count; i++) {
        if (!pairs[i]) continue;
        var at = pairs[i].indexOf("="), name, value;
        try {
          name = decodeURIComponent((at < 0 ? pairs[i] : pairs[i].slice(0, at)).replace(/\+/g, " "));
          value = at < 0 ? "" : decodeURIComponent(pairs[i].slice(at + 1).replace(/\+/g, " "));
        } catch (e) { continue; }
        if (!core.isVarName(name) || core.utf8Bytes(value) > core.varLimits.valueBytes || Object.prototype.hasOwnProperty.call(out, name)) continue;
        out[name] = value;
        n++;
      }
      return out;
    },
    /**
     * A script tag's data-vars (JSON: an object of flow variables, `{"plan": "pro", "seats": 5}`)
     * as {vars}, or {error} saying what is wrong: within `varLimits`, names as `isVarName`
     * says, values texts, finite numbers or booleans (the server types them by the flow's vars).
     */
    dataVars: function (text) {
      var parsed;
      try { parsed = JSON.parse(text); } catch (e) { return { error: "data-vars must be JSON, an object of variables: " + e.message }; }
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return { error: "data-vars must be a JSON object of variables, such as {\"plan\": \"pro\"}" };
      var names = Object.keys(parsed), out = {};
      var most = core.varLimits;
      if (names.length > most.count) return { error: "data-vars names " + names.length + " variables; at most " + most.count };
      for (var i = 0; i < names.length; i++) {
        var name = names[i], value = parsed[name];
        if (!core.isVarName(name)) return { error: "data-vars: \"" + name.slice(0, most.nameBytes) + "\" is no variable name (letters, digits, _ . -; at most " + most.nameBytes + ")" };
        var ok = typeof value === "boolean" || (typeof value === "number" && isFinite(value)) ||
          (typeof value === "string" && core.utf8Bytes(value) <= most.valueBytes);
        if (!ok) return { error: "data-vars: \"" + name + "\" must be a text of at most " + most.valueBytes + " bytes, a number or true/false" };
        out[name] = value;
      }
      return { vars: out };
    },
    /** The variables of `a` with those of `b` over them (a play page's address over data-vars). */
    mergeVars: function (a, b) {
      var out = {}, k;
      for (k in a) if (Object.prototype.hasOwnProperty.call(a, k)) out[k] = a[k];
      for (k in b) if (Object.prototype.hasOwnProperty.call(b, k)) out[k] = b[k];
      return out;
    },
    /** The WCAG contrast ratio of two #RRGGBB colours. */
    contrast: function (a, b) {
      var lum = function (hex) {
        var c = [1, 3, 5].map(function (i) {
          var v = parseInt(hex.substr(i, 2), 16) / 255;
          return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
        });
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
      };
      var x = lum(a), y = lum(b);
      return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
    },
    /**
     * The text colour for a banner on `background`: the flow's own when it reads (4.5:1), else
     * white or black, whichever reads better (one of them always does).
     */
    readableText: function (background, wanted) {
      var bg = core.color(background) || "#1f4e79";
      if (core.color(wanted) && core.contrast(wanted, bg) >= 4.5) return wanted;
      return core.contrast("#ffffff", bg) >= core.contrast("#000000", bg) ? "#ffffff" : "#000000";
    },
    /**
     * The widget's colours for a site's accent (`data-accent="#RRGGBB"`), or null for a value
     * that is no such colour. The accent colours buttons, links, the visitor's own bubbles, the
     * focus ring and the launcher, as text on the frame and its bubbles and as the background
     * of the visitor's words, so in each scheme it must read at 4.5:1 against both: a colour
     * that does not is darkened (light scheme) or lightened (dark scheme) a step at a time until
     * it does. `ink` is the text on it: white or the dark ink, whichever reads better.
     * `changed` says whether the light scheme's colour is not the one given.
     */
    accent: function (hex) {
      var given = core.color(hex);
      if (!given) return null;
      given = given.toLowerCase();
      var mix = function (from, to, t) {
        var out = "#";
        for (var i = 1; i < 7; i += 2) {
          var a = parseInt(from.substr(i, 2), 16), b = parseInt(to.substr(i, 2), 16);
          out += ("0" + Math.round(a + (b - a) * t).toString(16)).slice(-2);
        }
        return out;
      };
      var reads = function (c, grounds) {
        return grounds.every(function (g) { return core.contrast(c, g) >= 4.5; });
      };
      var settle = function (toward, grounds) {
        for (var step = 0; step <= 20; step++) {
          var c = mix(given, toward, step / 20);
          if (reads(c, grounds)) return c;
        }
        return toward;
      };
      var ink = function (c) { return core.contrast("#ffffff", c) >= core.contrast(core.ACCENT.darkInk, c) ? "#ffffff" : core.ACCENT.darkInk; };
      var light = settle("#000000", core.ACCENT.light), dark = settle("#ffffff", core.ACCENT.dark);
      return { light: light, lightInk: ink(light), dark: dark, darkInk: ink(dark), changed: light !== given };
    },
    /** The grounds an accent is read on in each scheme (the frame and a bubble; held to widget.css by a test), and the dark ink. */
    ACCENT: { light: ["#ffffff", "#eef1f5"], dark: ["#15191e", "#242b33"], darkInk: "#0b1a2a" },
    /**
     * Whether to ask the server to hold auto-advance (WCAG 2.2.1): while the visitor points at,
     * is focused in or types in the conversation, or turned it off; null when nothing needs
     * asking (no auto-advance, or the view already says so, or a request is out).
     */
    holdWanted: function (view, engaged, pinned, pending) {
      if (!view || pending !== null || (!view.autoAdvance && !view.held)) return null;
      var want = !!(engaged || pinned);
      return want === !!view.held ? null : want;
    },
    /**
     * What the script tag's attributes say wrong, for the console (`get(name)`: the attribute's
     * value, or null): a data-mode that is neither inline nor launcher (inline is used), a
     * data-session-cap that is no whole number from 0 to 9999 (no cap is used), a data-position
     * that is neither left nor right (the corner at the page's end is used).
     */
    attributeProblems: function (get) {
      var out = [], mode = get("data-mode"), cap = get("data-session-cap"), side = get("data-position");
      if (mode !== null && mode !== "launcher" && mode !== "inline") {
        out.push("data-mode must be inline or launcher, not " + JSON.stringify(String(mode).slice(0, 40)) + "; the conversation is inline");
      }
      if (side !== null && core.launcherSide(side) === null) {
        out.push("data-position must be left or right, not " + JSON.stringify(String(side).slice(0, 40)) + "; the launcher keeps the page's end corner");
      }
      if (cap !== null && !/^\d{1,4}$/.test(cap)) {
        out.push("data-session-cap must be a whole number of flows (0 to 9999), not " + JSON.stringify(String(cap).slice(0, 40)) + "; no cap is kept");
      }
      return out;
    },
    /**
     * The corner a launcher's `data-position` asks for ("left" or "right", in any case and with
     * spaces around), or null for none (the bottom corner at the page's end: the right, or the
     * left on a right-to-left page). A site puts it clear of its own buttons in the other corner.
     */
    launcherSide: function (value) {
      var v = typeof value === "string" ? value.trim().toLowerCase() : "";
      return v === "left" || v === "right" ? v : null;
    },
    /**
     * What to tell the page's developer when a start's answer names values the flow reads
     * nowhere (`unusedVars`: a mistyped data-vars, mount's vars or a play page's query), or null.
     */
    unusedVarsNote: function (flow, answer) {
      var names = answer && Array.isArray(answer.unusedVars) ? answer.unusedVars.filter(function (n) { return typeof n === "string"; }) : [];
      if (!names.length) return null;
      var shown = names.slice(0, 10).map(function (n) { return JSON.stringify(n.slice(0, 64)); });
      var list = shown.length > 1 ? shown.slice(0, -1).join(", ") + " and " + shown[shown.length - 1] : shown[0];
      if (names.length > shown.length) list += " and " + (names.length - shown.length) + " more";
      return "the flow " + JSON.stringify(String(flow)) + " reads nothing named " + list + ", so " +
        (names.length === 1 ? "it changes" : "they change") + " nothing (a typo in data-vars or vars?)";
    },
    /** A colour the page may use (#RRGGBB), or null. */
    color: function (c) { return typeof c === "string" && /^#[0-9A-Fa-f]{6}$/.test(c) ? c : null; },
    /** The URL of a picture the server named: a data: URI of an image, or a path under `base`; else null. */
    imageURL: function (base, src) {
      if (typeof src !== "string") return null;
      if (src.indexOf("data:image/") === 0) return src;
      if (src.charAt(0) === "/" && src.charAt(1) !== "/") return base + src;
      return null;
    },
    /** A picture's size as the server stated it ({width, height}, whole pixels): [width, height], or null when it is not one. */
    pictureSize: function (size) {
      if (!size || typeof size !== "object") return null;
      var w = size.width, h = size.height;
      function whole(n) { return typeof n === "number" && n % 1 === 0 && n >= 1 && n <= core.largestSide; }
      return whole(w) && whole(h) ? [w, h] : null;
    },
    /** How a font of the view is drawn: CSS classes and inline styles (a preset is a class). */
    fontLook: function (f) {
      var out = { classes: [], style: {} };
      if (!f) return out;
      if (typeof f === "string") { if (/^[A-Za-z]+$/.test(f)) out.classes.push("rk-f-" + f); return out; }
      if (typeof f.size === "number" && isFinite(f.size)) out.style.fontSize = Math.max(8, Math.min(64, f.size)) + "px";
      if (typeof f.weight === "string" && /^[A-Za-z]+$/.test(f.weight)) out.classes.push("rk-w-" + f.weight);
      if (f.family) out.style.fontFamily = JSON.stringify(String(f.family)) + ", system-ui, sans-serif";
      if (core.color(f.color)) out.style.color = f.color;
      return out;
    },
    /** What identifies how a transcript item is drawn: equal keys need no redraw. */
    itemKey: function (item, v) {
      return JSON.stringify(item) + (item.index === v.active ? "*" + v.inputError + "*" + (v.hint || "") : "") + v.accepts.join();
    },
    /**
     * True when view `v` may replace `old` (a late answer never takes a newer view back, nor
     * brings back `left`, the id of a conversation the visitor has left by starting again).
     */
    isNewer: function (old, v, left) {
      if (left && v.id === left) return false;
      return !old || v.id !== old.id || v.version >= old.version;
    },
    /**
     * The Rocket-Settled header that tells the server what a page holds of view `v` (its version
     * and how many of its first items can no longer change), so an answer leaves those out; null
     * for a view that does not say.
     */
    settledHeader: function (v) {
      function whole(n) { return typeof n === "number" && n % 1 === 0 && n >= 0 && n <= 999999999; }
      return v && whole(v.version) && whole(v.settled) ? v.version + "/" + v.settled : null;
    },
    /**
     * View `v` whole: as it is when it holds its whole transcript; else (`transcriptFrom`: the
     * server left out that many first items of the view of version `transcriptBase`) with them
     * taken from `old`, the view the page shows, when that is the same conversation at that
     * version or a later one (its first items are then those). Null when `old` cannot supply them
     * (an older view: a stream's frames can come out of order): the page then reads the
     * conversation again.
     */
    merged: function (old, v) {
      var from = v.transcriptFrom, base = v.transcriptBase;
      if (from === undefined || from === 0) return v;
      if (typeof from !== "number" || from % 1 !== 0 || from < 0 || typeof base !== "number" || !old || old.id !== v.id ||
        typeof old.version !== "number" || old.version < base || !Array.isArray(old.transcript) || !Array.isArray(v.transcript) ||
        typeof old.settled !== "number" || old.settled < from || old.transcript.length < from) return null;
      var whole = {};
      for (var k in v) if (Object.prototype.hasOwnProperty.call(v, k) && k !== "transcriptFrom" && k !== "transcriptBase") whole[k] = v[k];
      whole.transcript = old.transcript.slice(0, from).concat(v.transcript);
      return whole;
    },
    /**
     * Whether a page that cannot fill view `v` in (see merged) reads its conversation again: when
     * it is the conversation shown, or none is; a late answer about one the page has left (the
     * visitor started again) is dropped.
     */
    rereads: function (old, v) { return !old || old.id === v.id; },
    /**
     * The plan for one intent: to "send" it now (stamped with the view's step), "queue" it until
     * the request in flight (`sent`, null: none) is answered — the stream showed a newer block,
     * or the same block took another answer (its refusal came by the stream first) — or "drop"
     * it (the same press again on the view it was sent from).
     */
    plan: function (intent, view, sent) {
      if (!view) return { action: "drop", intent: intent };
      var stamped = {};
      for (var k in intent) if (Object.prototype.hasOwnProperty.call(intent, k)) stamped[k] = intent[k];
      if (stamped.step === undefined) stamped.step = view.step;
      if (!sent) return { action: "send", intent: stamped };
      if (stamped.step === sent.step && JSON.stringify(stamped) === JSON.stringify(sent)) return { action: "drop", intent: stamped };
      return { action: "queue", intent: stamped };
    },
    /**
     * What goes next once the request in flight (`sent`) is answered with `status`: the queued
     * intent for a newer block when the answer was accepted; another answer to the same block
     * when the first was refused as input (422: the block still waits); else nothing.
     */
    afterAnswer: function (sent, queued, status) {
      if (!queued) return null;
      if (queued.step !== sent.step) return status < 400 ? queued : null;
      return status === 422 ? queued : null;
    },
    /**
     * Whether an answer (its status and error code) says the conversation cannot go on: it is
     * gone from the server, its flow is no longer served, or its flow changed and the version
     * it started with is not kept. The page then ends it and offers to start again.
     */
    conversationLost: function (status, code) {
      return (status === 404 && code === "unknown-conversation") || (status === 409 && code === "flow-changed") ||
        (status === 410 && code === "flow-gone");
    },
    /**
     * What a page does when its event stream could not be opened or ended: null when what it
     * follows cannot go on (`lost(status, code)` says so of the answer: it is gone from the
     * server), else how many milliseconds to wait before opening it again. The wait doubles
     * from 2 s with each try in a row (`tries`, 0 for the first) up to 30 s, so a server that
     * restarts is not called by every page at once while it starts; `random` (0 to 1) spreads
     * it over its last quarter. A refusal's Retry-After (`retryAfter`, its text: seconds) is
     * waited out at least, up to a minute.
     */
    streamRetry: function (status, code, tries, lost, random, retryAfter) {
      if (lost(status, code)) return null;
      var wait = Math.min(30000, 2000 * Math.pow(2, tries >= 0 ? Math.min(tries, 4) : 0));
      wait = Math.round(wait * (0.75 + 0.25 * (random >= 0 ? Math.min(random, 1) : 0)));
      var asked = /^[0-9]{1,6}$/.test(String(retryAfter)) ? Math.min(Number(retryAfter), 60) * 1000 : 0;
      return Math.max(wait, asked);
    },
    /**
     * Whether an answer says an alert is gone from the server (its visitor erased, or it
     * expired): the page then closes it as dismissed, for nothing in it can be answered.
     */
    alertGone: function (status, code) {
      return status === 404 && code === "unknown-alert";
    },
    /**
     * `value` when it is a language tag the server takes (`fr`, `pt-BR`, `zh-Hant-TW`: a
     * language of two or three letters and subtags of letters and digits, at most 35 in all),
     * else null.
     */
    languageTag: function (value) {
      return typeof value === "string" && value.length <= 35 && /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8})*$/.test(value) ? value : null;
    },
    /**
     * The language the widget's own words must be marked in, inside a conversation whose texts
     * are in `v.flowLang`: `v.lang` when the two are different languages (`ar` texts, English
     * words), else null.
     */
    wordsLangWithin: function (v) {
      var texts = core.languageTag(v && v.flowLang), words = core.languageTag(v && v.lang);
      if (!texts || !words) return null;
      return texts.split("-")[0].toLowerCase() === words.split("-")[0].toLowerCase() ? null : words;
    },
    /** A banner's buttons as [title, result] pairs. */
    bannerButtons: function (b) {
      if (b.buttons === "close") return [["×", "close"]];
      return (Array.isArray(b.buttons) ? b.buttons : []).slice(0, 2).map(function (x, i) { return [String(x), "button" + (i + 1)]; });
    },
    /** The order an alert's actions are shown in: an action sheet puts its cancel action last. */
    alertOrder: function (v) {
      var order = v.actions.map(function (a, i) { return i; });
      if (v.style === "actionSheet") order.sort(function (a, b) { return (v.actions[a].style === "cancel") - (v.actions[b].style === "cancel") || a - b; });
      return order;
    },
    /**
     * The action that takes the focus: the one with the title that had it, while it is enabled and
     * not destructive; else the first enabled action that is not destructive (one Enter never
     * destroys); else none (-1).
     */
    alertFocus: function (actions, focusTitle) {
      var safe = function (a) { return a.enabled && a.style !== "destructive"; };
      if (focusTitle !== null && focusTitle !== undefined) {
        var same = actions.findIndex(function (a) { return a.title === focusTitle && safe(a); });
        if (same >= 0) return same;
      }
      return actions.findIndex(safe);
    },
    /** The index Tab (or Shift-Tab) moves to among `count` items from `at` (-1: none focused), wrapping. */
    nextTab: function (count, at, backwards) {
      if (count <= 0) return -1;
      if (backwards) return at <= 0 ? count - 1 : at - 1;
      return at < 0 || at >= count - 1 ? 0 : at + 1;
    },
    /**
     * Reads data-trigger: "delay:30s", "scroll:50%", "exit-intent", "visits:3", several separated
     * by spaces or commas (all must have happened). {delay ms, scroll 0–1 or null, exitIntent,
     * visits} or {error}.
     */
    parseTrigger: function (text) {
      var spec = { delay: 0, scroll: null, exitIntent: false, visits: 0 };
      var parts = typeof text === "string" ? text.trim().split(/[\s,]+/) : [];
      if (!parts.length || !parts[0]) return { error: "data-trigger is empty" };
      if (parts.length > 8) return { error: "data-trigger names at most 8 conditions" };
      for (var i = 0; i < parts.length; i++) {
        var p = parts[i], m;
        if ((m = /^delay:(\d{1,6}(?:\.\d{1,3})?)(ms|s|m)$/.exec(p))) {
          spec.delay = Number(m[1]) * (m[2] === "ms" ? 1 : m[2] === "s" ? 1000 : 60000);
          if (spec.delay > 86400000) return { error: p + ": a delay is at most 24 hours" };
        } else if ((m = /^scroll:(\d{1,3})%$/.exec(p)) && Number(m[1]) <= 100) {
          spec.scroll = Number(m[1]) / 100;
        } else if (p === "exit-intent") {
          spec.exitIntent = true;
        } else if ((m = /^visits:(\d{1,6})$/.exec(p)) && Number(m[1]) >= 1) {
          spec.visits = Number(m[1]);
        } else {
          return { error: "data-trigger: \"" + p.slice(0, 40) + "\" is not delay:30s, scroll:50%, exit-intent or visits:3" };
        }
      }
      return spec;
    },
    /** True once everything a trigger waits for has happened: seen {elapsed ms, scrolled 0–1, exited, visits}. */
    triggerReady: function (spec, seen) {
      return seen.elapsed >= spec.delay && (spec.scroll === null || seen.scrolled >= spec.scroll) &&
        (!spec.exitIntent || seen.exited === true) && seen.visits >= spec.visits;
    },
    /** How far down a page is read (0–1): the bottom of the window over the page's height; 1 when it does not scroll. */
    scrolled: function (top, windowHeight, pageHeight) {
      if (!(pageHeight > windowHeight)) return 1;
      return Math.max(0, Math.min(1, (top + windowHeight) / pageHeight));
    },
    /**
     * Counts visits: a page shown more than `gap` ms after the last one (or the first ever)
     * begins a visit. state {count, last, since} (since: when this visit began) or anything else
     * (none yet); returns the state after a page shown at `now`.
     */
    countVisit: function (state, now, gap) {
      var ok = state && typeof state === "object" && Number.isFinite(state.count) && state.count >= 0 &&
        Number.isFinite(state.last) && Number.isFinite(state.since) && state.last <= now;
      if (!ok) return { count: 1, last: now, since: now };
      if (now - state.last > gap) return { count: Math.min(state.count + 1, 1e9), last: now, since: now };
      return { count: state.count, last: now, since: state.since };
    },
    /**
     * How much of the bottom of the window the phone's keyboard covers, in CSS pixels, and the
     * height left visible: the layout viewport (`layoutHeight`, where fixed boxes are placed)
     * less the visual viewport `vv` {height, offsetTop, scale} (what the visitor sees; a keyboard
     * shrinks only it, in Chrome since 108 and in Safari). {inset: 0, visible: null} when nothing
     * is covered, when the sizes are unknown, and while the visitor has zoomed in (scale above 1:
     * a closer look, not a keyboard).
     */
    keyboardInset: function (layoutHeight, vv) {
      var none = { inset: 0, visible: null };
      if (!vv || !(layoutHeight > 0) || !(vv.height > 0) || !Number.isFinite(layoutHeight) || !Number.isFinite(vv.height)) return none;
      var scale = Number.isFinite(vv.scale) ? vv.scale : 1;
      if (Math.abs(scale - 1) > 0.01) return none;
      var top = Number.isFinite(vv.offsetTop) ? Math.max(0, vv.offsetTop) : 0;
      var inset = Math.round(layoutHeight - vv.height - top);
      if (inset < 1) return none;
      return { inset: Math.min(inset, Math.round(layoutHeight)), visible: Math.round(Math.min(vv.height, layoutHeight)) };
    },
    /** The refusal of a start past the per-visit cap (null: allowed): `shown` flows this visit, `cap` at most (null: none). */
    sessionRefusal: function (cap, shown) {
      if (cap === null || cap === undefined || shown < cap) return null;
      return "this visit has shown " + shown + " flow" + (shown === 1 ? "" : "s") + "; the page allows " + cap;
    }
  };
  if (typeof module === "object" && module && module.exports) { module.exports = core; return; }

  var script = document.currentScript;
  var base = script ? script.src.replace(/\/widget\.js(\?.*)?$/, "") : "";
  var reduced = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  var CSS = "__CSS__";
  // The widget's own words: English in the script, every other language the server has
  // (WORD_LANGS) fetched the first time a page needs it, beside the conversation's start.
  var WORDS = "__WORDS__";
  // Each language's version, which its request names: the server lets a browser keep that for
  // a year, and a new server's script names a new one.
  var WORD_VERSIONS = "__WORD_VERSIONS__";
  var WORD_LANGS = WORD_VERSIONS && typeof WORD_VERSIONS === "object" ? Object.keys(WORD_VERSIONS) : [];
  var wordsAsked = {};
  // The page's language for its conversations (data-lang: the site's, such as the language its
  // visitor chose there), else the browser's.
  var pageLang = null;
  if (script && script.hasAttribute("data-lang")) {
    pageLang = core.languageTag(script.getAttribute("data-lang"));
    if (!pageLang && window.console) console.warn("RocketAlert: data-lang must be a language tag such as fr or pt-BR; the browser's language is used");
  }
  var browserLang = core.languageTag((navigator.language || "").slice(0, 35)) || "en";
  // The language of the widget's own words: the conversation's once there is one.
  var wordsLang = pageLang || browserLang;
  function say(key, args) { return core.word(WORDS, wordsLang, key, args); }
  // True when the words of `lang` are here, or will never come (English is used then).
  function haveWords(lang) {
    var k = core.wordsKey(WORD_LANGS, lang);
    return k === "en" || !!WORDS[k] || wordsAsked[k] === "failed";
  }
  // Fetches the words of `lang` once (a promise that always resolves: a failure, said once in
  // the console, leaves English).
  function loadWords(lang) {
    var k = core.wordsKey(WORD_LANGS, lang);
    if (haveWords(lang)) return Promise.resolve();
    if (wordsAsked[k]) return wordsAsked[k];
    var version = typeof WORD_VERSIONS[k] === "string" ? "?v=" + encodeURIComponent(WORD_VERSIONS[k]) : "";
    wordsAsked[k] = fetch(base + "/widget/words/" + encodeURIComponent(k) + version, { credentials: "omit" }).then(function (r) {
      if (!r.ok) throw new Error("the server answered " + r.status);
      return r.json();
    }).then(function (value) {
      var table = core.wordTable(value);
      if (!table) throw new Error("the answer is no table of words");
      WORDS[k] = table;
    }).catch(function (e) {
      wordsAsked[k] = "failed";
      if (window.console) console.warn("RocketAlert: the widget's words in " + k + " could not be loaded (" + e.message + "); English is used");
    });
    return wordsAsked[k];
  }
  // The page's language is asked for now, while the page sets up and the conversation starts.
  loadWords(wordsLang);

  // Runs `fn` once the page has painted what is on it now (the frame after this one), so work
  // the visitor does not see does not hold that paint back; a hidden tab, which paints nothing,
  // runs it after 100 ms instead.
  function afterPaint(fn) {
    var done = false, once = function () { if (!done) { done = true; fn(); } };
    setTimeout(once, 100);
    if (window.requestAnimationFrame) window.requestAnimationFrame(function () { setTimeout(once, 0); });
  }
  // A site's accent from `value` (`where` it was given, for the console): its colours, or null
  // (said in the console) for a value that is no colour; one made readable is said too.
  function accentFrom(value, where) {
    var a = core.accent(value);
    if (!window.console) return a;
    if (!a) console.warn("RocketAlert: " + where + " must be a colour written #RRGGBB; it is not used");
    else if (a.changed) console.info("RocketAlert: " + where + " " + value + " reads below 4.5:1 on the widget's light background; " + a.light + " is used there in its place");
    return a;
  }
  // The page's accent (data-accent), worked out once: null keeps the widget's own blue.
  var accent = script && script.hasAttribute("data-accent") ? accentFrom(script.getAttribute("data-accent"), "data-accent") : null;
  // Marks `node` as a root of the widget (class rk): reduced motion, and the site's accent
  // (`colours`, else data-accent's) as the custom properties widget.css reads its colours from.
  function widgetRoot(node, colours) {
    var a = colours || accent;
    node.classList.add("rk");
    if (reduced) node.classList.add("rk-reduced");
    if (a) {
      node.style.setProperty("--rk-accent", a.light);
      node.style.setProperty("--rk-accent-ink", a.lightInk);
      node.style.setProperty("--rk-accent-dark", a.dark);
      node.style.setProperty("--rk-accent-dark-ink", a.darkInk);
    }
    return node;
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  // An element holding the widget's own words (`w`'s), marked with their language when the
  // flow's texts are in another (an English hint in an Arabic conversation).
  function ownWords(w, node) {
    if (w.markedWordsLang) {
      node.lang = w.markedWordsLang;
      node.dir = "auto";  // English words in an Arabic conversation keep their full stop at their end
    }
    return node;
  }
  // An element holding what the flow or the visitor said: its text runs in the direction of its
  // first strong letter (a Hebrew reply in an English flow runs right to left).
  function said(tag, cls, text) {
    var e = el(tag, cls, text);
    e.dir = "auto";
    return e;
  }
  function store(key, value) {
    try {
      if (value === undefined) return window.localStorage.getItem(key);
      if (value === null) window.localStorage.removeItem(key); else window.localStorage.setItem(key, value);
    } catch (e) { return null; }
    return null;
  }
  // Visits (a page more than 30 minutes after the last begins one), counted once per page; what
  // this visit has shown, shared by the tabs of this browser through localStorage.
  var VISIT_GAP = 30 * 60 * 1000;
  function readJSON(key) { try { return JSON.parse(store(key) || "null"); } catch (e) { return null; } }
  var visit = core.countVisit(readJSON("rocket.visit"), Date.now(), VISIT_GAP);
  store("rocket.visit", JSON.stringify(visit));
  var sessionCap = script && /^\d{1,4}$/.test(script.getAttribute("data-session-cap") || "") ? Number(script.getAttribute("data-session-cap")) : null;
  if (script && window.console) {
    core.attributeProblems(function (name) { return script.getAttribute(name); }).forEach(function (m) { console.warn("RocketAlert: " + m); });
  }
  function visitShown() {
    var v = readJSON("rocket.visit.shown");
    return v && v.since === visit.since && Number.isFinite(v.count) ? v.count : 0;
  }
  function shownThisVisit(flow) {
    var v = readJSON("rocket.shown." + flow);
    return !!(v && v.since === visit.since);
  }
  var channel = null;
  try { channel = typeof BroadcastChannel === "function" ? new BroadcastChannel("rocket") : null; } catch (e) { channel = null; }
  // Which flows this tab showed (sessionStorage lives per tab and through reloads).
  function shownHere(flow, set) {
    try {
      if (set) window.sessionStorage.setItem("rocket.shownHere." + flow, "1");
      return window.sessionStorage.getItem("rocket.shownHere." + flow) === "1";
    } catch (e) { return false; }
  }
  // The per-visit count is taken before a start is asked for (so two widgets starting at once
  // cannot both pass the cap) and given back when nothing was started.
  function countShown(delta) {
    store("rocket.visit.shown", JSON.stringify({ since: visit.since, count: Math.max(0, visitShown() + delta) }));
  }
  function noteShown(flow) {
    shownHere(flow, true);
    store("rocket.shown." + flow, JSON.stringify({ since: visit.since, at: Date.now() }));
    if (channel) try { channel.postMessage({ shown: flow }); } catch (e) { /* closed */ }
  }
  // Waits for data-trigger's conditions, then calls go(false). When this visit has already
  // shown the flow: in this tab (a reload) go(true), so only a conversation under way resumes;
  // in another tab nothing. Another tab showing it first cancels the wait.
  function whenTriggered(flow, spec, go) {
    if (shownThisVisit(flow)) { if (shownHere(flow)) go(true); return; }
    var t0 = Date.now(), seen = { elapsed: 0, scrolled: 0, exited: false, visits: visit.count }, done = false, timer = null;
    var stop = function () {
      done = true;
      if (timer !== null) clearTimeout(timer);
      window.removeEventListener("scroll", onScroll);
      document.removeEventListener("mouseout", onOut);
      window.removeEventListener("storage", onStorage);
      if (channel) channel.removeEventListener("message", onMessage);
    };
    var check = function () {
      if (done) return;
      seen.elapsed = Date.now() - t0;
      if (!core.triggerReady(spec, seen)) {
        if (seen.elapsed < spec.delay && timer === null) timer = setTimeout(function () { timer = null; check(); }, spec.delay - seen.elapsed);
        return;
      }
      stop();
      if (shownThisVisit(flow)) return;
      go(false);
    };
    var onScroll = function () {
      var page = document.documentElement;
      seen.scrolled = Math.max(seen.scrolled, core.scrolled(window.scrollY || page.scrollTop || 0, window.innerHeight, page.scrollHeight));
      check();
    };
    // The pointer leaving through the top of the window (toward the tabs and the address bar).
    var onOut = function (ev) {
      if (!ev.relatedTarget && ev.clientY <= 0) { seen.exited = true; check(); }
    };
    var onStorage = function (ev) { if (ev.key === "rocket.shown." + flow && shownThisVisit(flow)) stop(); };
    var onMessage = function (ev) { if (ev.data && ev.data.shown === flow) stop(); };
    window.addEventListener("scroll", onScroll, { passive: true });
    document.addEventListener("mouseout", onOut);
    window.addEventListener("storage", onStorage);
    if (channel) channel.addEventListener("message", onMessage);
    onScroll();
  }
  // Who this page speaks for: a visitor the site vouches for (data-visitor with the site's
  // data-visitor-hash), else an anonymous visitor whose token the server issues once and this
  // browser keeps. Credentials travel in headers, never in a URL.
  var identity = script && core.isVisitorID(script.getAttribute("data-visitor")) && script.getAttribute("data-visitor-hash")
    ? { visitor: script.getAttribute("data-visitor"), hash: script.getAttribute("data-visitor-hash") } : null;
  var pendingToken = null;
  // The headers a call can carry at once, or null when a token must be asked for first.
  function knownCredentials(renew, orNone) {
    if (identity) return { "Rocket-Visitor": identity.visitor, "Rocket-Visitor-Hash": identity.hash };
    var saved = renew ? null : store("rocket.token");
    if (core.isToken(saved)) return { "Rocket-Visitor": saved };
    // A first start goes without: the server makes the visitor and answers with its token.
    if (orNone && !pendingToken) return {};
    return null;
  }
  function credentials(renew, orNone) {
    var known = knownCredentials(renew, orNone);
    if (known) return Promise.resolve(known);
    if (!pendingToken) {
      pendingToken = fetch(base + "/v1/visitors", { method: "POST" }).then(function (r) {
        return r.json().then(function (d) {
          pendingToken = null;
          if (r.status !== 201 || !d || !core.isToken(d.token)) throw new Error("the server gave no visitor token (" + r.status + ")");
          store("rocket.token", d.token);
          return { "Rocket-Visitor": d.token };
        });
      }, function (e) { pendingToken = null; throw e; });
    }
    return pendingToken;
  }
  function visitorID() {
    return identity ? identity.visitor : core.tokenVisitor(store("rocket.token"));
  }
  function fontOf(e, f) {
    var look = core.fontLook(f);
    for (var i = 0; i < look.classes.length; i++) e.classList.add(look.classes[i]);
    for (var k in look.style) e.style[k] = look.style[k];
  }
  function imageOf(src, style, alt, size) {
    var img = el("img", "rk-img rk-img-" + (style || "square"));
    img.alt = alt || "";
    // Its size as the file states it: the page keeps the picture's room (its shape, at the
    // width the frame gives it) before the picture arrives, so nothing below it moves.
    var known = core.pictureSize(size);
    if (known) {
      img.width = known[0];
      img.height = known[1];
      // A file changed since the flow was read: laid out as the picture it is, not as the old one.
      img.addEventListener("load", function () {
        if (img.naturalWidth !== known[0] || img.naturalHeight !== known[1]) { img.removeAttribute("width"); img.removeAttribute("height"); }
      });
    }
    var url = core.imageURL(base, src);
    if (url) img.src = url;
    return img;
  }

  function Widget(root, flow, options) {
    this.root = root;
    this.flow = flow;
    this.options = options || {};
    this.view = null;
    this.source = null;
    this.sent = null;  // the intent in flight
    this.queued = null;
    this.seen = 0;
    this.focusKey = null;
    this.frame = null;  // drawn by build(), after the first request is on its way
    // Auto-advance waits while the visitor points at the conversation, moves the focus in it
    // or types (WCAG 2.2.1); the header's Pause button turns it off until pressed again. The
    // focus the widget moves itself to a new block does not count.
    this.pointer = false;
    this.focused = false;
    this.pinned = false;
    this.holdOut = null;
    this.movingFocus = false;
  }

  /** Draws the widget's frame (once): its style sheet, header, log and status line. */
  Widget.prototype.build = function () {
    if (this.frame) return;
    var root = this.root;
    if (!document.getElementById("rocket-style")) {
      var style = el("style");
      style.id = "rocket-style";
      style.textContent = CSS;
      document.head.appendChild(style);
    }
    // mount's {accent: "#RRGGBB"} over the script's data-accent, for this conversation.
    widgetRoot(root, this.options.accent !== undefined ? accentFrom(this.options.accent, "mount's accent") : null);
    if (this.options.page) root.classList.add("rk-page");
    this.frame = el("section", "rk-frame");
    this.frame.setAttribute("aria-label", say("conversation"));
    this.header = el("header", "rk-head");
    this.log = el("div", "rk-log");
    this.log.setAttribute("role", "log");
    this.log.tabIndex = -1;  // the focus rests here when no block takes input
    this.log.setAttribute("aria-live", "polite");
    this.log.setAttribute("aria-relevant", "additions");
    this.status = el("p", "rk-status");
    this.status.setAttribute("role", "status");
    this.frame.appendChild(this.header);
    this.frame.appendChild(this.log);
    this.frame.appendChild(this.status);
    root.appendChild(this.frame);
    var self = this;
    root.addEventListener("keydown", function (ev) {
      if (ev.key === "Escape" && self.view && self.view.accepts.indexOf("close") >= 0) { ev.preventDefault(); self.send({ intent: "close" }); }
    });
    this.frame.addEventListener("pointerenter", function (ev) { if (ev.pointerType !== "touch") { self.pointer = true; self.syncHold(); } });
    this.frame.addEventListener("pointerleave", function () { self.pointer = false; self.syncHold(); });
    root.addEventListener("focusin", function () { self.focused = !self.movingFocus; self.syncHold(); });
    root.addEventListener("focusout", function () {
      setTimeout(function () { self.focused = root.contains(document.activeElement); self.syncHold(); }, 0);
    });
    root.addEventListener("input", function () { self.focused = true; self.syncHold(); });
  };

  /** Moves the focus to the block that takes input (or the first control): the widget's doing. */
  Widget.prototype.focusNewest = function () {
    var target = this.root.querySelector("[data-focus]") || this.log;
    this.movingFocus = true;
    target.focus();
    this.movingFocus = false;
  };

  Widget.prototype.syncHold = function () {
    var want = core.holdWanted(this.view, this.pointer || this.focused, this.pinned, this.holdOut);
    if (want === null || !this.view) return;
    var self = this;
    this.holdOut = want;
    this.apiHolding("POST", "/v1/conversations/" + this.view.id + "/hold", { held: want }).then(function (r) {
      self.holdOut = null;
      var v = r.data && (r.data.conversation || (r.data.error && r.data.error.conversation));
      if (v) self.render(v);
      self.syncHold();
    }, function () { self.holdOut = null; });
  };

  // Sends a request to the server: {status, data} once answered. With the credentials at hand
  // the request leaves before this returns (a page's first start is not held for a later tick).
  function call(method, path, body, retried, extra) {
    var starting = method === "POST" && path === "/v1/conversations";
    var send = function (given) {
      var headers = {};
      for (var h in given) if (Object.prototype.hasOwnProperty.call(given, h)) headers[h] = given[h];
      for (var x in extra || {}) if (Object.prototype.hasOwnProperty.call(extra, x)) headers[x] = extra[x];
      var init = { method: method, headers: headers };
      if (body) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
      return fetch(base + path, init).then(function (r) {
        return r.text().then(function (t) {
          var data = null;
          try { data = t ? JSON.parse(t) : null; } catch (e) { data = null; }
          if (data && core.isToken(data.token) && !identity) store("rocket.token", data.token);
          // A token this server no longer signs (its secret changed): a new one, once.
          if (r.status === 401 && !identity && !retried && data && data.error && data.error.code === "bad-token") {
            return credentials(true).then(function () { return call(method, path, body, true, extra); });
          }
          if (r.status === 403 && data && data.error && data.error.code === "origin-not-allowed" && window.console) {
            window.console.warn("RocketAlert: " + data.error.message);
          }
          var unused = starting && r.status === 201 ? core.unusedVarsNote(body && body.flow, data) : null;
          if (unused && window.console) window.console.warn("RocketAlert: " + unused);
          return { status: r.status, data: data };
        });
      });
    };
    var known = knownCredentials(false, starting);
    if (!known) return credentials(false, starting).then(send);
    try { return send(known); } catch (e) { return Promise.reject(e); }
  }

  // An event stream read through fetch, so the credentials go in headers: frames are handed to
  // `on(event, data)`; a dropped stream is opened again (core.streamRetry: 2 s, then longer)
  // with Last-Event-ID (the server sends the current state at once), unless the server answers
  // that what it follows is gone (`lost(status, code)`): then `onLost()` and no more tries.
  // `extra()`, when given, adds headers to each try (what the page holds of the conversation).
  // close() ends it for good.
  function follow(path, on, lost, onLost, extra) {
    var handle = { closed: false, controller: null, lastID: null, tries: 0, timer: null, asked: false };
    // Back online, or the tab shown again: a stream waiting to be opened again is opened now;
    // a wait the server asked for (Retry-After) is kept when the tab is shown (tabs change
    // often), not when the browser comes back online (a new network may well be let in).
    function now(ev) {
      if (handle.timer === null || document.visibilityState === "hidden") return;
      if (handle.asked && ev && ev.type === "visibilitychange") return;
      clearTimeout(handle.timer);
      handle.timer = null;
      handle.tries = 0;
      open();
    }
    window.addEventListener("online", now);
    document.addEventListener("visibilitychange", now);
    handle.close = function () {
      handle.closed = true;
      if (handle.timer !== null) { clearTimeout(handle.timer); handle.timer = null; }
      window.removeEventListener("online", now);
      document.removeEventListener("visibilitychange", now);
      if (handle.controller) handle.controller.abort();
    };
    function again(status, code, retryAfter) {
      if (handle.closed) return;
      var random = Math.random();
      var backoff = core.streamRetry(status, code, handle.tries, lost, random);
      var wait = core.streamRetry(status, code, handle.tries++, lost, random, retryAfter);
      if (wait === null) { handle.close(); onLost(); return; }
      handle.asked = wait > backoff;
      handle.timer = setTimeout(function () { handle.timer = null; open(); }, wait);
    }
    function open() {
      if (handle.closed) return;
      handle.controller = window.AbortController ? new AbortController() : null;
      credentials(false).then(function (headers) {
        headers.Accept = "text/event-stream";
        if (handle.lastID !== null) headers["Last-Event-ID"] = handle.lastID;
        var more = extra ? extra() : null;
        if (more) for (var k in more) if (Object.prototype.hasOwnProperty.call(more, k)) headers[k] = more[k];
        return fetch(base + path, { headers: headers, signal: handle.controller ? handle.controller.signal : undefined });
      }).then(function (r) {
        if (!r.ok || !r.body || !r.body.getReader) {
          // The refusal's code says whether to try again.
          var retryAfter = r.headers && r.headers.get ? r.headers.get("Retry-After") : null;
          return r.json().then(function (d) { return d && d.error && d.error.code; }, function () { return undefined; })
            .then(function (code) { again(r.status, code, retryAfter); });
        }
        var reader = r.body.getReader(), decoder = new TextDecoder(), buffer = "";
        function pump() {
          return reader.read().then(function (chunk) {
            if (chunk.done) throw new Error("stream ended");
            handle.tries = 0;
            var parsed = core.sseParse(buffer + decoder.decode(chunk.value, { stream: true }));
            buffer = parsed.rest;
            for (var i = 0; i < parsed.events.length; i++) {
              if (parsed.events[i].id !== null) handle.lastID = parsed.events[i].id;
              on(parsed.events[i].event, parsed.events[i].data);
            }
            return pump();
          });
        }
        return pump();
      }).catch(function () { again(0, undefined); });
    }
    open();
    return handle;
  }

  Widget.prototype.api = function (method, path, body) { return call(method, path, body); };

  // A request about the conversation shown, which tells the server what the page holds of it (the
  // answer then leaves out the transcript items the page has: see render).
  Widget.prototype.apiHolding = function (method, path, body) {
    var held = core.settledHeader(this.view);
    return call(method, path, body, false, held ? { "Rocket-Settled": held } : null);
  };

  // Reads the conversation again, whole: an answer without the items the page held, when the
  // page no longer holds them.
  Widget.prototype.reread = function (id) {
    var self = this;
    this.api("GET", "/v1/conversations/" + id).then(function (r) {
      if (r.status === 200 && r.data && r.data.conversation && !r.data.conversation.transcriptFrom) self.render(r.data.conversation);
    }, function () { /* the stream shows the next change */ });
  };

  Widget.prototype.start = function () {
    var self = this, key = "rocket.conversation." + this.flow, saved = store(key);
    var fresh = function () {
      // A conversation ended or gone: with resumeOnly (a triggered flow already shown this
      // visit), nothing new is started.
      if (self.options.resumeOnly) { self.root.classList.add("rk-hidden"); return Promise.resolve(null); }
      var capped = core.sessionRefusal(sessionCap, visitShown());
      if (capped) {
        return Promise.resolve().then(function () {
          self.dispatch("notnow", { status: "notNow", flow: self.flow, explanation: [capped] });
          if (self.options.page) self.say(capped, say("notNow"));
          self.root.classList.add("rk-hidden");
          return null;
        });
      }
      countShown(1);
      var started = false;
      return self.api("POST", "/v1/conversations", {
        flow: self.flow, reducedMotion: reduced,
        lang: core.languageTag(self.options.lang) || pageLang || browserLang, vars: self.options.vars || {},
        utcOffset: Math.max(-840, Math.min(840, -new Date().getTimezoneOffset()))
      }).then(function (r) {
        if (r.status === 201 && r.data && r.data.conversation) {
          started = true;
          var view = r.data.conversation;
          // Drawn first (below); what this browser notes of the start follows its paint.
          afterPaint(function () { store(key, view.id); noteShown(self.flow); self.dispatch("start", view); });
          return view;
        }
        if (r.data && r.data.status === "notNow") {
          self.dispatch("notnow", r.data);
          if (self.options.page) self.say((r.data.explanation || []).join(" "), say("notNow"));
          self.root.classList.add("rk-hidden");
          return null;
        }
        var failure = new Error(r.data && r.data.error ? r.data.error.message : "the server answered " + r.status);
        // A refused origin was told to the console where it was answered: not twice.
        failure.told = !!(r.data && r.data.error && r.data.error.code === "origin-not-allowed");
        throw failure;
      }).finally(function () { if (!started) countShown(-1); });
    };
    var resume = saved && /^[0-9a-f]{32}$/.test(saved)
      ? this.api("GET", "/v1/conversations/" + saved).then(function (r) {
          if (r.status === 200 && r.data && r.data.conversation.status !== "dismissed") return r.data.conversation;
          store(key, null);
          return fresh();
        })
      : fresh();
    // The request is on its way: the frame is drawn while the server answers.
    this.build();
    return resume.then(function (view) {
      if (!view) return;
      self.render(view);
      self.listen(view.id);
    }).catch(function (e) {
      // The flow's own page (/play) says why; a site's page shows nothing of a conversation
      // that cannot start (as of one that may not start now) and tells its developer in the
      // console, since the reason is the server's words, not the visitor's.
      if (self.options.page) { self.say(say("couldNotStart", [e.message])); return; }
      if (window.console && !e.told) {
        // A page the server does not let in cannot read why (the browser hides the refusal and
        // says only that the fetch failed): name what to check, with this page's origin.
        var here = window.location.origin;
        var why = e instanceof TypeError
          ? e.message + " (the server cannot be reached, or does not let pages from " + here + " use it: rocket serve --allow-origin " + here + ")"
          : e.message;
        window.console.warn("RocketAlert: the conversation could not start: " + why);
      }
      self.root.classList.add("rk-hidden");
    });
  };

  Widget.prototype.say = function (text, fallback) {
    this.status.textContent = text || fallback || "";
  };

  Widget.prototype.dispatch = function (name, detail) {
    try { this.root.dispatchEvent(new CustomEvent("rocket:" + name, { detail: detail, bubbles: true })); } catch (e) { /* old browsers */ }
  };

  Widget.prototype.listen = function (id) {
    var self = this;
    if (!window.fetch || !window.TextDecoder) return;
    this.source = follow("/v1/conversations/" + id + "/events", function (event, data) {
      if (event === "state") {
        try { self.render(JSON.parse(data)); } catch (e) { /* a bad frame is skipped */ }
      } else if (event === "events") {
        var list = [];
        try { list = JSON.parse(data); } catch (e) { list = []; }
        for (var i = 0; i < list.length; i++) {
          self.dispatch("event", list[i]);
          if (list[i].event === "action") self.dispatch("action", list[i]);
        }
      }
    }, core.conversationLost, function () { self.lose(); }, function () {
      // The stream's first frame then leaves out the transcript items the page holds.
      var held = self.view && self.view.id === id ? core.settledHeader(self.view) : null;
      return held ? { "Rocket-Settled": held } : null;
    });
  };

  // `tries`: how many times this intent found the server unreachable before (0 for a press).
  Widget.prototype.send = function (request, tries) {
    var self = this;
    // The event stream can show the next block before the answer to the request in flight
    // arrives: a press there waits for that answer. A second press on the view the request
    // was sent from is a double press.
    var plan = core.plan(request, this.view, this.sent);
    if (plan.action === "queue") this.queued = plan.intent;
    if (plan.action !== "send") return;
    var intent = plan.intent;
    this.sent = intent;
    this.apiHolding("POST", "/v1/conversations/" + this.view.id + "/intents", intent).then(function (r) {
      self.sent = null;
      if (tries) self.say("");
      var v = r.data && (r.data.conversation || (r.data.error && r.data.error.conversation));
      if (v) self.render(v);
      if (core.conversationLost(r.status, r.data && r.data.error && r.data.error.code)) {
        self.lose();
        return;
      }
      if (r.status === 429) self.say(say("slowDown"));
      else if (r.status >= 400 && r.status !== 422 && r.status !== 409) {
        // The visitor is told in their words; the server's own message is for the site's
        // developer, in the console.
        if (r.data && r.data.error && window.console) window.console.warn("RocketAlert: " + r.data.error.message);
        self.say(say("wentWrong"));
      }
      var next = core.afterAnswer(intent, self.queued, r.status);
      self.queued = null;
      if (next) self.send(next);
    }, function () {
      // Not reached: the same intent goes again (see retryUnreached), staying the one in flight
      // meanwhile, so a second press waits for it. It names its step: if it did arrive, the
      // server answers with the conversation as it is (409) and does not apply it twice.
      var n = tries || 0;
      var again = function () { self.sent = null; if (!self.ended) self.send(intent, n + 1); };
      if (!self.ended && retryUnreached(n, again)) { self.say(say("retrying")); return; }
      self.sent = null;
      self.queued = null;
      self.say(say("unreachable"));
    });
  };

  // Schedules `retry` for a request that did not reach the server (offline, a server
  // restarting) after `tries` such failures: later each time (2 s doubling to 30 s), and at once
  // when the browser is back online. False after six: the visitor is told, and may press again.
  function retryUnreached(tries, retry) {
    if (tries >= 6) return false;
    var done = false, timer = null;
    var go = function () {
      if (done) return;
      done = true;
      clearTimeout(timer);
      window.removeEventListener("online", go);
      retry();
    };
    timer = setTimeout(go, core.streamRetry(0, undefined, tries, function () { return false; }, Math.random()));
    window.addEventListener("online", go);
    return true;
  }

  Widget.prototype.render = function (v) {
    if (!core.isNewer(this.view, v, this.left)) return;
    // An answer without the items the page holds gets them from the view shown.
    var whole = core.merged(this.view, v);
    if (!whole) {
      if (core.rereads(this.view, v)) this.reread(v.id);
      return;
    }
    v = whole;
    // A view in a language whose words are still on their way is drawn once they are here (views
    // that come meanwhile wait behind it, in order).
    var lang = typeof v.lang === "string" ? v.lang : wordsLang;
    if (!haveWords(lang)) {
      var waiting = this;
      loadWords(lang).then(function () { waiting.render(v); });
      return;
    }
    var hadFocus = this.root.contains(document.activeElement);
    var typed = null, field = this.root.querySelector(".rk-input");  // a text field or a text area
    if (field && this.view && this.view.active === v.active) typed = field.value;
    this.view = v;
    if (typeof v.lang === "string") wordsLang = v.lang;
    this.frame.setAttribute("aria-label", say("conversation"));
    // The flow's language and direction lay the conversation out (Arabic from the right); the
    // widget's own words are marked with theirs when it differs (WCAG 3.1.2).
    if (core.languageTag(v.flowLang)) {
      this.frame.lang = v.flowLang;
      this.frame.dir = v.dir === "rtl" ? "rtl" : "ltr";
    } else {
      this.frame.removeAttribute("lang");
      this.frame.removeAttribute("dir");
    }
    this.markedWordsLang = core.wordsLangWithin({ flowLang: v.flowLang, lang: core.wordsShown(WORDS, WORD_LANGS, v.lang) });
    if (this.markedWordsLang) {
      this.status.lang = this.markedWordsLang;
      this.status.dir = "auto";
    } else {
      this.status.removeAttribute("lang");
      this.status.removeAttribute("dir");
    }
    this.renderHead(v);
    var items = v.transcript, log = this.log;
    while (log.children.length > items.length) log.removeChild(log.lastChild);
    for (var i = 0; i < items.length; i++) {
      var item = items[i], key = core.itemKey(item, v);
      var li = log.children[i];
      if (li && li.getAttribute("data-key") === key) continue;
      var fresh = this.item(item, v);
      fresh.setAttribute("data-key", key);
      if (li) log.replaceChild(fresh, li);
      else {
        fresh.classList.add("rk-new");
        log.appendChild(fresh);
        if (this.options.onNew) this.options.onNew();
      }
    }
    var typing = this.frame.querySelector(".rk-typing");
    if (v.typing && !typing) {
      typing = el("div", "rk-typing");
      typing.setAttribute("role", "status");
      typing.setAttribute("aria-label", say("isTyping", [v.author.name]));
      for (var d = 0; d < 3; d++) typing.appendChild(el("span", "rk-dot"));
      this.frame.insertBefore(typing, this.status);
    } else if (!v.typing && typing) typing.parentNode.removeChild(typing);
    if (typed !== null) { var f2 = this.root.querySelector(".rk-input"); if (f2) f2.value = typed; }
    this.renderBanner(v.banner);
    this.syncHold();
    this.frame.classList.toggle("rk-closing", v.status === "closing");
    if (v.status === "dismissed" && !this.ended) {
      this.ended = true;
      if (this.source) { this.source.close(); this.source = null; }
      store("rocket.conversation." + this.flow, null);
      this.dispatch("dismiss", { reason: v.reason, conversation: v.id, flow: this.flow, answers: v.answers || {} });
      this.renderEnd(v.reason);
      if (v.reason === "completed" && this.options.closingAlert) closingAlert();
    }
    var focusKey = v.active === null ? null : v.id + ":" + v.active;
    var target = this.log.querySelector("[data-focus]");
    this.movingFocus = true;
    if (target && focusKey && focusKey !== this.focusKey && (hadFocus || this.options.page)) target.focus({ preventScroll: false });
    // A redrawn block (an input error, say) keeps the focus it had.
    else if (target && hadFocus && !this.root.contains(document.activeElement)) target.focus({ preventScroll: true });
    this.movingFocus = false;
    this.focusKey = focusKey;
    if (log.lastChild && log.lastChild.scrollIntoView && this.options.page) log.lastChild.scrollIntoView({ block: "nearest", behavior: reduced ? "auto" : "smooth" });
  };

  // A conversation that cannot go on (see core.conversationLost) ends here as a closed one
  // does: its stream stops, the browser forgets it, and the visitor may start again.
  Widget.prototype.lose = function () {
    if (this.ended) return;
    this.ended = true;
    this.queued = null;
    if (this.source) { this.source.close(); this.source = null; }
    store("rocket.conversation." + this.flow, null);
    // What it showed stays readable, but nothing in it can be pressed or typed into any more.
    var controls = this.log.querySelectorAll("button, input, textarea, select");
    for (var i = 0; i < controls.length; i++) controls[i].disabled = true;
    var hints = this.log.querySelectorAll(".rk-hint");
    for (var k = 0; k < hints.length; k++) hints[k].parentNode.removeChild(hints[k]);
    this.renderEnd("lost");
  };

  // The end of a flow stays on the page: a closing line and a control to start again.
  Widget.prototype.renderEnd = function (reason) {
    var self = this, end = el("div", "rk-end");
    if (this.markedWordsLang) end.lang = this.markedWordsLang;
    end.appendChild(ownWords(this, el("p", "rk-end-line", say(reason === "completed" ? "ended" : reason === "lost" ? "lost" : "closed"))));
    var again = ownWords(this, el("button", "rk-button rk-again", say("startAgain")));
    again.type = "button";
    again.addEventListener("click", function () {
      end.parentNode.removeChild(end);
      self.ended = false;
      // Answers about it still on their way are not drawn over the new one.
      if (self.view) self.left = self.view.id;
      self.view = null;
      self.focusKey = null;
      self.log.textContent = "";
      self.start();
    });
    end.appendChild(again);
    this.frame.insertBefore(end, this.status);
    if (this.root.contains(document.activeElement) || this.options.page) again.focus();
  };

  Widget.prototype.renderHead = function (v) {
    var h = this.header;
    var key = JSON.stringify([v.author, v.closeButton, v.accepts.indexOf("close") >= 0, !!(v.autoAdvance || v.held || this.pinned)]);
    if (h.getAttribute("data-key") === key) return;
    h.setAttribute("data-key", key);
    // A control of the header that had the focus has it again once the header is redrawn.
    var focusedRole = h.contains(document.activeElement) ? document.activeElement.getAttribute("data-role") : null;
    var self1 = this;
    setTimeout(function () {
      var again = focusedRole && h.querySelector('[data-role="' + focusedRole + '"]');
      if (again && !h.contains(document.activeElement)) { self1.movingFocus = true; again.focus(); self1.movingFocus = false; }
    }, 0);
    h.textContent = "";
    if (v.author.image) h.appendChild(imageOf(v.author.image, v.author.style, ""));
    h.appendChild(el("span", "rk-name", v.author.name));
    if (v.autoAdvance || v.held || this.pinned) {
      var self0 = this, pause = ownWords(this, el("button", "rk-button rk-pause", say("pause")));
      pause.type = "button";
      pause.setAttribute("data-role", "pause");
      pause.setAttribute("aria-pressed", String(this.pinned));
      pause.title = say("pauseTitle");
      pause.addEventListener("click", function () {
        self0.pinned = !self0.pinned;
        pause.setAttribute("aria-pressed", String(self0.pinned));
        self0.syncHold();
      });
      h.appendChild(pause);
    }
    if (v.closeButton) {
      var self = this, b = el("button", "rk-close", v.closeButton.title);
      b.type = "button";
      b.setAttribute("data-role", "close");
      fontOf(b, v.closeButton.font);
      b.disabled = v.accepts.indexOf("close") < 0;
      b.addEventListener("click", function () { self.send({ intent: "close" }); });
      h.appendChild(b);
    }
  };

  Widget.prototype.item = function (item, v) {
    var self = this, li = el("div", "rk-item rk-item-" + item.type);
    // The visitor's last answer can be changed: an Edit control goes back to its question.
    var edit = function (into, text) {
      var b = ownWords(self, el("button", "rk-edit", say("edit")));
      b.type = "button";
      b.setAttribute("aria-label", say("editAnswer", [text]));
      b.addEventListener("click", function () { self.send({ intent: "back" }); });
      into.appendChild(b);
    };
    // A link to `page` (checked by core.link) reading `text`, which opens in a new tab and says
    // so to a screen reader, in the widget's own words.
    var linkTo = function (page, text, cls) {
      var a = el("a", cls);
      a.href = page;
      a.target = "_blank";
      a.rel = "noopener noreferrer";
      a.appendChild(said("span", "", text));
      var mark = el("span", "rk-new-tab", " ↗");
      mark.setAttribute("aria-hidden", "true");
      a.appendChild(mark);
      a.appendChild(ownWords(self, el("span", "rk-sr", " (" + say("newTab") + ")")));
      return a;
    };
    if (item.type === "reply") {
      // An optional question left empty: its reply says so, not an empty bubble.
      li.appendChild(item.text === "" ? ownWords(self, el("p", "rk-bubble rk-mine rk-none", say("noAnswer"))) : said("p", "rk-bubble rk-mine", item.text));
      if (core.editable(v, item)) edit(li, item.secret ? "hidden" : item.text === "" ? say("noAnswer") : item.text);
      return li;
    }
    var active = item.index === v.active;
    var can = function (name) { return active && v.accepts.indexOf(name) >= 0; };
    // An answered block reads as the conversation did: its question, then the answer as the
    // visitor's own bubble (an answered input's reply is an item of its own).
    var answer = core.answerTitle(item);
    if (answer !== null || (item.type === "textInput" && !active)) {
      if (item.text) { var asked = said("p", "rk-bubble", item.text); fontOf(asked, item.font); li.appendChild(asked); }
      if (answer !== null) {
        var mine = said("p", "rk-bubble rk-mine rk-answer", answer);
        // A pressed link stays one: the visitor can open its page again.
        var again = core.answerLink(item);
        if (again) { mine.textContent = ""; mine.appendChild(linkTo(again, answer, "rk-link-again")); }
        li.appendChild(mine);
      }
      if (answer !== null && core.editable(v, item)) edit(li, answer);
      return li;
    }
    var button = function (title, font, intent, extra, link, picture) {
      // A button that opens a page is a link while it can be pressed: the press opens it in a
      // new tab and answers the block as any press does.
      var page = active ? core.link(link) : null;
      var b = page ? linkTo(page, title, "rk-button rk-link" + (extra || "")) : el("button", "rk-button" + (extra || ""), title);
      if (!page) b.type = "button";
      // A picture above the title (the title names the button: the picture is decoration).
      if (picture) { b.insertBefore(imageOf(picture, "round", ""), b.firstChild); b.className += " rk-has-picture"; }
      fontOf(b, font);
      if (!active) b.disabled = true;
      b.addEventListener("click", function () { self.send(intent); });
      return b;
    };
    switch (item.type) {
      case "text":
      case "image": {
        var bubble = el(can("tap") ? "button" : "div", "rk-bubble");
        if (item.type === "image") {
          var img = imageOf(item.image, item.imageStyle, item.text, item.imageSize);
          img.style.marginLeft = Math.max(0, Math.min(200, item.paddingLeft || 0)) + "px";
          img.style.marginRight = Math.max(0, Math.min(200, item.paddingRight || 0)) + "px";
          bubble.appendChild(img);
        }
        if (item.text) {
          var p = said("span", "rk-text", item.text);
          fontOf(p, item.font);
          // An image block's caption is its picture's text alternative: said once, as the
          // picture's, not a second time after it.
          if (item.type === "image") p.setAttribute("aria-hidden", "true");
          bubble.appendChild(p);
        }
        if (can("tap")) {
          bubble.type = "button";
          // A picture without a caption still names the button it is.
          if (!item.text) bubble.setAttribute("aria-label", say("picture"));
          bubble.setAttribute("data-focus", "");
          bubble.setAttribute("aria-describedby", "rk-hint-" + item.index);
          bubble.addEventListener("click", function () { self.send({ intent: "tap" }); });
          li.appendChild(bubble);
          var hint = ownWords(self, el("span", "rk-hint", say("continue")));
          hint.id = "rk-hint-" + item.index;
          li.appendChild(hint);
        } else li.appendChild(bubble);
        break;
      }
      case "button": {
        var b1 = button(item.title, item.font, { intent: "pressButton" }, item.pressed ? " rk-pressed" : "", item.link, item.image);
        if (can("pressButton")) b1.setAttribute("data-focus", "");
        li.appendChild(b1);
        break;
      }
      case "doubleButton": {
        var row = el("div", "rk-row");
        var l = button(item.left.title, item.left.font, { intent: "pressLeft" }, item.pressed === "left" ? " rk-pressed" : "", item.left.link, item.left.image);
        var r = button(item.right.title, item.right.font, { intent: "pressRight" }, item.pressed === "right" ? " rk-pressed" : "", item.right.link, item.right.image);
        if (can("pressLeft")) l.setAttribute("data-focus", "");
        row.appendChild(l);
        row.appendChild(r);
        li.appendChild(row);
        break;
      }
      case "rating":
      case "choice": {
        if (item.type === "rating" || item.multiple) { li.appendChild(this.pickMany(item, v, active, can)); break; }
        var q = said("p", "rk-bubble", item.text);
        fontOf(q, item.font);
        q.id = "rk-q-" + item.index;
        li.appendChild(q);
        var list = el("div", "rk-options" + (item.options.some(function (o) { return o.image; }) ? " rk-pictures" : ""));
        list.setAttribute("role", "group");
        list.setAttribute("aria-labelledby", q.id);
        for (var k = 0; k < item.options.length; k++) {
          var ob = button(item.options[k].title, item.options[k].font, { intent: "choose", option: k }, item.chosen === k ? " rk-pressed" : "", item.options[k].link, item.options[k].image);
          // The focus starts on the option chosen before going back to it, else on the first.
          var first = Array.isArray(item.starting) && item.starting.length ? item.starting[0] : 0;
          if (k === first && can("choose")) ob.setAttribute("data-focus", "");
          list.appendChild(ob);
        }
        li.appendChild(list);
        break;
      }
      case "textInput": {
        var form = el("form", "rk-form");
        var label = said("label", "rk-bubble", item.text);
        fontOf(label, item.font);
        // Several lines: a text area, where Enter starts a line and Ctrl+Enter (⌘+Enter) sends.
        var field = el(item.multiline ? "textarea" : "input", "rk-input");
        var fid = "rk-in-" + v.id.slice(0, 8) + "-" + item.index;
        field.id = fid;
        label.htmlFor = fid;
        var kind = core.fieldFor(item, core.localDay(new Date()));
        if (item.multiline) field.rows = 3; else field.type = kind.type;
        field.autocomplete = kind.autocomplete;
        if (kind.inputmode) field.setAttribute("inputmode", kind.inputmode);
        if (kind.step) field.step = kind.step;
        if (kind.min !== null) field.min = kind.min;
        if (kind.max !== null) field.max = kind.max;
        // The empty field says what it takes: the server's hint for the waiting input (the
        // flow's placeholder, else the answer's bounds or form), else the flow's placeholder.
        var hint = active && typeof v.hint === "string" ? v.hint : item.placeholder;
        if (hint) field.placeholder = hint;
        // The flow's starting text, or the answer being changed after "Edit" (what the visitor
        // has typed since is put back over it when the view is drawn again).
        if (active && typeof item.value === "string") field.value = item.value;
        if (item.validate) {
          if (item.validate.required) field.required = true;
          if (item.validate.minLength) field.minLength = item.validate.minLength;
          if (item.validate.maxLength) field.maxLength = item.validate.maxLength;
        }
        var go = el("button", "rk-button rk-send", item.buttonTitle);
        go.type = "submit";
        fontOf(go, item.buttonStyle);
        form.appendChild(label);
        var line = el("div", "rk-row");
        line.appendChild(field);
        line.appendChild(go);
        form.appendChild(line);
        var keys = null;
        if (item.multiline) {
          var mac = /Mac|iPhone|iPad/.test((navigator.userAgentData && navigator.userAgentData.platform) || navigator.platform || "");
          keys = ownWords(self, el("p", "rk-hint-line", say(mac ? "sendKeysMac" : "sendKeys")));
          keys.id = fid + "-keys";
          form.appendChild(keys);
        }
        if (active) {
          field.setAttribute("data-focus", "");
          if (keys) {
            field.setAttribute("aria-describedby", keys.id);
            field.addEventListener("keydown", function (ev) {
              if (ev.key !== "Enter" || !(ev.ctrlKey || ev.metaKey)) return;
              ev.preventDefault();
              if (form.requestSubmit) form.requestSubmit(); else form.dispatchEvent(new Event("submit", { cancelable: true }));
            });
          }
          if (v.inputError) {
            var err = el("p", "rk-error", v.inputError);
            err.id = fid + "-error";
            err.setAttribute("role", "alert");
            field.setAttribute("aria-invalid", "true");
            field.setAttribute("aria-describedby", err.id + (keys ? " " + keys.id : ""));
            form.appendChild(err);
          }
          form.addEventListener("submit", function (ev) {
            ev.preventDefault();
            // A number field hides text that is not a number (its value is ""): a text that is
            // none stands for it, so the server refuses it with the flow's own message.
            var bad = field.validity && field.validity.badInput;
            var text = bad ? "?" : field.value;
            // Longer than the server takes: said in the visitor's words, as a refusal is, and
            // nothing is sent (the server's answer would be a developer's message).
            if (core.utf8Bytes(text) > core.answerBytes) {
              var mine = form.querySelector(".rk-error") || form.appendChild(el("p", "rk-error", ""));
              mine.id = fid + "-error";
              mine.setAttribute("role", "alert");
              mine.textContent = say("answerTooLong");
              field.setAttribute("aria-invalid", "true");
              field.setAttribute("aria-describedby", mine.id + (keys ? " " + keys.id : ""));
              return;
            }
            self.send({ intent: "submit", text: text });
          });
          field.noValidate = true;
          form.noValidate = true;
        } else {
          field.disabled = true;
          go.disabled = true;
          form.addEventListener("submit", function (ev) { ev.preventDefault(); });
        }
        li.appendChild(form);
        break;
      }
      default:
        li.appendChild(said("p", "rk-bubble", item.text || ""));
    }
    return li;
  };

  /**
   * A rating (a radio group from its bottom, 1 or 0, to its scale, the words under its ends) or a multiple choice
   * (checkboxes), each confirmed by a button: arrows move within a radio group, so choosing
   * alone does not answer.
   */
  Widget.prototype.pickMany = function (item, v, active, can) {
    var self = this, rating = item.type === "rating";
    var fs = el("fieldset", "rk-pick" + (rating ? " rk-rating" : ""));
    var legend = said("legend", "rk-bubble", item.text);
    fontOf(legend, item.font);
    fs.appendChild(legend);
    var name = "rk-pick-" + v.id.slice(0, 8) + "-" + item.index, inputs = [];
    var bottom = rating && item.from === 0 ? 0 : 1;
    var count = rating ? Math.max(2, Math.min(10, item.scale || 5)) - bottom + 1 : item.options.length;
    // A long scale (0 to 10) is drawn closer, so it keeps to one line on a phone.
    var box = el("div", rating ? "rk-scale" + (count > 8 ? " rk-long" : "") : "rk-options");
    // What is ticked survives a new drawing of the block (a refusal redraws it).
    var key = v.id + ":" + item.index;
    this.picked = this.picked || {};
    // Before the visitor ticks anything: what the block starts with (the flow's "selected", or
    // the answer it had when the visitor went back to it).
    var kept = this.picked[key] || (active && Array.isArray(item.starting) ? item.starting.map(String) : []);
    var remember = function () {
      var now = [];
      for (var i = 0; i < inputs.length; i++) if (inputs[i].checked) now.push(inputs[i].value);
      self.picked[key] = now;
    };
    for (var k = 0; k < count; k++) {
      var label = el("label", rating ? "rk-step" : "rk-check");
      var input = el("input", "");
      input.type = rating ? "radio" : "checkbox";
      input.name = name;
      input.value = String(rating ? k + bottom : k);
      input.id = name + "-" + k;
      label.htmlFor = input.id;
      input.checked = kept.indexOf(input.value) >= 0;
      input.addEventListener("change", remember);
      if (rating) input.addEventListener("change", function () { var asked = fs.querySelector(".rk-pick-first"); if (asked) asked.remove(); });
      input.disabled = !active;
      if (k === 0 && active) input.setAttribute("data-focus", "");
      inputs.push(input);
      label.appendChild(input);
      // Ticked options read as text (a button's font is for buttons).
      label.appendChild(el("span", "", rating ? String(k + bottom) : item.options[k].title));
      box.appendChild(label);
    }
    // A rating's scale and the words under its ends share one width: the words stand under the
    // bottom and under the top.
    var holder = rating ? el("div", "rk-scale-wrap") : fs;
    holder.appendChild(box);
    if (rating) fs.appendChild(holder);
    if (rating && item.labels) {
      // The words under the ends describe the first and the last value to a screen reader too.
      var ends = el("div", "rk-ends"), low = el("span", "", item.labels.low || ""), high = el("span", "", item.labels.high || "");
      low.id = name + "-low";
      high.id = name + "-high";
      ends.appendChild(low);
      ends.appendChild(high);
      holder.appendChild(ends);
      if (item.labels.low) inputs[0].setAttribute("aria-describedby", low.id);
      if (item.labels.high) inputs[inputs.length - 1].setAttribute("aria-describedby", high.id);
    }
    var chooseRule = rating ? null : core.chooseRule(item.min, item.max);
    if (chooseRule) fs.appendChild(ownWords(self, el("p", "rk-hint-line", say(chooseRule.key, chooseRule.args))));
    if (active && v.inputError) {
      var err = el("p", "rk-error", v.inputError);
      err.setAttribute("role", "alert");
      fs.appendChild(err);
    }
    var go = item.buttonTitle ? el("button", "rk-button rk-send", item.buttonTitle) : ownWords(self, el("button", "rk-button rk-send", say("done")));
    go.type = "button";
    go.disabled = !(can(rating ? "rate" : "chooseMany"));
    go.addEventListener("click", function () {
      var picked = [];
      for (var i = 0; i < inputs.length; i++) if (inputs[i].checked) picked.push(Number(inputs[i].value));
      if (rating && !picked.length) {
        // Sent before a value is picked: said under the scale (the terminal's words), and the
        // focus goes to the first value; picking one takes the words away.
        var asked = fs.querySelector(".rk-pick-first") || ownWords(self, el("p", "rk-error rk-pick-first", say("pickRating", [bottom, bottom + count - 1])));
        asked.setAttribute("role", "alert");
        fs.insertBefore(asked, go);
        inputs[0].focus();
      } else if (rating) self.send({ intent: "rate", value: picked[0] });
      else self.send({ intent: "chooseMany", options: picked });
    });
    if (active) fs.appendChild(go);
    // A rating takes its number typed, as in the terminal: "7", or "1" then "0" for 10.
    if (rating && active) {
      var typed = null;
      fs.addEventListener("keydown", function (e) {
        if (e.ctrlKey || e.metaKey || e.altKey || e.target === go) return;
        var t = core.typedRating(typed, e.key, Date.now(), bottom, bottom + count - 1);
        typed = t;
        if (!t) return;
        e.preventDefault();
        var input = inputs[t.value - bottom];
        input.checked = true;
        input.focus();
        input.dispatchEvent(new Event("change", { bubbles: true }));
      });
    }
    return fs;
  };

  Widget.prototype.renderBanner = function (b) {
    var self = this;
    if (!b) return;
    var key = JSON.stringify(b);
    if (this.bannerKey === key) return;
    this.bannerKey = key;
    var box = el("div", "rk-banner rk-anim-" + (b.animation || "linear"));
    box.setAttribute("role", "status");
    if (core.color(b.color)) box.style.background = b.color;
    box.style.color = core.readableText(b.color, null);
    if (b.iconImage) { var ic = imageOf(b.iconImage, "round", ""); ic.className += " rk-banner-image"; box.appendChild(ic); }
    else if (b.icon) box.appendChild(el("span", "rk-banner-icon", b.icon));
    var texts = el("div", "rk-banner-texts");
    var t = el("strong", "rk-banner-title", b.title);
    t.style.color = core.readableText(b.color, b.titleColor);
    texts.appendChild(t);
    if (b.subtitle) {
      var s = el("span", "rk-banner-subtitle", b.subtitle);
      s.style.color = core.readableText(b.color, b.subtitleColor);
      texts.appendChild(s);
    }
    box.appendChild(texts);
    var gone = false;
    var dismiss = function (how) {
      if (gone) return;
      gone = true;
      box.classList.add("rk-banner-out");
      self.dispatch("banner", { result: how });
      setTimeout(function () { if (box.parentNode) box.parentNode.removeChild(box); }, reduced ? 0 : 250);
    };
    core.bannerButtons(b).forEach(function (pair) {
      var bt = el("button", "rk-banner-button", pair[0]);
      bt.type = "button";
      if (pair[1] === "close") bt.setAttribute("aria-label", say("dismiss"));
      bt.addEventListener("click", function (ev) { ev.stopPropagation(); dismiss(pair[1]); });
      box.appendChild(bt);
    });
    if (b.backgroundTaps !== false) box.addEventListener("click", function () { dismiss("tap"); });
    if (b.swipe !== false) {
      var x0 = null;
      box.addEventListener("pointerdown", function (ev) { x0 = ev.clientY; });
      box.addEventListener("pointerup", function (ev) { if (x0 !== null && x0 - ev.clientY > 30) dismiss("swipe"); x0 = null; });
    }
    // Its time on screen pauses while the pointer or the focus is on it and while the page is
    // hidden (WCAG 2.2.1); it sits in the widget above the conversation, covering nothing.
    if (b.duration > 0) {
      var clock = core.countdown(Math.min(b.duration, 3600) * 1000, Date.now()), timer = null;
      var arm = function () {
        clearTimeout(timer);
        var ms = core.remaining(clock, Date.now());
        if (ms === 0) dismiss("timeout"); else if (ms !== Infinity) timer = setTimeout(arm, ms);
      };
      var hold = function () { clock = core.pause(clock, Date.now()); arm(); };
      var go = function () { if (!box.matches(":hover") && !box.contains(document.activeElement) && !document.hidden) { clock = core.resume(clock, Date.now()); arm(); } };
      box.addEventListener("mouseenter", hold);
      box.addEventListener("focusin", hold);
      box.addEventListener("mouseleave", go);
      box.addEventListener("focusout", function () { setTimeout(go, 0); });
      document.addEventListener("visibilitychange", function () { if (document.hidden) hold(); else go(); });
      if (document.hidden) clock = core.pause(clock, Date.now());
      arm();
    }
    this.frame.insertBefore(box, this.header.nextSibling);
  };

  // AlertReactor alerts and action sheets: shown modally, their actions updated live by
  // the app (POST /v1/alerts/ID/mutations), answered once.
  function AlertView(id, resolve) {
    this.id = id;
    this.resolve = resolve;
    this.view = null;
    this.busy = false;
    this.previous = document.activeElement;
    this.overlay = widgetRoot(el("div", "rk-overlay"));
    this.box = el("div", "rk-dialog");
    this.box.setAttribute("role", "alertdialog");
    this.box.setAttribute("aria-modal", "true");
    this.box.tabIndex = -1;
    this.overlay.appendChild(this.box);
    document.body.appendChild(this.overlay);
    var self = this;
    this.box.addEventListener("keydown", function (ev) { self.key(ev); });
    // An alert the server no longer has (its visitor erased, or expired) closes as dismissed:
    // a dialog nothing can answer would hold the page.
    this.source = window.fetch && window.TextDecoder ? follow("/v1/alerts/" + id + "/events", function (event, data) {
      if (event === "state") { try { self.render(JSON.parse(data)); } catch (e) { /* skipped */ } }
    }, core.alertGone, function () { self.source = null; self.close(null); }) : null;
  }

  AlertView.prototype.render = function (v) {
    if (this.view && v.version < this.view.version) return;
    var old = this.view, self = this, box = this.box;
    this.view = v;
    if (v.status === "dismissed") { this.close(v.selected); return; }
    // The focused action is followed by its title: the list may have changed around it.
    var focusTitle = null, active = document.activeElement;
    if (active && active.getAttribute && active.hasAttribute("data-index") && box.contains(active)) focusTitle = active.textContent;
    box.textContent = "";
    box.className = "rk-dialog" + (v.style === "actionSheet" ? " rk-sheet" : "");
    if (v.title) { var t = el("h2", "rk-dialog-title", v.title); t.id = "rk-a-" + this.id + "-t"; box.appendChild(t); box.setAttribute("aria-labelledby", t.id); }
    if (v.message) { var m = el("p", "rk-dialog-message", v.message); m.id = "rk-a-" + this.id + "-m"; box.appendChild(m); box.setAttribute("aria-describedby", m.id); }
    var list = el("div", "rk-dialog-actions");
    core.alertOrder(v).forEach(function (i) {
      var a = v.actions[i], b = el("button", "rk-dialog-button rk-" + a.style, a.title);
      b.type = "button";
      b.setAttribute("data-index", String(i));
      b.disabled = !a.enabled;
      b.addEventListener("click", function () { self.select(i); });
      list.appendChild(b);
    });
    if (!v.actions.length) list.appendChild(el("p", "rk-dialog-message", "…"));
    box.appendChild(list);
    // Focus stays where it was when that action is still usable; it starts on the first
    // enabled action that is not destructive, so one Enter never destroys.
    var focus = core.alertFocus(v.actions, focusTitle);
    var target = focus >= 0 ? box.querySelector('[data-index="' + focus + '"]') : null;
    (target || box).focus();
  };

  AlertView.prototype.key = function (ev) {
    if (ev.key === "Escape") {
      ev.preventDefault();
      var v = this.view, i = v ? v.actions.findIndex(function (a) { return a.style === "cancel" && a.enabled; }) : -1;
      if (i >= 0) this.select(i);
    } else if (ev.key === "Tab") {
      var items = Array.prototype.slice.call(this.box.querySelectorAll("button:not([disabled])"));
      if (!items.length) { ev.preventDefault(); return; }
      var next = core.nextTab(items.length, items.indexOf(document.activeElement), ev.shiftKey);
      ev.preventDefault();
      items[next].focus();
    }
  };

  // `tries`: how many times this choice found the server unreachable before (0 for a press).
  AlertView.prototype.select = function (i, tries) {
    var self = this;
    if (this.busy && !tries) return;
    this.busy = true;
    call("POST", "/v1/alerts/" + this.id + "/select", { index: i }).then(function (r) {
      self.busy = false;
      if (core.alertGone(r.status, r.data && r.data.error && r.data.error.code)) { self.close(null); return; }
      var v = r.data && (r.data.alert || (r.data.error && r.data.error.alert));
      if (v) self.render(v);
    }, function () {
      // Not reached: the same choice goes again (an alert takes one answer; a second is refused
      // with the alert as it is), the dialog busy meanwhile.
      var n = tries || 0;
      if (!self.closed && retryUnreached(n, function () { if (self.closed) self.busy = false; else self.select(i, n + 1); })) return;
      self.busy = false;
    });
  };

  AlertView.prototype.close = function (selected) {
    if (this.closed) return;
    this.closed = true;
    if (this.source) { this.source.close(); this.source = null; }
    if (this.overlay.parentNode) this.overlay.parentNode.removeChild(this.overlay);
    if (this.previous && this.previous.focus) this.previous.focus();
    var v = this.view;
    this.resolve(selected === null || selected === undefined ? null : { index: selected, title: v.actions[selected] ? v.actions[selected].title : null });
  };

  // The tour's closing alert, as the terminal demo ends: AlertReactor's, its choices loading
  // lazily (the page is the app here: it changes its own alert).
  function closingAlert() {
    var body = { title: "How was the tour?", message: "This alert is AlertReactor's: its choices load lazily and it updates live.",
      actions: [{ title: "Loading…", enabled: false }, { title: "Not now", style: "cancel" }] };
    call("POST", "/v1/alerts", body).then(function (r) {
      if (r.status !== 201) return;
      var id = r.data.alert.id;
      showAlert(id);
      setTimeout(function () {
        call("POST", "/v1/alerts/" + id + "/mutations", { setActions: [{ title: "Loved it" }, { title: "It was fine" }, { title: "Not now", style: "cancel" }] });
      }, reduced ? 0 : 600);
    });
  }

  function showAlert(id) {
    return new Promise(function (resolve) {
      var view = new AlertView(id, resolve);
      call("GET", "/v1/alerts/" + id).then(function (r) { if (r.data && r.data.alert) view.render(r.data.alert); });
    });
  }

  window.RocketAlert = {
    mount: function (target, flow, options) {
      var w = new Widget(target, flow, options);
      w.start();
      return w;
    },
    /** Shows alert ID (made by the app's server for this visitor); resolves with the choice. */
    showAlert: showAlert,
    /** Makes and shows an alert: {title, message, style: "alert"|"actionSheet", actions: [{title, style, enabled}]}. */
    alert: function (spec) {
      var body = {};
      ["title", "message", "style", "actions"].forEach(function (k) { if (spec && spec[k] !== undefined) body[k] = spec[k]; });
      return call("POST", "/v1/alerts", body).then(function (r) {
        if (r.status !== 201) throw new Error(r.data && r.data.error ? r.data.error.message : "the server answered " + r.status);
        try { document.dispatchEvent(new CustomEvent("rocket:alert", { detail: { id: r.data.alert.id } })); } catch (e) { /* old browsers */ }
        return showAlert(r.data.alert.id);
      });
    },
    /**
     * Whether `flow` would start for this page's visitor now, asked without starting it (a dry
     * run: the server keeps nothing): resolves with its answer, `{status: "wouldStart", variant?}`
     * or `{status: "notNow", explanation, earliest?}`. Options as mount's: `vars`, `lang`.
     */
    check: function (flow, options) {
      var o = options || {};
      return call("POST", "/v1/conversations", {
        flow: String(flow), dryRun: true, lang: core.languageTag(o.lang) || pageLang || browserLang, vars: o.vars || {},
        utcOffset: Math.max(-840, Math.min(840, -new Date().getTimezoneOffset()))
      }).then(function (r) {
        if (r.status !== 200 || !r.data || !r.data.dryRun) throw new Error(r.data && r.data.error ? r.data.error.message : "the server answered " + r.status);
        return r.data;
      });
    },
    /** This page's visitor id (the site's, or the anonymous one whose token this browser keeps), or null before the first call. */
    visitor: visitorID
  };
  // data-mode="launcher": a button in the page's corner opens the conversation in a panel; a
  // badge counts what arrived while it was closed; Esc closes it and the focus goes back.
  function launcher(flow, resumeOnly, openNow) {
    var root = widgetRoot(el("div", "rk-launcher-root")), unread = 0, open = false;
    var side = core.launcherSide(script && script.getAttribute("data-position"));
    if (side) root.classList.add("rk-side-" + side);
    var button = el("button", "rk-launcher");
    button.type = "button";
    button.setAttribute("aria-expanded", "false");
    var icon = el("span", "rk-launcher-icon", "\u2709");
    icon.setAttribute("aria-hidden", "true");
    var badge = el("span", "rk-badge rk-hidden");
    badge.setAttribute("aria-hidden", "true");
    button.appendChild(icon);
    button.appendChild(badge);
    var panel = el("div", "rk-panel rk-hidden");
    panel.id = "rk-panel-" + flow;
    panel.setAttribute("role", "dialog");
    panel.setAttribute("aria-label", say("conversation"));
    button.setAttribute("aria-controls", panel.id);
    var label = function () {
      button.setAttribute("aria-label", say(open ? "closeConversation" : "openConversation") + (unread && !open ? ", " + say("unread", [unread]) : ""));
      badge.textContent = unread > 9 ? "9+" : String(unread);
      badge.classList.toggle("rk-hidden", open || unread === 0);
    };
    var toggle = function (show) {
      open = show;
      panel.classList.toggle("rk-hidden", !open);
      button.setAttribute("aria-expanded", String(open));
      if (open) {
        unread = 0;
        if (widget) widget.focusNewest();
      } else button.focus();
      label();
    };
    button.addEventListener("click", function () { toggle(!open); });
    // Esc closes the panel before anything inside sees it (inline, Esc is the close button).
    panel.addEventListener("keydown", function (ev) {
      if (ev.key === "Escape") { ev.preventDefault(); ev.stopPropagation(); toggle(false); }
    }, true);
    var target = el("div");
    panel.appendChild(target);
    root.appendChild(panel);
    root.appendChild(button);
    document.body.appendChild(root);
    label();
    // Said again in the page's language once its words are here.
    loadWords(wordsLang).then(function () {
      panel.setAttribute("aria-label", say("conversation"));
      label();
    });
    // On a phone the keyboard covers the bottom of the window without moving fixed boxes: the
    // launcher and the panel rise above it, and the panel fits what is left, so the field typed
    // in stays in sight (the visual viewport's events say when; the host page's meta is its own).
    var viewport = window.visualViewport, fitted = "";
    var fitKeyboard = function () {
      var k = core.keyboardInset(window.innerHeight, viewport), now = k.inset + "/" + k.visible;
      if (now === fitted) return;  // a pinch-zoomed page scrolls often: nothing is restyled for it
      fitted = now;
      root.style.setProperty("--rk-kb", k.inset + "px");
      if (k.visible === null) root.style.removeProperty("--rk-vh"); else root.style.setProperty("--rk-vh", k.visible + "px");
      // The panel is shorter now: the field in use is scrolled back into it.
      var focused = document.activeElement;
      if (!open || !focused || !panel.contains(focused)) return;
      var r = focused.getBoundingClientRect(), box = panel.getBoundingClientRect();
      if (r.bottom > box.bottom) panel.scrollTop += r.bottom - box.bottom + 8;
      else if (r.top < box.top) panel.scrollTop -= box.top - r.top + 8;
    };
    if (viewport && viewport.addEventListener) {
      viewport.addEventListener("resize", fitKeyboard);
      viewport.addEventListener("scroll", fitKeyboard);
      fitKeyboard();
    }
    var widget = window.RocketAlert.mount(target, flow, {
      vars: dataVars, onNew: function () { if (!open) { unread++; label(); } }, resumeOnly: resumeOnly === true
    });
    // A page trigger that fired opens the panel: that is what it waited for.
    if (openNow) toggle(true);
  }

  // The flow's variables the page gives (data-vars, JSON); an unreadable one shows nothing and
  // says why in the console, as an unreadable data-trigger does.
  var dataVars = {}, varsRefused = false;
  if (script && script.hasAttribute("data-vars")) {
    var given = core.dataVars(script.getAttribute("data-vars"));
    if (given.error) {
      if (window.console) console.warn("RocketAlert: " + given.error);
      varsRefused = true;
    } else {
      dataVars = given.vars;
    }
  }

  if (script && script.getAttribute("data-flow") && !varsRefused) {
    var flow = script.getAttribute("data-flow");
    var go = function (resumeOnly) {
      if (script.getAttribute("data-mode") === "launcher") { launcher(flow, resumeOnly, trigger !== null && resumeOnly === false); return; }
      var sel = script.getAttribute("data-target");
      var target = sel ? document.querySelector(sel) : null;
      if (sel && !target && window.console) {
        console.warn("RocketAlert: data-target " + JSON.stringify(sel.slice(0, 80)) + " matches nothing on the page; the conversation is put after the script");
      }
      if (!target) { target = el("div"); script.parentNode.insertBefore(target, script.nextSibling); }
      var page = script.hasAttribute("data-page");
      window.RocketAlert.mount(target, flow, {
        page: page, vars: page ? core.mergeVars(dataVars, core.queryVars(window.location.search)) : dataVars,
        closingAlert: script.hasAttribute("data-closing-alert"),
        resumeOnly: resumeOnly === true
      });
    };
    var trigger = script.getAttribute("data-trigger");
    var begin = function () {
      if (trigger === null) { go(false); return; }
      var spec = core.parseTrigger(trigger);
      if (spec.error) { if (window.console) console.warn("RocketAlert: " + spec.error); return; }
      whenTriggered(flow, spec, go);
    };
    // The page's own element, already parsed (the script comes after it): the conversation
    // starts now instead of after the rest of the document. Otherwise, once it is all there.
    var sel0 = script.getAttribute("data-target"), parsed = null;
    try { parsed = sel0 ? document.querySelector(sel0) : null; } catch (e) { parsed = null; /* a bad selector: as before */ }
    var ready = document.readyState !== "loading" || (script.getAttribute("data-mode") !== "launcher" && trigger === null && parsed !== null);
    if (ready) begin(); else document.addEventListener("DOMContentLoaded", begin);
  }
})();
