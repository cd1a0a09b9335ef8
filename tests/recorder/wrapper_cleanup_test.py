#!/usr/bin/env python3
"""racepred-cc / racepred-c++ leave nothing in TMPDIR, whatever way the command ends: a
successful link, a compile error, a link error, a compile-only (-c) call, an instrumented
shared library, and a wrapper killed by SIGTERM while it compiles.

Usage: wrapper_cleanup_test.py --bin-dir DIR --work DIR"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import time

GOOD = "#include <pthread.h>\nint x;\nvoid* f(void* a) { x++; return a; }\n" \
       "int main(void) { pthread_t t; pthread_create(&t, 0, f, 0); pthread_join(t, 0); return 0; }\n"
BAD_SYNTAX = "int main(void) { return }\n"
BAD_LINK = "void missing(void);\nint main(void) { missing(); return 0; }\n"
LIB = "int shared_value;\nint bump(void) { return ++shared_value; }\n"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bin-dir", required=True)
    p.add_argument("--work", required=True)
    args = p.parse_args()
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    tmp = os.path.join(work, "tmp")
    os.makedirs(tmp)
    env = dict(os.environ, TMPDIR=tmp)
    cc = os.path.join(args.bin_dir, "racepred-cc")
    sources = {}
    for name, text in [("good.c", GOOD), ("bad_syntax.c", BAD_SYNTAX), ("bad_link.c", BAD_LINK),
                       ("lib.c", LIB)]:
        sources[name] = os.path.join(work, name)
        with open(sources[name], "w") as f:
            f.write(text)
    out = os.path.join(work, "out")
    cases = [
        ("link", [cc, "-O1", "-o", out, sources["good.c"], "-lpthread"], True),
        ("compile error", [cc, "-o", out, sources["bad_syntax.c"]], False),
        ("link error", [cc, "-o", out, sources["bad_link.c"]], False),
        ("compile only", [cc, "-c", "-o", out + ".o", sources["good.c"]], True),
        ("shared library", [cc, "-shared", "-fPIC", "-o", out + ".so", sources["lib.c"]], True),
    ]
    failures = []
    for what, cmd, should_pass in cases:
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if (r.returncode == 0) != should_pass:
            failures.append(f"{what}: exit {r.returncode}, expected "
                            f"{'success' if should_pass else 'failure'}: {r.stderr.strip()}")
        left = os.listdir(tmp)
        if left:
            failures.append(f"{what}: left {left} in TMPDIR")
            for n in left:
                shutil.rmtree(os.path.join(tmp, n), ignore_errors=True)
    # Killed while compiling: wait until its temporary directory exists, then SIGTERM.
    proc = subprocess.Popen([cc, "-O2", "-o", out, sources["good.c"], "-lpthread"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while not os.listdir(tmp) and proc.poll() is None and time.time() < deadline:
        time.sleep(0.002)
    started = bool(os.listdir(tmp))
    proc.send_signal(signal.SIGTERM)
    proc.wait()
    time.sleep(0.2)  # the compiler the wrapper started may still be ending
    left = os.listdir(tmp)
    if left:
        failures.append(f"killed by SIGTERM: left {left} in TMPDIR")
    for f in failures:
        print(f, file=sys.stderr)
    if not failures:
        print(f"{len(cases) + 1} wrapper runs left TMPDIR empty "
              f"(SIGTERM {'during' if started else 'after'} the compile)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
