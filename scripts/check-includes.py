#!/usr/bin/env python3
"""Checks the module arrows of racepred (docs/ARCHITECTURE.md) on the source tree.

Every `#include "racepred/<module>/…"` in src/racepred/<from>/ must name <from> itself or a
module that <from> reaches along the arrows below; public headers of the analysis modules must
not include third-party headers (nlohmann::json, CLI11). Exit 0 when the tree keeps the rules,
1 with one line per violation (FILE:LINE: message) otherwise.

    check-includes.py [SRC_DIR]      check a tree (default: src/racepred next to this script)
    check-includes.py --self-test    plant a forbidden include in a copy and expect a failure
"""
import pathlib
import re
import shutil
import sys
import tempfile

# The arrows: what each module may include directly (besides itself).
ARROWS = {
    "format": [],
    "trace": [],
    "io": ["trace", "format"],
    "clock": ["trace"],
    "report": ["trace"],
    "exact": ["trace", "report"],
    "engines": ["trace", "clock", "report", "exact"],
    "driver": ["engines", "io", "report"],
    "cli": ["trace", "io", "clock", "report", "engines", "exact", "driver", "format"],
    "recorder": ["format"],
}
# Modules whose public headers (.hpp) stay free of third-party types.
CLEAN_HEADERS = {"format", "trace", "io", "clock", "engines", "exact", "recorder"}
THIRD_PARTY = re.compile(r'#\s*include\s*[<"](nlohmann/|CLI/|fmt/)')
INCLUDE = re.compile(r'#\s*include\s*"racepred/([a-z_]+)/')


def reach(module):
    """The modules `module` may include: its arrows, followed transitively."""
    seen, todo = set(), [module]
    while todo:
        m = todo.pop()
        for d in ARROWS.get(m, []):
            if d not in seen:
                seen.add(d)
                todo.append(d)
    return seen | {module}


def check(src):
    problems = []
    for path in sorted(src.rglob("*")):
        if path.suffix not in (".cpp", ".hpp", ".h", ".def", ".inc"):
            continue
        module = path.relative_to(src).parts[0]
        if module not in ARROWS:
            problems.append(f"{path}:1: unknown module '{module}' (add it to ARROWS and "
                            "docs/ARCHITECTURE.md)")
            continue
        allowed = reach(module)
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.search(line)
            if m and m.group(1) not in allowed:
                problems.append(f"{path}:{n}: module '{module}' may not include module "
                                f"'{m.group(1)}' (allowed: {', '.join(sorted(allowed))})")
            if path.suffix != ".cpp" and module in CLEAN_HEADERS and THIRD_PARTY.search(line):
                problems.append(f"{path}:{n}: a public header of '{module}' includes a "
                                "third-party header; keep it in a .cpp file")
    return problems


def self_test(src):
    with tempfile.TemporaryDirectory() as tmp:
        copy = pathlib.Path(tmp) / "racepred"
        shutil.copytree(src, copy)
        bad = copy / "exact" / "planted_bad_include.cpp"
        bad.write_text('#include "racepred/engines/engine.hpp"\n')
        problems = check(copy)
        if not any("planted_bad_include.cpp:1: module 'exact' may not include module 'engines'"
                   in p for p in problems):
            print("self-test: the planted include exact -> engines was not reported")
            return 1
        print("self-test: the planted include exact -> engines was reported:")
        print("  " + next(p for p in problems if "planted" in p))
        return 0


def main(argv):
    here = pathlib.Path(__file__).resolve().parent
    args = [a for a in argv[1:] if a != "--self-test"]
    src = pathlib.Path(args[0]) if args else here.parent / "src" / "racepred"
    if "--self-test" in argv:
        return self_test(src)
    problems = check(src)
    for p in problems:
        print(p)
    if not problems:
        print(f"check-includes: every include under {src} keeps the module arrows")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
