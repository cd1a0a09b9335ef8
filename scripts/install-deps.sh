#!/usr/bin/env bash
# Installs every Debian 12 package racepred's build, tests and benchmarks need.
# Idempotent: when everything is installed it only checks and returns.
set -euo pipefail

PACKAGES=(
  g++ cmake make           # compiler and build
  libcli11-dev             # command-line parsing
  nlohmann-json3-dev       # JSON reports
  libfmt-dev               # text formatting
  zlib1g-dev libzstd-dev liblzma-dev  # reading .gz, .zst and .xz traces without unpacking them
  liblz4-dev pkgconf       # LZ4 blocks of the binary trace format (fastest to read); pkg-config finds liblz4
  libgtest-dev libgmock-dev  # tests
  libbenchmark-dev         # benchmarks (make bench)
  clang-format             # make format / format-check
  clang libclang-rt-14-dev # libFuzzer targets (make fuzz, .ci/run): clang's fuzzer runtime
  python3                  # independent counts in tests and bench scripts
  binutils                 # addr2line and nm: racepred record names locations and globals
  llvm                     # llvm-symbolizer: racepred record's locations get columns (file:line:col)
  gzip zstd xz-utils       # compressed seeds of the fuzz corpus and compressed-input tests
  bsdutils                 # script(1): the progress-line test runs racepred on a terminal
  python3-jsonschema       # the SARIF test validates against the SARIF 2.1.0 schema
  man-db zsh               # the install test renders the man page and parses the zsh completion
  chromium                 # the HTML report's test loads it in a headless browser
  python3-websocket        # ...and types into its filter boxes over the DevTools protocol (WebSocket)
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "install-deps: all packages present"
