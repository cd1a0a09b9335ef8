#!/usr/bin/env python3
"""Builds one test program of tests/recorder with racepred-cc / racepred-c++, records a run
with `racepred record`, and checks the expectations written in the program's comments:

  // expect ENGINE: none           the engine reports no race
  // expect ENGINE: race NAME      some reported race is on a variable whose name starts with NAME
  // expect ENGINE: no-race NAME   no reported race is on such a variable
  // expect ENGINE: race-at NAME TEXT   some race on such a variable has a location (of either
                                   access) that contains TEXT
                                   (in NAME, `*` matches any text: `heap[*prog.c:12`)
  // expect ENGINE: deadlocks N     the engine reports exactly N deadlocks
  // expect ENGINE: stacks NAME F1,F2 / G1,G2   (a trace with call stacks) some race on such a
                                   variable has one access whose stack's functions start with
                                   F1, F2 and the other's with G1, G2 (in either order)
  // expect ENGINE: created NAME F1,F2   some race on such a variable whose threads were all
                                   created at stacks whose functions start with F1, F2
  // expect text ENGINE: REGEX     the text report of `analyze -e ENGINE` matches the Python
                                   regular expression (\n for a line break)
  // expect check: well-formed     `racepred check` accepts the trace
  // expect status: N               `racepred record` exits N: the program's exit status, or
                                   128 + the signal that killed it (default 0)
  // expect events: at-most N       the trace has at most N events
  // expect location-OP: TEXT      the location of every OP event (fork, join, acq, ...) of
                                   the trace contains TEXT (e.g. the user's file and line)
  // expect lock: NAME             the trace has a lock (acq, rel, req, racq, rrel, send, recv)
                                   named exactly NAME (names as the program declared them)
  // record-args: ARGS             extra arguments of `racepred record`
  // retries: N                    re-record up to N times while an expectation fails (for
                                   programs whose verdict needs a particular schedule)
  // child-expect ENGINE: ...      the same, for the trace of the program's one child process
                                   (fork), which `racepred record` writes to NAME.<pid>.rpt

Every build runs with a private TMPDIR, which must be empty afterwards: the wrappers leave
no temporary files behind.
Usage: run_test.py --racepred BIN --bin-dir DIR --work DIR SOURCE   (RACEPRED_CC /
RACEPRED_CXX choose the compilers, e.g. clang and clang++).
With --cmake SNIPPET the program is built instead by a CMake project written into the work
directory that includes the snippet (BUILD/racepred.cmake) and calls racepred_instrument(), as
docs/RECORDER.md tells users to."""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys


def parse_expectations(path):
    expects, child_expects, record_args, retries = [], [], [], 1
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*//\s*expect\s+text\s+([\w-]+):\s*(.*?)\s*$", line)
            if m:
                expects.append(("text " + m.group(1), m.group(2)))
                continue
            m = re.match(r"\s*//\s*(child-)?expect\s+([\w-]+):\s*(.*?)\s*$", line)
            if m:
                (child_expects if m.group(1) else expects).append((m.group(2), m.group(3)))
            m = re.match(r"\s*//\s*record-args:\s*(.*?)\s*$", line)
            if m:
                record_args = shlex.split(m.group(1))
            m = re.match(r"\s*//\s*retries:\s*(\d+)", line)
            if m:
                retries = int(m.group(1))
    return expects, child_expects, record_args, retries


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def child_traces(trace):
    stem, ext = os.path.splitext(trace)
    d = os.path.dirname(trace) or "."
    base = os.path.basename(stem) + "."
    return sorted(os.path.join(d, n) for n in os.listdir(d)
                  if n.startswith(base) and n.endswith(ext) and n[len(base):-len(ext)].isdigit())


