#!/usr/bin/env python3
"""The layer rules of docs/ARCHITECTURE.md, checked against the code: every `import` of every
Swift file must be a module its target may depend on by the table's last column ("May depend
on"). Layers are targets, so the compiler holds the arrows that Package.swift lists.

  python3 scripts/check-imports.py [ROOT]     exit 1 and a line per forbidden import

The table is the one statement of the rules; Package.swift's dependency lists must stay within it
(the compiler then holds what the table says).
"""
import json, os, re, subprocess, sys, tempfile

root = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SYSTEM = {"Swift", "_Concurrency", "_StringProcessing"}  # the toolchain's own, always there


def table():
    """Module -> allowed set (None for everything)."""
    rules, above = {}, []
    for line in open(os.path.join(root, "docs", "ARCHITECTURE.md"), encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`"):
            continue
        modules = re.findall(r"`([A-Za-z_]\w*)`", cells[0])
        last = cells[-1]
        if "everything" in last:
            allowed = None
        elif "the modules above" in last:
            never = set(re.findall(r"`(\w+)`", last.split("never", 1)[1])) if "never" in last else set()
            allowed = set(above) - never
        else:
            allowed = set(re.findall(r"`(\w+)`", last))
        if allowed is not None:
            kept = last.split("never", 1)[0]
            for word in ("Glibc", "Foundation", "Synchronization"):
                if re.search(r"\b%s\b" % word, kept):
                    allowed.add(word)
            if re.search(r"\blibc\b", kept):
                allowed.add("Glibc")
            if "Glibc" in allowed:
                allowed.add("Darwin")  # the same C library on the other platform
        for m in modules:
            rules[m] = allowed
        above += modules
    return rules


def targets():
    # A scratch folder of its own: the package's .build may be locked by a build or test run
    # (which may be what runs this script).
    with tempfile.TemporaryDirectory() as scratch:
        dump = json.loads(subprocess.run(
            ["swift", "package", "--scratch-path", scratch, "dump-package"], cwd=root, capture_output=True, text=True, check=True).stdout)
    out = {}
    for t in dump["targets"]:
        if t["type"] in ("system", "test"):
            continue
        path = t.get("path") or os.path.join("Sources", t["name"])
        deps = set()
        for d in t.get("dependencies", []):
            for kind in ("byName", "target", "product"):
                if kind in d:
                    deps.add(d[kind][0])
        out[t["name"]] = (os.path.join(root, path), deps)
    # Every library product has a DocC catalog (scripts/docs.sh documents the modules that do).
    for p in dump.get("products", []):
        if "library" in p.get("type", {}):
            for t in p["targets"]:
                if not os.path.isdir(os.path.join(root, "Sources", t, t + ".docc")):
                    MISSING_CATALOGS.append(t)
    return out


MISSING_CATALOGS = []


IMPORT = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public |package |internal |private |fileprivate )?import\s+(?:(?:struct|class|enum|func|protocol|typealias|var|let)\s+)?(\w+)")


def main():
    rules, problems = table(), []
    for name, (path, deps) in sorted(targets().items()):
        if name not in rules:
            if not any(name in k for k in rules):
                problems.append(f"docs/ARCHITECTURE.md: no row for the target {name}")
            continue
        allowed = rules[name]
        if allowed is not None:
            for d in sorted(deps - allowed):
                problems.append(f"Package.swift: {name} depends on {d}, which docs/ARCHITECTURE.md does not allow it")
        for folder, _, files in os.walk(path):
            for f in sorted(files):
                if not f.endswith(".swift"):
                    continue
                file = os.path.join(folder, f)
                rel = os.path.relpath(file, root)
                literal = False  # inside a multi-line string literal (code of another language)
                for number, line in enumerate(open(file, encoding="utf-8"), 1):
                    was = literal
                    if line.count('"""') % 2 == 1:
                        literal = not literal
                    m = IMPORT.match(line)
                    if was or not m:
                        continue
                    module = m.group(1)
                    if module in SYSTEM or module == name:
                        continue
                    if allowed is not None and module not in allowed:
                        problems.append(f"{rel}:{number}: {name} may not import {module} (docs/ARCHITECTURE.md)")
    problems += [f"Sources/{t}/{t}.docc: the library {t} has no DocC catalog" for t in MISSING_CATALOGS]
    for p in problems:
        print("check-imports: " + p, file=sys.stderr)
    if problems:
        sys.exit(1)
    print("check-imports: ok: every import is one docs/ARCHITECTURE.md allows")


main()
