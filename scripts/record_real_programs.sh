#!/usr/bin/env bash
# Builds two real multithreaded programs from Debian source packages with racepred's compiler
# wrappers, records a run of each and analyzes it (docs/RECORDER.md, "Real programs"):
#   lbzip2 2.5 (C, pthreads: parallel bzip2) and pbzip2 1.1.13 (C++, pthreads).
#   scripts/record_real_programs.sh [BUILD_DIR] [WORK_DIR]   (defaults: build/release, /tmp/racepred-real)
# Needs a deb-src line for bookworm (added under /etc/apt/sources.list.d/ when missing; root or
# sudo) and libbz2-dev (pbzip2). Only the upstream tarballs (.orig) are used.
set -euo pipefail
BUILD=$(cd "${1:-build/release}" && pwd)
WORK=${2:-/tmp/racepred-real}
R=$BUILD/racepred
mkdir -p "$WORK"
cd "$WORK"

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
if ! grep -rqs "^Types: deb-src\|^deb-src" /etc/apt/sources.list /etc/apt/sources.list.d/; then
  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' |
    $SUDO tee /etc/apt/sources.list.d/racepred-src.sources >/dev/null
  $SUDO apt-get update -qq
fi
for p in lbzip2 pbzip2; do
  ls ${p}_*.orig.tar.* >/dev/null 2>&1 || apt-get source -qq --download-only "$p" || true
  ls ${p}_*.orig.tar.* >/dev/null 2>&1 || { echo "no source tarball for $p"; exit 2; }
done

# Workload: 1 MiB of compressible text (deterministic), compressed in 100 kB blocks (-1) by the
# uninstrumented build; the recorded run decompresses it with 4 threads (every memory access of
# the instrumented program is an event: compressing is ~100 events per byte, decompressing ~20).
if [ ! -f input.txt ]; then
  python3 -c "
import random
random.seed(1)
words = [''.join(random.choice('abcdefghij') for _ in range(random.randint(2, 9))) for _ in range(5000)]
out = []
size = 0
while size < 1 << 20:
    line = ' '.join(random.choice(words) for _ in range(12)) + '\n'
    out.append(line)
    size += len(line)
open('input.txt', 'w').write(''.join(out))
"
fi

now() { date +%s.%N; }
elapsed() { awk -v a="$(now)" -v b="$1" 'BEGIN {printf "%.2f", a - b}'; }

report() {  # NAME PLAIN_CMD... -- RECORDED_CMD...
  local name=$1
  shift
  local plain=() rec=()
  while [ "$1" != "--" ]; do plain+=("$1"); shift; done
  shift
  rec=("$@")
  local t0 t_plain t_rec
  t0=$(now); "${plain[@]}" >/dev/null; t_plain=$(elapsed "$t0")
  t0=$(now); "${rec[@]}" >/dev/null; t_run=$(elapsed "$t0")  # instrumented, not recording
  t0=$(now); "$R" record -q --keep-raw -o "$name.rpt" -- "${rec[@]}" >/dev/null; t_rec=$(elapsed "$t0")
  echo "== $name"
  echo "uninstrumented: ${t_plain} s; instrumented, not recording: ${t_run} s;" \
    "racepred record (run + conversion): ${t_rec} s"
  echo "raw recording: $(stat -c %s "$name.rpt.raw") bytes; trace: $(stat -c %s "$name.rpt") bytes"
  "$R" stats "$name.rpt" | sed -n '1,12p'
  "$R" check "$name.rpt" || true
  for e in fasttrack lockset wcp pwr; do
    t0=$(now)
    "$R" analyze -e "$e" --max-races 5 "$name.rpt" >"$name.$e.txt" 2>&1 || true
    echo "-- $e ($(elapsed "$t0") s): $(grep SUMMARY "$name.$e.txt" | sed 's/ in .*(/ (/')"
    grep -A3 "^WARNING" "$name.$e.txt" | head -20 || true
  done
  rm -f "$name.rpt.raw"
}

# lbzip2 (C, autotools)
if [ ! -x lbzip2-rec/src/lbzip2 ]; then
  rm -rf lbzip2-rec lbzip2-plain
  mkdir lbzip2-rec lbzip2-plain
  tar xf lbzip2_*.orig.tar.* -C lbzip2-rec --strip-components=1
  tar xf lbzip2_*.orig.tar.* -C lbzip2-plain --strip-components=1
  # gnulib 2.5 needs these with glibc >= 2.28 (Debian patches it; only the upstream tarball is used)
  GNULIB_FIX="-D_IO_ftrylockfile -D_IO_IN_BACKUP=0x100"
  (cd lbzip2-plain && ./configure -q CFLAGS="-O1 -g $GNULIB_FIX" && make -s -j2) >/dev/null 2>&1
  (cd lbzip2-rec && ./configure -q CC="$BUILD/bin/racepred-cc" CFLAGS="-O1 -g $GNULIB_FIX" && make -s -j2) >/dev/null 2>&1
fi
lbzip2-plain/src/lbzip2 -1 -n 4 -c input.txt >input.lbz2.bz2
report lbzip2 lbzip2-plain/src/lbzip2 -d -n 4 -c input.lbz2.bz2 -- lbzip2-rec/src/lbzip2 -d -n 4 -c input.lbz2.bz2

# pbzip2 (C++, plain Makefile)
if [ ! -x pbzip2-rec/pbzip2 ]; then
  rm -rf pbzip2-rec pbzip2-plain
  mkdir pbzip2-rec pbzip2-plain
  tar xf pbzip2_*.orig.tar.* -C pbzip2-rec --strip-components=1
  tar xf pbzip2_*.orig.tar.* -C pbzip2-plain --strip-components=1
  make -s -C pbzip2-plain CXXFLAGS="-O1 -g -pthread" >/dev/null 2>&1
  make -s -C pbzip2-rec CXX="$BUILD/bin/racepred-c++" CXXFLAGS="-O1 -g -pthread" >/dev/null 2>&1
fi
pbzip2-plain/pbzip2 -1 -p4 -c input.txt >input.pbz2.bz2
report pbzip2 pbzip2-plain/pbzip2 -d -p4 -c input.pbz2.bz2 -- pbzip2-rec/pbzip2 -d -p4 -c input.pbz2.bz2
