#!/usr/bin/env python3
"""Checks the module arrows of racepred (docs/ARCHITECTURE.md) on the source tree.

Every `#include "racepred/<module>/…"` in src/racepred/<from>/ must name <from> itself or a
module that <from> reaches along the arrows below; public headers of the analysis modules must
not include third-party headers (nlohmann::json, CLI11). Unit tests of a module named in
TEST_RULES include only what that module reaches, and no source includes the test-support
library (tests/support/). No source starts a shell (popen, system):
programs start with an argument vector (recording/spawn.hpp). Exit 0 when the tree keeps the
rules, 1 with one line per violation (FILE:LINE: message) otherwise.

    check-includes.py [SRC_DIR [TESTS_DIR]]  check a tree (default: src/racepred and tests next
                                             to this script)
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
    "driver": ["engines", "io", "report", "witness"],
    "recording": ["trace", "io", "format"],
    # The witness checker shares nothing with the engines whose witnesses it judges.
    "witness": ["trace"],
    # Scheduling strategies of `racepred explore` (docs/ARCHITECTURE.md, "A scheduling strategy").
    "explore": ["engines", "driver", "recording", "report"],
    "cli": ["trace", "io", "clock", "report", "engines", "exact", "driver", "format", "recording",
            "explore", "witness"],
    "recorder": ["format"],
}
# Modules whose public headers (.hpp) stay free of third-party types.
CLEAN_HEADERS = {"format", "trace", "io", "clock", "engines", "exact", "recorder", "recording",
                 "witness"}
THIRD_PARTY = re.compile(r'#\s*include\s*[<"](nlohmann/|CLI/|fmt/)')
INCLUDE = re.compile(r'#\s*include\s*"racepred/([a-z_]+)/')
# Unit tests (tests/unit/) that must not look past their module: file pattern -> module.
TEST_RULES = {"recording_*_test.cpp": "recording"}
SHELL = re.compile(r'\b(popen|system)\(|"sh",\s*"-c"|"sh -c')
# The test-support library (tests/support/: reference engines, the tree clock) is not part of
# racepred: no source under src/ includes it.
TEST_SUPPORT = re.compile(r'#\s*include\s*"support/')


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


def check_tests(tests):
    problems = []
    for pattern, module in TEST_RULES.items():
        allowed = reach(module)
        for path in sorted((tests / "unit").glob(pattern)):
            for n, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                m = INCLUDE.search(line)
                if m and m.group(1) not in allowed:
                    problems.append(f"{path}:{n}: a test of '{module}' may not include module "
                                    f"'{m.group(1)}' (allowed: {', '.join(sorted(allowed))})")
    return problems


def check(src, tests=None):
    problems = check_tests(tests) if tests else []
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
            if TEST_SUPPORT.search(line):
                problems.append(f"{path}:{n}: includes the test-support library (tests/support/), "
                                "which racepred does not link")
            if SHELL.search(line):
                problems.append(f"{path}:{n}: starts a shell; start programs with an argument "
                                "vector (recording/spawn.hpp)")
            if path.suffix != ".cpp" and module in CLEAN_HEADERS and THIRD_PARTY.search(line):
                problems.append(f"{path}:{n}: a public header of '{module}' includes a "
                                "third-party header; keep it in a .cpp file")
    return problems


def self_test(src, tests):
    with tempfile.TemporaryDirectory() as tmp:
        copy = pathlib.Path(tmp) / "racepred"
        shutil.copytree(src, copy)
        (copy / "exact" / "planted_bad_include.cpp").write_text(
            '#include "racepred/engines/engine.hpp"\n')
        (copy / "engines" / "planted_support.cpp").write_text(
            '#include "support/goldilocks_eager.hpp"\n')
        (copy / "recording" / "planted_shell.cpp").write_text(
            'void f() { popen("addr2line -e x", "r"); }\n')
        test_copy = pathlib.Path(tmp) / "tests"
        (test_copy / "unit").mkdir(parents=True)
        (test_copy / "unit" / "recording_planted_test.cpp").write_text(
            '#include "racepred/recording/finish.hpp"\n#include "racepred/cli/cli.hpp"\n')
        problems = check(copy, test_copy)
        expected = [
            "planted_bad_include.cpp:1: module 'exact' may not include module 'engines'",
            "planted_shell.cpp:1: starts a shell",
            "planted_support.cpp:1: includes the test-support library",
            "recording_planted_test.cpp:2: a test of 'recording' may not include module 'cli'",
        ]
        for e in expected:
            found = [p for p in problems if e in p]
            if not found:
                print(f"self-test: the planted violation was not reported: {e}")
                return 1
            print("self-test: reported as expected:")
            print("  " + found[0])
        return 0


def main(argv):
    here = pathlib.Path(__file__).resolve().parent
    args = [a for a in argv[1:] if a != "--self-test"]
    src = pathlib.Path(args[0]) if args else here.parent / "src" / "racepred"
    tests = pathlib.Path(args[1]) if len(args) > 1 else here.parent / "tests"
    if "--self-test" in argv:
        return self_test(src, tests)
    problems = check(src, tests)
    for p in problems:
        print(p)
    if not problems:
        print(f"check-includes: every include under {src} keeps the module arrows")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
