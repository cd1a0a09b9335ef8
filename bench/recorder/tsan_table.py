#!/usr/bin/env python3
"""racepred beside ThreadSanitizer on the recorder's test programs (docs/RECORDER.md,
"Beside ThreadSanitizer").

For every program of tests/recorder (or the ones named):
  - ThreadSanitizer: built with `CC -fsanitize=thread -g -O1`, run RUNS times; its data races
    are the distinct pairs of source lines of the two accesses (the innermost frame of each
    access stack that is in the program's own file) with the global TSan names, over all runs;
  - racepred: built with racepred-cc / racepred-c++ (-g -O1, as the tests), recorded ONCE
    (with the program's `record-args`), the trace and those of its child processes analysed
    by fasttrack, shb, wcp and pwr-cs.
A ThreadSanitizer race counts as found by an engine when the engine reports a race at the same
pair of lines, or on the same global with one of the two accesses at the same line (TSan and
FastTrack may pair an access with different earlier accesses of one race). A program is
race-free when its test expects no race of any engine (its `// expect ENGINE: race ...` lines,
docs/RECORDER.md "Tests").

Prints a Markdown table: program, kind, ThreadSanitizer's races (their two lines), then per
engine "TSan's races it found / TSan's races; all the races it reports", and the rows that
break the rule (a TSan race fasttrack misses, unless it is one of ThreadSanitizer's false
alarms listed in TSAN_FALSE_ALARMS; a race reported on a race-free program).
Exit 1 when such a row exists.

  bench/recorder/tsan_table.py [--build build/release] [--runs 10] [--cc gcc] [PROGRAM...]
"""
import argparse
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

ENGINES = ["fasttrack", "shb", "wcp", "pwr-cs"]
# ThreadSanitizer's false alarms on these programs (program, global): explained in
# docs/RECORDER.md "Beside ThreadSanitizer"; listed, not counted as misses.
TSAN_FALSE_ALARMS = {
    ("atomic_fence.c", "payload"),  # fences are not modelled
    ("file_lock.c", "lines"),  # flockfile/funlockfile are not intercepted (gcc 12)
    ("fork_process.c", "value"),  # the child's own copy against the parent's thread
    ("timed_locks.cpp", "guarded"),  # pthread_mutex_clocklock is not intercepted (gcc 12)
    ("timed_locks.cpp", "table"),  # nor pthread_rwlock_clockwrlock
}
FRAME = re.compile(r"^\s*#\d+ .*? (\S+?):(\d+)(?::\d+)? ")


def run(cmd, timeout=120, **kw):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(cmd, 124, e.stdout or "", e.stderr or "")


def expectations(src):
    record_args, racy = [], False
    with open(src) as f:
        for line in f:
            m = re.match(r"\s*//\s*record-args:\s*(.*?)\s*$", line)
            if m:
                record_args = shlex.split(m.group(1))
            if re.match(r"\s*//\s*(child-)?expect\s+[\w-]+:\s*(race|race-at|stacks|created)\s",
                        line):
                racy = True
    return record_args, racy


def line_of(location, base):
    """'prog.c:12:5' (or a frame's file:line) -> 12 when the file is the program's, else None."""
    if not location:
        return None
    m = re.search(r"([^\s:()]+):(\d+)", location)
    if not m or os.path.basename(m.group(1)) != base:
        return None
    return int(m.group(2))


def tsan_races(text, base):
    """The data races of one ThreadSanitizer output: (earlier line, later line, global or
    None) — the later access is the one TSan lists first, the global its 'Location is global'."""
    races = set()
    for block in text.split("WARNING: ThreadSanitizer: ")[1:]:
        if not block.startswith("data race") and not block.startswith("heap-use-after-free"):
            continue
        lines, current, in_stack, var = [], None, False, None
        for row in block.splitlines():
            if re.match(r"\s*(Previous )?(atomic )?(read|write|Read|Write|Atomic)", row, re.I) and \
                    " at 0x" in row:
                if in_stack:
                    lines.append(current)
                current, in_stack = None, True
                continue
            if in_stack:
                m = FRAME.match(row)
                if m:
                    if current is None and os.path.basename(m.group(1)) == base:
                        current = int(m.group(2))
                elif row.strip() == "":
                    lines.append(current)
                    in_stack = False
            m = re.match(r"\s*Location is global '([^']+)'", row)
            if m:
                var = m.group(1)
            if row.startswith("SUMMARY:"):
                break
        if in_stack:
            lines.append(current)
        if len(lines) >= 2 and lines[0] is not None and lines[1] is not None:
            races.add((min(lines[:2]), max(lines[:2]), var))
    return races


def found(race, reported):
    """Whether an engine's races (earlier line, later line, variable) hold ThreadSanitizer's
    race (two lines, its global or None): the same pair of lines, or one of its lines on the
    same variable (a global TSan names; FastTrack and TSan may pair an access with different
    earlier accesses of one race, as each keeps only some of the earlier accesses)."""
    one, two, var = race
    for b, a, v in reported:
        if {b, a} == {one, two}:
            return True
        if var is not None and re.split(r"[.\[+@ ]", v)[0] == var and (a in race or b in race):
            return True
    return False


def build(cmd, out):
    b = run(cmd + ["-o", out])
    if b.returncode != 0:
        raise RuntimeError(f"build failed: {' '.join(cmd)}\n{b.stderr}")