def check_once(args, exe, trace, expects, child_expects, record_args):
    for old in child_traces(trace):
        os.remove(old)
    rec = run([args.racepred, "record", "-q", "-o", trace] + record_args + ["--", exe])
    status = int(dict(expects).get("status", "0"))
    if rec.returncode != status:
        return [f"record exited {rec.returncode}, expected {status}: {rec.stderr.strip()}"]
    failures = check_trace(args, trace, [e for e in expects if e[0] != "status"])
    children = child_traces(trace)
    if child_expects:
        if len(children) != 1:
            return failures + [f"expected one child trace, found {children}"]
        failures += [f"child: {f}" for f in check_trace(args, children[0], child_expects)]
    return failures


def std_unescape(name):
    """A name of STD text as racepred reads it: \\xHH is that byte (docs/FORMATS.md)."""
    return re.sub(rb"\\x([0-9a-fA-F]{2})", lambda m: bytes([int(m.group(1), 16)]),
                  name.encode("utf-8", "surrogateescape")).decode("utf-8", "surrogateescape")


def without_stacks(finding):
    """A finding without its call stacks, which STD cannot hold (docs/FORMATS.md)."""
    stacks = ("first_stack", "second_stack", "threads", "locks_held")
    f = {k: v for k, v in finding.items() if k not in stacks}
    for key, value in f.items():  # the locks held ({"first": [...], "second": [...]})
        if isinstance(value, dict) and set(value) == {"first", "second"}:
            f[key] = {side: [{k: v for k, v in lock.items() if k != "stack"} for lock in locks]
                      for side, locks in value.items()}
    return f


def functions(stack):
    return [frame["function"] for frame in stack or []]


def check_stacks(races, what):
    """`stacks NAME F1,F2 / G1,G2` and `created NAME F1,F2` (see the module comment)."""
    kind, rest = what.split(None, 1)
    name, spec = rest.split(None, 1)
    mine = [r for r in races if name_matches(r["variable"], name)]
    if kind == "stacks":
        want = [w.strip().split(",") for w in spec.split("/")]
        got = [(functions(r.get("first_stack")), functions(r.get("second_stack"))) for r in mine]
        def fits(pair):
            a, b = pair
            return ((a[:len(want[0])] == want[0] and b[:len(want[1])] == want[1]) or
                    (b[:len(want[0])] == want[0] and a[:len(want[1])] == want[1]))
        return [] if any(fits(p) for p in got) else [f"expected {what}, got stacks {got}"]
    want = spec.strip().split(",")
    got = [[functions(t.get("created_at"))[:len(want)] for t in r.get("threads", [])] for r in mine]
    return [] if any(g and all(f == want for f in g) for g in got) else [
        f"expected {what}, got creation stacks {got}"]


def check_text(args, trace, engine, regex):
    out = run([args.racepred, "analyze", "-e", engine, trace])
    if out.returncode not in (0, 1):
        return [f"analyze {trace} failed ({out.returncode}): {out.stderr.strip()}"]
    if re.search(regex.replace("\\n", "\n"), out.stdout):
        return []
    return [f"text {engine}: no match for {regex!r} in:\n{out.stdout}"]


def check_std_round_trip(args, trace, engines):
    """The trace written as STD reads back to the same races, names included."""
    std = trace + ".round-trip.std"
    conv = run([args.racepred, "convert", "--to", "std", "-o", std, trace])
    if conv.returncode != 0:
        return [f"convert --to std failed ({conv.returncode}): {conv.stderr.strip()}"]
    reports = []
    for t in (trace, std):
        out = run([args.racepred, "analyze", "--format", "json", "-e", ",".join(engines), t])
        if out.returncode not in (0, 1):
            return [f"analyze {t} failed ({out.returncode}): {out.stderr.strip()}"]
        reports.append([(r["engine"], r["race_count"], [without_stacks(f) for f in r["findings"]])
                        for r in json.loads(out.stdout)["results"]])
    os.remove(std)
    return [] if reports[0] == reports[1] else ["the trace written as STD reads back to other races"]


