#!/usr/bin/env python3
"""Pitfall 17 (linking mistakes): a program compiled with racepred-cc but linked with
`-fsanitize=thread` (which pulls in the real ThreadSanitizer runtime, dynamically or with
-static-libtsan) runs under ThreadSanitizer and records nothing. `racepred record` detects it
before running it and says what to do, with exit code 2; the same object linked with the
wrapper records.
Usage: real_tsan_link_test.py --racepred BIN --bin-dir DIR --work DIR SOURCE"""
import argparse
import os
import subprocess
import sys


def run(cmd):
    return subprocess.run(cmd, capture_output=True, text=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--racepred", required=True)
    p.add_argument("--bin-dir", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("source")
    args = p.parse_args()
    os.makedirs(args.work, exist_ok=True)
    obj = os.path.join(args.work, "prog.o")
    out = run([os.path.join(args.bin_dir, "racepred-cc"), "-O1", "-g", "-c", args.source, "-o", obj])
    if out.returncode != 0:
        print(f"compile failed: {out.stderr}", file=sys.stderr)
        return 1
    failures = []
    for name, extra in (("tsan_dynamic", []), ("tsan_static", ["-static-libtsan"])):
        exe = os.path.join(args.work, name)
        link = run(["gcc", "-fsanitize=thread"] + extra + [obj, "-o", exe, "-lpthread"])
        if link.returncode != 0:
            failures.append(f"{name}: link failed: {link.stderr}")
            continue
        trace = os.path.join(args.work, name + ".rpt")
        rec = run([args.racepred, "record", "-q", "-o", trace, "--", exe])
        if rec.returncode != 2 or "real ThreadSanitizer runtime" not in rec.stderr:
            failures.append(f"{name}: expected exit 2 naming the real ThreadSanitizer runtime, "
                            f"got {rec.returncode}: {rec.stderr.strip()}")
        if "WARNING: ThreadSanitizer" in rec.stdout + rec.stderr:
            failures.append(f"{name}: the program was run under ThreadSanitizer")
    # The same object linked by the wrapper records.
    exe = os.path.join(args.work, "wrapped")
    link = run([os.path.join(args.bin_dir, "racepred-cc"), obj, "-o", exe, "-lpthread"])
    rec = run([args.racepred, "record", "-q", "-o", os.path.join(args.work, "wrapped.rpt"), "--", exe])
    if link.returncode != 0 or rec.returncode != 0:
        failures.append(f"wrapper link: {link.stderr.strip()} / record: {rec.returncode} {rec.stderr.strip()}")
    for f in failures:
        print(f, file=sys.stderr)
    if not failures:
        print("real_tsan_link: both links refused clearly; the wrapper's link records")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