def one_program(args, src, work):
    name = os.path.splitext(os.path.basename(src))[0]
    base = os.path.basename(src)
    cpp = src.endswith((".cpp", ".cc"))
    std = ["-std=c++17"] if cpp else []
    record_args, racy = expectations(src)
    cc = args.cxx if cpp else args.cc
    row = {"program": base, "racy": racy, "engines": {}}

    tsan_exe = os.path.join(work, name + ".tsan")
    build([cc, "-fsanitize=thread", "-g", "-O1"] + std + [src, "-lpthread"], tsan_exe)
    tsan, reported = set(), 0
    env = dict(os.environ, TSAN_OPTIONS="halt_on_error=0 report_signal_unsafe=0 log_path=stderr")
    for _ in range(args.runs):
        out = run([tsan_exe], timeout=60, env=env, cwd=work)
        found = tsan_races(out.stderr + out.stdout, base)
        reported += bool(found) or "ThreadSanitizer: data race" in out.stderr
        tsan |= found
    row["tsan"], row["tsan_runs"] = tsan, reported

    wrapper = os.path.join(args.build, "bin", "racepred-c++" if cpp else "racepred-cc")
    rec_exe = os.path.join(work, name + ".rec")
    build([wrapper, "-O1", "-g"] + std + [src, "-lpthread"], rec_exe)
    trace = os.path.join(work, name + ".rpt")
    rec = run([os.path.join(args.build, "racepred"), "record", "-q", "-o", trace] + record_args +
              ["--", rec_exe], cwd=work)
    if not os.path.exists(trace):
        raise RuntimeError(f"record failed ({rec.returncode}): {rec.stderr}")
    # The trace, and those of the processes it forked (NAME.<pid>.rpt): TSan reports theirs too.
    traces = [trace] + sorted(os.path.join(work, f) for f in os.listdir(work)
                              if re.fullmatch(re.escape(name) + r"\.\d+\.rpt", f))
    for t in traces:
        out = run([os.path.join(args.build, "racepred"), "analyze", "--format", "json",
                   "--max-races", "100000", "-e", ",".join(ENGINES), t])
        if out.returncode not in (0, 1):
            raise RuntimeError(f"analyze failed ({out.returncode}): {out.stderr}")
        for r in json.loads(out.stdout)["results"]:
            races, total = row["engines"].get(r["engine"], (set(), 0))
            for f in r["findings"]:
                if f["kind"] == "deadlock":
                    continue
                a = line_of(f.get("first_location"), base)
                b = line_of(f.get("second_location"), base)
                if b is not None:
                    races.add((a, b, f.get("variable") or ""))
            total += r["race_count"]
            row["engines"][r["engine"]] = (races, total)
    return row


def lines(race):
    return f"{race[0]}/{race[1]}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default="build/release")
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--cc", default="gcc")
    p.add_argument("--cxx", default="g++")
    p.add_argument("programs", nargs="*")
    args = p.parse_args()
    args.build = os.path.abspath(args.build)
    here = os.path.dirname(os.path.abspath(__file__))
    programs = args.programs or sorted(
        glob.glob(os.path.join(here, "..", "..", "tests", "recorder", "*.c")) +
        glob.glob(os.path.join(here, "..", "..", "tests", "recorder", "*.cpp")))
    work = tempfile.mkdtemp(prefix="rp_tsan_table.")
    rows, problems = [], []
    try:
        for src in programs:
            try:
                rows.append(one_program(args, os.path.abspath(src), work))
            except RuntimeError as e:
                problems.append(f"{os.path.basename(src)}: {e}")
            for f in os.listdir(work):  # (traces and programs of the row)
                path = os.path.join(work, f)
                shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(f"| program | kind | ThreadSanitizer ({args.runs} runs) | " +
          " | ".join(ENGINES) + " |")
    print("|---|---|---|" + "---|" * len(ENGINES))
    bad, known = [], []
    total_found = 0
    for row in rows:
        tsan = sorted(row["tsan"], key=lambda r: (r[0], r[1], r[2] or ""))
        cells = []
        for e in ENGINES:
            races, total = row["engines"].get(e, (set(), 0))
            n = sum(1 for r in tsan if found(r, races))
            cells.append(f"{n}/{len(tsan)}; {total}" if tsan else f"{total}")
        kind = "racy" if row["racy"] else "race-free"
        t = (f"{len(tsan)} ({', '.join(lines(x) for x in tsan)})" if tsan else "0")
        print(f"| {row['program']} | {kind} | {t} | " + " | ".join(cells) + " |")
        ft = row["engines"].get("fasttrack", (set(), 0))[0]
        total_found += sum(1 for r in tsan if found(r, ft))
        missed = [r for r in tsan if not found(r, ft)]
        alarms = [r for r in missed if (row["program"], r[2]) in TSAN_FALSE_ALARMS]
        if alarms:
            known.append(f"{row['program']}: ThreadSanitizer's false alarm at lines " +
                         ", ".join(lines(x) + f" ({x[2]})" for x in alarms))
        missed = [r for r in missed if r not in alarms]
        if missed:
            bad.append(f"{row['program']}: fasttrack misses ThreadSanitizer's race at lines " +
                       ", ".join(lines(x) + (f" ({x[2]})" if x[2] else "") for x in missed))
        if not row["racy"]:
            for e in ENGINES:
                if row["engines"].get(e, (set(), 0))[1]:
                    bad.append(f"{row['program']}: {e} reports a race on a race-free program")
    print()
    print(f"{len(rows)} programs; ThreadSanitizer races: {sum(len(r['tsan']) for r in rows)}, "
          f"found by fasttrack from one recorded run: {total_found}")
    for k in known:
        print("- " + k)
    for b in bad:
        print("- NOT FOUND / FALSE: " + b)
    for pr in problems:
        print("- not measured: " + pr)
    return 1 if bad or problems else 0


if __name__ == "__main__":
    sys.exit(main())