def check_size(args, trace, what):
    m = re.fullmatch(r"at-most (\d+)", what)
    if not m:
        return [f"unknown expectation 'events: {what}'"]
    std = run([args.racepred, "convert", "--to", "std", trace])
    if std.returncode != 0:
        return [f"convert failed ({std.returncode}): {std.stderr.strip()}"]
    n = sum(1 for line in std.stdout.splitlines() if line and not line.startswith("#"))
    return [f"events: expected at most {m.group(1)}, got {n}"] if n > int(m.group(1)) else []


def check_locations(args, trace, op, text):
    std = run([args.racepred, "convert", "--to", "std", trace])
    if std.returncode != 0:
        return [f"convert failed ({std.returncode}): {std.stderr.strip()}"]
    locations = [std_unescape(line.split("|", 2)[2]) for line in std.stdout.splitlines()
                 if "|" in line and line.split("|")[1].startswith(op + "(")]
    if not locations:
        return [f"location-{op}: no {op} event in the trace"]
    bad = sorted({loc for loc in locations if text not in loc})
    return [f"location-{op}: expected '{text}' in every location, got {bad}"] if bad else []


def check_lock(args, trace, name):
    std = run([args.racepred, "convert", "--to", "std", trace])
    if std.returncode != 0:
        return [f"convert failed ({std.returncode}): {std.stderr.strip()}"]
    locks = set()
    for line in std.stdout.splitlines():
        m = re.match(r"[^|#]*\|(acq|rel|req|racq|rrel|send|recv)\((.*)\)\|", line)
        if m:
            locks.add(std_unescape(m.group(2)))
    return [] if name in locks else [f"lock: expected a lock named {name!r}, got {sorted(locks)}"]


def name_matches(name, pattern):
    """`name` starts with `pattern`, in which `*` matches any text."""
    return re.match(".*".join(re.escape(p) for p in pattern.split("*")), name) is not None


def check_trace(args, trace, expects):
    failures = []
    engines = sorted({e for e, _ in expects if e not in ("check", "events", "lock") and
                      not e.startswith("location-") and not e.startswith("text ")})
    results = {}
    if engines:
        out = run([args.racepred, "analyze", "--format", "json", "-e", ",".join(engines), trace])
        if out.returncode not in (0, 1):
            return [f"analyze failed ({out.returncode}): {out.stderr.strip()}"]
        for r in json.loads(out.stdout)["results"]:
            results[r["engine"]] = r["findings"]
        failures += check_std_round_trip(args, trace, engines)
    for engine, what in expects:
        if engine == "events":
            failures += check_size(args, trace, what)
            continue
        if engine == "lock":
            failures += check_lock(args, trace, what)
            continue
        if engine.startswith("location-"):
            failures += check_locations(args, trace, engine[len("location-"):], what)
            continue
        if engine.startswith("text "):
            failures += check_text(args, trace, engine[len("text "):], what)
            continue
        if engine == "check":
            chk = run([args.racepred, "check", trace])
            ok = chk.returncode == 0
            if (what == "well-formed") != ok:
                failures.append(f"check: expected {what}, got: {chk.stdout.strip()} {chk.stderr.strip()}")
            continue
        races = [f for f in results[engine] if f["kind"] != "deadlock"]
        deadlocks = [f for f in results[engine] if f["kind"] == "deadlock"]
        names = sorted({r["variable"] for r in races})
        if what.startswith("deadlocks "):
            if len(deadlocks) != int(what.split()[1]):
                cycles = [[step["requested"] for step in d["cycle"]] for d in deadlocks]
                failures.append(f"{engine}: expected {what}, got {len(deadlocks)}: {cycles}")
        elif what == "none":
            if races:
                failures.append(f"{engine}: expected no race, got races on {names}")
        elif what.startswith("race "):
            name = what.split(None, 1)[1]
            if not any(name_matches(n, name) for n in names):
                failures.append(f"{engine}: expected a race on {name}, got races on {names}")
        elif what.startswith("race-at "):
            _, name, text = what.split(None, 2)
            at = sorted({loc for r in races if name_matches(r["variable"], name)
                         for loc in (r["first_location"], r["second_location"]) if loc})
            if not any(text in loc for loc in at):
                failures.append(f"{engine}: expected a race on {name} at {text}, got {at}")
        elif what.startswith(("stacks ", "created ")):
            failures += check_stacks(races, what)
        elif what.startswith("no-race "):
            name = what.split(None, 1)[1]
            bad = [n for n in names if name_matches(n, name)]
            if bad:
                failures.append(f"{engine}: expected no race on {name}, got races on {bad}")
        else:
            failures.append(f"unknown expectation '{what}'")
    return failures


