#!/usr/bin/env python3
"""One test program of `racepred explore` (docs/EXPLORE.md): builds it with racepred-cc, then
for each line `// explore: ARGS => EXPECTATIONS` of its source runs

    racepred explore --format json ARGS -- ./program

and checks the expectations (comma-separated):
  nothing        no finding, and the search is complete
  complete       the search is complete (every execution within the bound was explored)
  race:VAR       a data race on a variable named VAR
  norace:VAR     no data race on VAR
  deadlock / assertion / crash / hang   a program failure of that kind
  nofailure      no program failure (assertion, crash, deadlock, hang) at all
  reduces        (a dfs line) the same line with --unreduced (every memory access a branching
                 point) completes with exactly the same findings in more executions: the
                 Goldilocks reduction loses nothing and saves
  unreduced-same (a dfs line) as reduces, but the executions may be equal (a program whose
                 every access point with another thread enabled is racy)
  forked-same    the same line with --no-fork-server (a fresh exec per execution) runs the same
                 executions with the same findings, each first hit in the same execution
  jobs-same      the same line with --jobs 2 (two executions at once, each job a fork server):
                 random runs the very same executions, so the report is the same (executions,
                 choice points, each finding with its count and first execution); dfs, pct and
                 the portfolio deal the search to two shards: the same findings (and a
                 complete search stays complete); --jobs 0 is a usage error
  round-trip-same the same line with --round-trip (racepred asked at every choice point while
                 the program waits, instead of the runtime choosing in-process from the plan):
                 the very same executions (executions, choice points, each finding with its
                 count, first execution and the choices of its replay file; the coverage)
  sharded        (a complete dfs line) the same line as shards 0/3, 1/3, 2/3 (--shard-depth 4;
                 shard 1/3 from Bazel's TEST_SHARD_INDEX and TEST_TOTAL_SHARDS, which must
                 touch TEST_SHARD_STATUS_FILE; --shard 3/3 is a usage error):
                 each completes, together they find the same findings, and their executions
                 add up to the unsharded search's (with the Goldilocks reduction at least as
                 many: the shards' top choice points branch fully); `racepred merge` of the
                 three JSON reports has the same findings with the shards' counts summed
Every search runs on the fork server (JSON fork_server: true): the programs are fork-safe.
A line without --strategy runs the default portfolio.
Random and pct lines give their own --executions (and --seed: the same executions every run).
Each finding's replay file must reproduce it: `racepred explore --replay FILE` (with the line's
--timeout) reports the same finding. Runs are bounded in executions (--executions), never in time.

Usage: run_test.py --racepred BIN --bin-dir DIR --work DIR SOURCE"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys

BUDGET = ["--executions", "5000"]


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=1200, **kw)


def key(finding):
    if finding["kind"] == "data-race":
        return ("race", finding["variable"])
    return (finding.get("failure"),)


def check_shards(args, what, cli, budget, exe, replays, report):
    failures = []
    shards = []
    status = f"{replays}.shard-status"
    if os.path.exists(status):
        os.remove(status)
    for i in range(3):
        # Shard 1 comes from Bazel's test sharding variables, the others from --shard.
        shard, env = ["--shard", f"{i}/3"], None
        if i == 1:
            shard, env = [], dict(os.environ, TEST_SHARD_INDEX="1", TEST_TOTAL_SHARDS="3",
                                  TEST_SHARD_STATUS_FILE=status)
        out = run([args.racepred, "explore", "--format", "json"] + shard +
                  ["--shard-depth", "4", "--replay-dir", f"{replays}.shard{i}"] + budget +
                  shlex.split(cli) + ["--", exe], env=env)
        try:
            shards.append(json.loads(out.stdout))
        except json.JSONDecodeError:
            return [f"{what} --shard {i}/3: exit {out.returncode}, no JSON: {out.stderr.strip()}"]
        with open(f"{replays}.shard{i}.json", "w") as f:
            f.write(out.stdout)
        if not shards[-1]["complete"]:
            failures.append(f"{what} --shard {i}/3: not complete: {shards[-1]['coverage']}")
        if shards[-1]["shard"] != {"index": i, "count": 3}:
            failures.append(f"{what} --shard {i}/3: JSON shard {shards[-1].get('shard')}")
    if not os.path.exists(status):
        failures.append(f"{what}: TEST_SHARD_STATUS_FILE was not touched")
    bad = run([args.racepred, "explore", "--shard", "3/3", "--", exe])
    if bad.returncode != 2 or "--shard '3/3'" not in bad.stderr:
        failures.append(f"{what}: --shard 3/3 gave exit {bad.returncode}: {bad.stderr.strip()}")
    total = sum(s["executions"] for s in shards)
    reduced = "--unreduced" not in cli and "--sync-only" not in cli
    if total < report["executions"] or (not reduced and total != report["executions"]):
        failures.append(f"{what}: the shards ran {[s['executions'] for s in shards]} "
                        f"executions, the unsharded search {report['executions']}")
    mine = {key(f) for f in report["findings"]}
    theirs = set().union(*({key(f) for f in s["findings"]} for s in shards))
    if mine != theirs:
        failures.append(f"{what}: unsharded found {sorted(mine)}, the shards {sorted(theirs)}")
    merged = run([args.racepred, "merge", "--format", "json"] +
                 [f"{replays}.shard{i}.json" for i in range(3)])
    try:
        joined = json.loads(merged.stdout)
    except json.JSONDecodeError:
        return failures + [f"{what}: merge: exit {merged.returncode}, no JSON: {merged.stderr}"]
    counts = {}
    for s in shards:
        for f in s["findings"]:
            counts[key(f)] = counts.get(key(f), 0) + f["count"]
    got = {key(f): f["count"] for f in joined["findings"]}
    if got != counts:
        failures.append(f"{what}: merge gave {got}, the shards' counts sum to {counts}")
    print(f"{what}: shards {[s['executions'] for s in shards]} executions "
          f"(+ {[s['scout_executions'] for s in shards]} scouts), unsharded "
          f"{report['executions']}")
    return failures


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
    lines = [m for m in re.findall(r"^// explore: (.*)$", open(args.source).read(), re.M)]
    if not lines:
        print(f"{args.source}: no '// explore:' line", file=sys.stderr)
        return 1
    failures = []
    for n, line in enumerate(lines, 1):
        cli, expected = (s.strip() for s in line.split("=>"))
        expected = [e.strip() for e in expected.split(",")]
        replays = os.path.join(args.work, f"{name}.{n}.replays")
        budget = [] if "--executions" in cli else BUDGET
        cmd = ([args.racepred, "explore", "--format", "json", "--replay-dir", replays] + budget +
               shlex.split(cli) + ["--", exe])
        res = run(cmd)
        what = f"{name} [{cli}]"
        try:
            report = json.loads(res.stdout)
        except json.JSONDecodeError:
            failures.append(f"{what}: exit {res.returncode}, no JSON: {res.stderr.strip()}")
            continue
        findings = report["findings"]
        races = {f["variable"] for f in findings if f["kind"] == "data-race"}
        kinds = {f.get("failure") for f in findings if f["kind"] == "failure"}
        for e in expected:
            if e == "nothing":
                if findings:
                    failures.append(f"{what}: expected nothing, found {[key(f) for f in findings]}")
                if not report["complete"]:
                    failures.append(f"{what}: the search was not complete: {report['coverage']}")
            elif e == "complete":
                if not report["complete"]:
                    failures.append(f"{what}: the search was not complete: {report['coverage']}")
            elif e.startswith("race:"):
                if e[5:] not in races:
                    failures.append(f"{what}: no race on {e[5:]} (races: {sorted(races)})")
            elif e.startswith("norace:"):
                if e[7:] in races:
                    failures.append(f"{what}: a race on {e[7:]} was reported")
            elif e == "nofailure":
                if any(kinds):
                    failures.append(f"{what}: failures reported: {sorted(k for k in kinds if k)}")
            elif e in ("deadlock", "assertion", "crash", "hang"):
                if e not in kinds:
                    failures.append(f"{what}: no {e} (failures: {sorted(k for k in kinds if k)})")
            elif e in ("reduces", "unreduced-same"):
                full = run([args.racepred, "explore", "--format", "json", "--unreduced",
                            "--replay-dir", replays + ".unreduced"] + budget + shlex.split(cli) +
                           ["--", exe])
                try:
                    unreduced = json.loads(full.stdout)
                except json.JSONDecodeError:
                    failures.append(f"{what} --unreduced: exit {full.returncode}, no JSON")
                    continue
                mine = {key(f) for f in findings}
                theirs = {key(f) for f in unreduced["findings"]}
                if not unreduced["complete"] or not report["complete"]:
                    failures.append(f"{what}: a search did not complete: {report['coverage']} / "
                                    f"{unreduced['coverage']}")
                if mine != theirs:
                    failures.append(f"{what}: reduced found {sorted(mine)}, unreduced "
                                    f"{sorted(theirs)}")
                if report["executions"] > unreduced["executions"] or (
                        e == "reduces" and report["executions"] == unreduced["executions"]):
                    failures.append(f"{what}: reduced {report['executions']} executions, "
                                    f"unreduced {unreduced['executions']}")
                print(f"{what}: reduced {report['executions']} executions, unreduced "
                      f"{unreduced['executions']}")
            elif e == "forked-same":
                plain = run([args.racepred, "explore", "--format", "json", "--no-fork-server",
                             "--replay-dir", replays + ".exec"] + budget + shlex.split(cli) +
                            ["--", exe])
                try:
                    execd = json.loads(plain.stdout)
                except json.JSONDecodeError:
                    failures.append(f"{what} --no-fork-server: exit {plain.returncode}, no JSON")
                    continue
                firsts = sorted((key(f), f["first_execution"]) for f in findings)
                theirs = sorted((key(f), f["first_execution"]) for f in execd["findings"])
                if execd["fork_server"] or execd["executions"] != report["executions"] or \
                        firsts != theirs:
                    failures.append(f"{what}: forked {report['executions']} executions "
                                    f"{firsts}, re-exec ({execd['fork_server']}) "
                                    f"{execd['executions']} {theirs}")
            elif e == "jobs-same":
                two = run([args.racepred, "explore", "--format", "json", "--jobs", "2",
                           "--replay-dir", replays + ".jobs"] + budget + shlex.split(cli) +
                          ["--", exe])
                try:
                    jobs = json.loads(two.stdout)
                except json.JSONDecodeError:
                    failures.append(f"{what} --jobs 2: exit {two.returncode}, no JSON")
                    continue
                if "--strategy random" in cli:
                    def exact(r):
                        return (r["executions"], r["choice_points"],
                                sorted((key(f), f["first_execution"], f["count"])
                                       for f in r["findings"]))
                    if exact(jobs) != exact(report) or not jobs["fork_server"]:
                        failures.append(f"{what}: --jobs 2 gave {exact(jobs)}, --jobs 1 "
                                        f"{exact(report)}")
                else:
                    mine = sorted(set(key(f) for f in findings))
                    theirs = sorted(set(key(f) for f in jobs["findings"]))
                    if mine != theirs or (report["complete"] and not jobs["complete"]):
                        failures.append(f"{what}: --jobs 2 found {theirs} (complete "
                                        f"{jobs['complete']}), --jobs 1 {mine}")
                zero = run([args.racepred, "explore", "--jobs", "0", "--", exe])
                if zero.returncode != 2 or "--jobs" not in zero.stderr:
                    failures.append(f"{what}: --jobs 0: exit {zero.returncode}, expected a "
                                    f"usage error (2) naming --jobs: {zero.stderr.strip()}")
                print(f"{what}: --jobs 2: {jobs['executions']} executions, "
                      f"{len(jobs['findings'])} findings ({jobs['coverage']})")
            elif e == "round-trip-same":
                asked = run([args.racepred, "explore", "--format", "json", "--round-trip",
                             "--replay-dir", replays + ".asked"] + budget + shlex.split(cli) +
                            ["--", exe])
                try:
                    theirs = json.loads(asked.stdout)
                except json.JSONDecodeError:
                    failures.append(f"{what} --round-trip: exit {asked.returncode}, no JSON")
                    continue

                def same(r):
                    return (r["executions"], r["choice_points"], r["complete"], r["coverage"],
                            sorted((key(f), f["first_execution"], f["count"],
                                    json.load(open(f["replay"]))["choices"])
                                   for f in r["findings"]))
                if same(theirs) != same(report):
                    failures.append(f"{what}: --round-trip gave {same(theirs)}, the plan "
                                    f"{same(report)}")
                print(f"{what}: --round-trip: the same {theirs['executions']} executions, "
                      f"{theirs['choice_points']} choice points")
            elif e == "sharded":
                failures += check_shards(args, what, cli, budget, exe, replays, report)
            else:
                failures.append(f"{what}: unknown expectation {e}")
        if not report.get("fork_server"):
            failures.append(f"{what}: not run on the fork server: {report['notes']}")
        want = 1 if findings else 0
        if res.returncode != want:
            failures.append(f"{what}: exit code {res.returncode}, expected {want}")
        # Every finding's replay file reproduces it (within the line's --timeout, if it has one).
        words = shlex.split(cli)
        timeout = words[words.index("--timeout"):words.index("--timeout") + 2] \
            if "--timeout" in words else []
        for f in findings:
            rep = run([args.racepred, "explore", "--format", "json", "--replay", f["replay"]] +
                      timeout + ["--", exe])
            try:
                again = json.loads(rep.stdout)
            except json.JSONDecodeError:
                failures.append(f"{what}: replay of {f['replay']}: no JSON: {rep.stderr.strip()}")
                continue
            if key(f) not in {key(g) for g in again["findings"]}:
                failures.append(f"{what}: replaying {f['replay']} did not reproduce {key(f)}: "
                                f"{again['coverage']}")
        print(f"{what}: {report['executions']} executions, "
              f"{[(key(f), 'first', f['first_execution']) for f in findings]}; "
              f"{report['coverage']}")
    for f in failures:
        print(f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
