#!/usr/bin/env python3
"""The serial scheduler (RACEPRED_SCHEDULE=serial, docs/RECORDER.md "Scheduling hooks"):

- determinism: programs of tests/recorder recorded twice give the same trace, byte for byte
  (under `setarch -R`: without address-space randomisation stack addresses, which name stack
  variables, are the same too), and the trace is well-formed;
- deadlock: serial/abba.c (a lock-order inversion that deadlocks in every run) and
  serial/self_join.c end with "all threads blocked" naming each thread and what it waits for,
  exit status 125, and a well-formed trace;
- timed waits and sleeps are choices: serial/timed.c's 30-second timed lock, sleep and timed
  semaphore wait return at once as timeouts.

Usage: serial_schedule_test.py --racepred BIN --bin-dir DIR --work DIR"""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DETERMINISTIC = ["racy_counter.c", "mutex_counter.c", "hidden_race.c", "rwlock.c",
                 "sem_barrier_once.c", "atomic_flag.c", "heap_reuse.c", "condvar.cpp",
                 "cpp_thread_mutex.cpp", "shared_mutex.cpp", "sync_misc.cpp",
                 "recursive_static.cpp"]


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)


def build(args, source):
    name = os.path.splitext(os.path.basename(source))[0]
    cpp = source.endswith(".cpp")
    wrapper = os.path.join(args.bin_dir, "racepred-c++" if cpp else "racepred-cc")
    exe = os.path.join(args.work, name)
    out = run([wrapper, "-O1", "-g"] + (["-std=c++17"] if cpp else []) +
              ["-o", exe, source, "-lpthread"])
    if out.returncode != 0:
        raise SystemExit(f"building {source} failed:\n{out.stderr}")
    return exe


def record(args, exe, trace):
    env = dict(os.environ, RACEPRED_SCHEDULE="serial")
    return run(["setarch", "-R", args.racepred, "record", "-o", trace, "--", exe], env=env)


def well_formed(args, trace):
    return run([args.racepred, "check", trace]).returncode == 0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--racepred", required=True)
    p.add_argument("--bin-dir", required=True)
    p.add_argument("--work", required=True)
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    failures = []

    for source in DETERMINISTIC:
        exe = build(args, os.path.join(HERE, source))
        traces = [f"{exe}.{i}.rpt" for i in (1, 2)]
        for t in traces:
            rec = record(args, exe, t)
            if rec.returncode != 0:
                failures.append(f"{source}: record exited {rec.returncode}: {rec.stderr.strip()}")
        if failures:
            continue
        with open(traces[0], "rb") as a, open(traces[1], "rb") as b:
            if a.read() != b.read():
                failures.append(f"{source}: two serial runs gave different traces")
        if not well_formed(args, traces[0]):
            failures.append(f"{source}: the serial run's trace is not well-formed")

    deadlocks = {
        "abba.c": ["T0 waits for join of T1 (still running)", "T1 waits for mutex ",
                   " held by T2", "T2 waits for mutex ", " held by T1"],
        "self_join.c": ["T0 waits for join of T0 (itself)"],
    }
    for source, expected in deadlocks.items():
        exe = build(args, os.path.join(HERE, "serial", source))
        trace = exe + ".rpt"
        rec = record(args, exe, trace)
        if "all threads blocked" not in rec.stderr:
            failures.append(f"{source}: no 'all threads blocked' message: {rec.stderr.strip()}")
        failures += [f"{source}: '{e}' not in the message" for e in expected if e not in rec.stderr]
        if rec.returncode != 125:
            failures.append(f"{source}: record exited {rec.returncode}, expected 125")
        if not well_formed(args, trace):
            failures.append(f"{source}: the trace is not well-formed")

    exe = build(args, os.path.join(HERE, "serial", "timed.c"))
    start = time.monotonic()
    rec = record(args, exe, exe + ".rpt")
    elapsed = time.monotonic() - start
    if "timedlock timed out, sem_timedwait timed out" not in rec.stdout:
        failures.append(f"timed.c: unexpected output {rec.stdout.strip()!r} {rec.stderr.strip()}")
    if elapsed > 25:
        failures.append(f"timed.c: took {elapsed:.1f} s: the timed waits waited")

    for f in failures:
        print(f, file=sys.stderr)
    if not failures:
        print(f"serial schedule: {len(DETERMINISTIC)} programs deterministic, "
              f"{len(deadlocks)} deadlocks named, timed waits are choices")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
