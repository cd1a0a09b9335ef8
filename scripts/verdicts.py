#!/usr/bin/env python3
"""Every engine's verdicts on a set of traces, in a canonical form that survives report changes.

    scripts/verdicts.py RACEPRED OUT_DIR [--presets DIR] [--cut N] TRACE_OR_DIR...

Runs `RACEPRED analyze --format json` with every engine on every trace (online engines together
in one run; offline engines one at a time, each with a time limit) and writes one file per trace
to OUT_DIR: for each engine the race pairs (first, second, variable, access kind), the counts,
the racy events and locations. Timings, the schema version and the layout of the JSON are left
out, so two builds whose reports differ only in form give identical files: compare them with
`diff -r OLD NEW`. Reads reports of schema racepred/1 and racepred/2.

--presets DIR adds the scale presets (8-thread baseline, xalan, tradebeans, cassandra, goroutines)
at --cut events each (default 300000), generated into DIR with RACEPRED itself (online engines
only there).
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys

OFFLINE_LIMIT = 60  # seconds per offline engine and trace
RACE_KINDS = ("data-race", "read-read-violation")


def engines(racepred):
    out = subprocess.run([racepred, "engines"], capture_output=True, text=True, check=True).stdout
    online, offline = [], []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[1] in ("online", "offline"):
            (online if parts[1] == "online" else offline).append(parts[0])
    return online, offline


def race_fields(race):
    # racepred/1 calls the access kind "kind"; racepred/2 calls it "access" and keeps "kind" for
    # the finding's kind.
    access = race.get("access", race.get("kind"))
    return [race.get("first"), race.get("second"), race.get("variable"), access]


def canonical(report):
    """engine -> verdict, from a racepred/1 or racepred/2 report."""
    result = {}
    for r in report.get("results", []):
        findings = r.get("findings")
        races = r.get("races")
        if findings is not None:
            races = [f for f in findings if f.get("kind") in RACE_KINDS]
            others = [f for f in findings if f.get("kind") not in RACE_KINDS]
        else:
            others = []
        verdict = {
            "races": sorted((race_fields(x) for x in races or []), key=lambda v: (v[0] or 0, v[1] or 0)),
            "other_findings": others,
        }
        for key in ("race_count", "racy_events", "racy_event_count", "racy_locations",
                    "racy_location_count", "truncated", "error"):
            if key in r:
                verdict[key] = r[key]
        result[r.get("engine")] = verdict
    return result


def analyze(racepred, trace, engine_list, timeout=None):
    cmd = [racepred, "analyze", "--format", "json", "--max-races", "100000", "-e",
           ",".join(engine_list), str(trace)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {e: {"error": f"timeout {timeout}s"} for e in engine_list}
    if p.returncode not in (0, 1):
        return {e: {"error": f"exit {p.returncode}: {p.stderr.strip().splitlines()[-1:]}"}
                for e in engine_list}
    return canonical(json.loads(p.stdout))


def traces_of(paths):
    for p in paths:
        p = pathlib.Path(p)
        if p.is_dir():
            yield from sorted(x for x in p.rglob("*") if x.is_file() and x.suffix in (".std", ".log"))
        else:
            yield p


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("racepred")
    ap.add_argument("out")
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--presets")
    ap.add_argument("--cut", type=int, default=300000)
    args = ap.parse_intermixed_args()
    online, offline = engines(args.racepred)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    jobs = [(t, True) for t in traces_of(args.paths)]
    if args.presets:
        d = pathlib.Path(args.presets)
        d.mkdir(parents=True, exist_ok=True)
        for preset in ("baseline", "xalan", "tradebeans", "cassandra", "goroutines"):
            f = d / f"{preset}-{args.cut}.std"
            if not f.exists():
                gen = [args.racepred, "generate", "--seed", "1", "--events", str(args.cut), "-o",
                       str(f)]
                gen += ["--threads", "8"] if preset == "baseline" else ["--preset", preset]
                subprocess.run(gen, check=True)
            jobs.append((f, False))
    for trace, with_offline in jobs:
        verdicts = analyze(args.racepred, trace, online)
        if with_offline:
            for e in offline:
                verdicts.update(analyze(args.racepred, trace, [e], timeout=OFFLINE_LIMIT))
        name = str(trace).replace("/", "_").lstrip("_") + ".json"
        (out / name).write_text(json.dumps(verdicts, indent=1, sort_keys=True) + "\n")
        print(f"{trace}: {sum(v.get('race_count', 0) for v in verdicts.values())} races over "
              f"{len(verdicts)} engines", file=sys.stderr)


if __name__ == "__main__":
    main()