def build_with_wrapper(args, name, cpp):
    """Builds SOURCE with racepred-cc / racepred-c++; the executable's path, or None."""
    wrapper = os.path.join(args.bin_dir, "racepred-c++" if cpp else "racepred-cc")
    exe = os.path.join(args.work, name)
    tmp = os.path.join(args.work, name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    # C++17 for every C++ program (std::shared_mutex): clang 14 defaults to C++14, gcc 12 to 17.
    std = ["-std=c++17"] if cpp else []
    build = run([wrapper, "-O1", "-g"] + std + ["-o", exe, args.source, "-lpthread"],
                env=dict(os.environ, TMPDIR=tmp))
    if build.returncode != 0:
        print(f"build failed:\n{build.stderr}", file=sys.stderr)
        return None
    if os.listdir(tmp):
        print(f"{wrapper} left files in TMPDIR: {os.listdir(tmp)}", file=sys.stderr)
        return None
    os.rmdir(tmp)
    return exe


def build_with_cmake(args, name):
    """Configures and builds SOURCE with a CMake project that uses the snippet."""
    proj = os.path.join(args.work, name + ".cmake")
    shutil.rmtree(proj, ignore_errors=True)
    os.makedirs(proj)
    with open(os.path.join(proj, "CMakeLists.txt"), "w") as f:
        f.write(f"""cmake_minimum_required(VERSION 3.16)
project(snippet_{name} C CXX)
set(CMAKE_CXX_STANDARD 17)
include("{args.cmake}")
add_executable({name} "{os.path.abspath(args.source)}")
target_compile_options({name} PRIVATE -O1)
racepred_instrument({name})
""")
    build_dir = os.path.join(proj, "build")
    for cmd in (["cmake", "-S", proj, "-B", build_dir, "-DCMAKE_BUILD_TYPE="],
                ["cmake", "--build", build_dir]):
        out = run(cmd)
        if out.returncode != 0:
            print(f"{' '.join(cmd)} failed:\n{out.stdout}\n{out.stderr}", file=sys.stderr)
            return None
    return os.path.join(build_dir, name)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--racepred", required=True)
    p.add_argument("--bin-dir", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--cmake", help="build with this CMake snippet instead of the wrappers")
    p.add_argument("source")
    args = p.parse_args()
    expects, child_expects, record_args, retries = parse_expectations(args.source)
    if not expects:
        print(f"{args.source}: no expectations", file=sys.stderr)
        return 2
    os.makedirs(args.work, exist_ok=True)
    name = os.path.splitext(os.path.basename(args.source))[0]
    cpp = args.source.endswith((".cpp", ".cc"))
    exe = build_with_cmake(args, name) if args.cmake else build_with_wrapper(args, name, cpp)
    if exe is None:
        return 1
    trace = os.path.join(args.work, name + ".rpt")
    for attempt in range(1, retries + 1):
        failures = check_once(args, exe, trace, expects, child_expects, record_args)
        if not failures:
            print(f"{name}: {len(expects)} expectations hold (attempt {attempt})")
            return 0
    for f in failures:
        print(f"{args.source}: {f}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
