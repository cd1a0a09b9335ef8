#!/usr/bin/env python3
"""Builds one test program of tests/recorder with racepred-cc / racepred-c++, records a run
with `racepred record`, and checks the expectations written in the program's comments:

  // expect ENGINE: none           the engine reports no race
  // expect ENGINE: race NAME      some reported race is on a variable whose name starts with NAME
  // expect ENGINE: no-race NAME   no reported race is on such a variable
  // expect check: well-formed     `racepred check` accepts the trace
  // record-args: ARGS             extra arguments of `racepred record`
  // retries: N                    re-record up to N times while an expectation fails (for
                                   programs whose verdict needs a particular schedule)

Usage: run_test.py --racepred BIN --bin-dir DIR --work DIR SOURCE   (RACEPRED_CC /
RACEPRED_CXX choose the compilers, e.g. clang and clang++)."""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys


def parse_expectations(path):
    expects, record_args, retries = [], [], 1
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*//\s*expect\s+([\w-]+):\s*(.*?)\s*$", line)
            if m:
                expects.append((m.group(1), m.group(2)))
            m = re.match(r"\s*//\s*record-args:\s*(.*?)\s*$", line)
            if m:
                record_args = shlex.split(m.group(1))
            m = re.match(r"\s*//\s*retries:\s*(\d+)", line)
            if m:
                retries = int(m.group(1))
    return expects, record_args, retries


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def check_once(args, exe, trace, expects, record_args):
    rec = run([args.racepred, "record", "-q", "-o", trace] + record_args + ["--", exe])
    if rec.returncode != 0:
        return [f"record failed ({rec.returncode}): {rec.stderr.strip()}"]
    failures = []
    engines = sorted({e for e, _ in expects if e != "check"})
    results = {}
    if engines:
        out = run([args.racepred, "analyze", "--format", "json", "-e", ",".join(engines), trace])
        if out.returncode not in (0, 1):
            return [f"analyze failed ({out.returncode}): {out.stderr.strip()}"]
        for r in json.loads(out.stdout)["results"]:
            results[r["engine"]] = r["races"]
    for engine, what in expects:
        if engine == "check":
            chk = run([args.racepred, "check", trace])
            ok = chk.returncode == 0
            if (what == "well-formed") != ok:
                failures.append(f"check: expected {what}, got: {chk.stdout.strip()} {chk.stderr.strip()}")
            continue
        races = results[engine]
        names = sorted({r["variable"] for r in races})
        if what == "none":
            if races:
                failures.append(f"{engine}: expected no race, got races on {names}")
        elif what.startswith("race "):
            name = what.split(None, 1)[1]
            if not any(n.startswith(name) for n in names):
                failures.append(f"{engine}: expected a race on {name}, got races on {names}")
        elif what.startswith("no-race "):
            name = what.split(None, 1)[1]
            bad = [n for n in names if n.startswith(name)]
            if bad:
                failures.append(f"{engine}: expected no race on {name}, got races on {bad}")
        else:
            failures.append(f"unknown expectation '{what}'")
    return failures


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--racepred", required=True)
    p.add_argument("--bin-dir", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("source")
    args = p.parse_args()
    expects, record_args, retries = parse_expectations(args.source)
    if not expects:
        print(f"{args.source}: no expectations", file=sys.stderr)
        return 2
    os.makedirs(args.work, exist_ok=True)
    name = os.path.splitext(os.path.basename(args.source))[0]
    cpp = args.source.endswith((".cpp", ".cc"))
    wrapper = os.path.join(args.bin_dir, "racepred-c++" if cpp else "racepred-cc")
    exe = os.path.join(args.work, name)
    build = run([wrapper, "-O1", "-g", "-o", exe, args.source, "-lpthread"])
    if build.returncode != 0:
        print(f"build failed:\n{build.stderr}", file=sys.stderr)
        return 1
    trace = os.path.join(args.work, name + ".rpt")
    for attempt in range(1, retries + 1):
        failures = check_once(args, exe, trace, expects, record_args)
        if not failures:
            print(f"{name}: {len(expects)} expectations hold (attempt {attempt})")
            return 0
    for f in failures:
        print(f"{args.source}: {f}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
