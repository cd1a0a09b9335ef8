#!/usr/bin/env python3
"""One test program of `racepred confirm` (docs/WITNESSES.md, "Confirming on the program"):
builds it with racepred-cc, then for each line `// confirm: ARGS => EXPECTATIONS` of its source
runs

    racepred confirm --format json ARGS -- ./program

and checks the expectations (comma-separated), each about the race on a variable VAR:
  reproduced:VAR     reproduced within 100 executions (and the exit code is 1); its replay file
                     shows the race again under `racepred explore --replay`
  notreproduced:VAR  predicted (some engine reports it) and not reproduced
  witnessed:VAR      some engine's label for it is witnessed (a checked witness)
  possible:VAR       some engine's label for it is possible (a heuristic warning)
  failure:KIND       the reproducing execution failed so (assertion, crash, ...)
  method:VAR=M       reproduced by method M: witness (following a witness's order) or hold
                     (holding one thread at an access); a reproduced race's JSON shows both
                     accesses' threads and call stacks
  witnessdiverged:VAR  following the race's witness diverged: its "divergence" says at which
                     event, which thread, what it did and what the witness has
  divergence:VAR=TEXT  that divergence contains TEXT
Before each line the file PROGRAM.ran (a program's input, tests/confirm/witness_diverges.c) is
removed.
Runs are bounded in executions, never in time.

Usage: run_test.py --racepred BIN --bin-dir DIR --work DIR SOURCE"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys

MAX_EXECUTIONS = 100


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=600, **kw)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--racepred", required=True)
    p.add_argument("--bin-dir", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("source")
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    name = os.path.splitext(os.path.basename(args.source))[0]
    exe = os.path.join(args.work, name)
    out = run([os.path.join(args.bin_dir, "racepred-cc"), "-O1", "-g", "-o", exe, args.source,
               "-lpthread"])
    if out.returncode != 0:
        print(f"building {args.source} failed:\n{out.stderr}", file=sys.stderr)
        return 1
    lines = re.findall(r"^// confirm: (.*)$", open(args.source).read(), re.M)
    if not lines:
        print(f"{args.source}: no '// confirm:' line", file=sys.stderr)
        return 1
    failures = []
    for n, line in enumerate(lines, 1):
        cli, expected = (s.strip() for s in line.split("=>"))
        expected = [e.strip() for e in expected.split(",")]
        replays = os.path.join(args.work, f"{name}.{n}.replays")
        budget = [] if "--executions" in cli else ["--executions", str(MAX_EXECUTIONS)]
        cmd = ([args.racepred, "confirm", "--format", "json", "--replay-dir", replays] + budget +
               shlex.split(cli) + ["--", exe])
        if os.path.exists(exe + ".ran"):
            os.remove(exe + ".ran")
        res = run(cmd, cwd=args.work)
        what = f"{name} [{cli}]"
        try:
            report = json.loads(res.stdout)
        except json.JSONDecodeError:
            failures.append(f"{what}: exit {res.returncode}, no JSON: {res.stderr.strip()}")
            continue
        races = {}
        for r in report["races"]:
            races.setdefault(r["variable"], []).append(r)

        def of(var):
            if var not in races:
                failures.append(f"{what}: no predicted race on {var} (races: {sorted(races)})")
                return []
            return races[var]

        reproduced = [r for rs in races.values() for r in rs if r["status"] == "reproduced"]
        for e in expected:
            kind, _, arg = e.partition(":")
            if kind == "reproduced":
                got = [r for r in of(arg) if r["status"] == "reproduced"]
                if not got:
                    failures.append(f"{what}: the race on {arg} was not reproduced: "
                                    f"{[r['note'] for r in of(arg)]}")
                for r in got:
                    if r["reproduced_in"] > MAX_EXECUTIONS:
                        failures.append(f"{what}: reproduced only in execution {r['reproduced_in']}")
                    if r["diverged"]:
                        failures.append(f"{what}: the replay diverged: {r['note']}")
                    # The replay file runs the reproducing execution again: fasttrack sees the
                    # two accesses back to back with nothing ordering them.
                    rep = run([args.racepred, "explore", "--format", "json", "--replay",
                               r["replay"], "-e", "fasttrack", "--", exe], cwd=args.work)
                    try:
                        again = json.loads(rep.stdout)
                    except json.JSONDecodeError:
                        failures.append(f"{what}: replay of {r['replay']}: {rep.stderr.strip()}")
                        continue
                    if arg not in {f.get("variable") for f in again["findings"]}:
                        failures.append(f"{what}: replaying {r['replay']} shows no race on {arg}")
            elif kind == "notreproduced":
                for r in of(arg):
                    if r["status"] == "reproduced":
                        failures.append(f"{what}: the race on {arg} was reproduced")
                    elif r["executions"] == 0:
                        failures.append(f"{what}: the race on {arg} was never tried: {r['note']}")
            elif kind in ("witnessed", "possible"):
                if not any(e2["confidence"] == kind for r in of(arg) for e2 in r["engines"]):
                    failures.append(f"{what}: no engine labels the race on {arg} {kind}")
            elif kind == "method":
                var, _, method = arg.partition("=")
                got = [r for r in of(var) if r["status"] == "reproduced"]
                if not got or any(r["method"] != method for r in got):
                    failures.append(f"{what}: the race on {var} was not reproduced by {method}: "
                                    f"{[(r['method'], r['note']) for r in of(var)]}")
                for r in got:
                    for side in ("first", "second"):
                        a = r[side]
                        if not a["thread"] or not a["stack"] or not a["stack"][0]:
                            failures.append(f"{what}: no thread or stack for the {side} access: {a}")
                    w = r["witness"]
                    if method == "witness" and (not w or not w["reproduced"] or w["divergence"]
                                                or w["steps_run"] == 0 or w["events"] == 0):
                        failures.append(f"{what}: the witness attempt does not say it reproduced: {w}")
            elif kind == "witnessdiverged":
                for r in of(arg):
                    w = r["witness"]
                    if not w or w["reproduced"] or not re.match(
                            r"diverged at event \d+ \(thread \S+ did .+ where the witness has .+\)$",
                            w["divergence"] or ""):
                        failures.append(f"{what}: the witness of the race on {arg} did not diverge "
                                        f"as expected: {w}")
                    if r["status"] != "reproduced" and (not r["diverged"] or
                                                        "diverged at event" not in r["note"]):
                        failures.append(f"{what}: the race on {arg} is not marked diverged: {r}")
            elif kind == "divergence":
                var, _, text = arg.partition("=")
                for r in of(var):
                    if text not in ((r["witness"] or {}).get("divergence") or ""):
                        failures.append(f"{what}: the divergence of the race on {var} does not "
                                        f"say '{text}': {r['witness']}")
            elif kind == "failure":
                if not any((r["failure"] or "").startswith(arg) for r in reproduced):
                    failures.append(f"{what}: no reproduced race made the program fail with "
                                    f"{arg}: {[r['failure'] for r in reproduced]}")
            else:
                failures.append(f"{what}: unknown expectation {e}")
        want = 1 if reproduced else 0
        if res.returncode != want:
            failures.append(f"{what}: exit code {res.returncode}, expected {want}: {res.stderr}")
        print(f"{what}: {report['executions']} executions; " +
              "; ".join(f"{r['variable']}: {r['status']} (execution {r['reproduced_in']}, "
                        f"{r['executions']} tried, method {r['method']})"
                        for r in report["races"]))
    for f in failures:
        print(f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
