#!/usr/bin/env python3
"""racepred's HTML report in a real browser: Debian's chromium, headless, --dump-dom.

    html_browser_test.py --racepred BIN --work DIR [--screenshot PNG]

Checks, on a report of a small trace (three engines, witnesses, a variable named like markup,
source files beside the trace and one missing): the page logs nothing to the console and records
no script error, the DOM has one row per finding, the URL fragment #filter=engine:wcp leaves only
wcp's rows shown, an opened finding shows both accesses, source lines, "source not found" and the
thread lanes with the witness, and the markup-like name is text. Then a report of 10,000 findings
renders; the page measures its own time (performance.now(), written into the DOM) and the test
prints it, failing only past a generous bound (the machine's speed is no verdict).

--screenshot PNG writes a picture of the example report (docs/images/html-report.png).
Exit code 77 (skipped) when chromium is not installed.
"""
import argparse
import html.parser
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

SKIP = 77
EVIL = "<img src=x onerror=alert(1)>"
EVIL_STD = "<img\\x20src=x\\x20onerror=alert\\x281\\x29>"  # STD escapes spaces and parentheses

SOURCE = """\
#include <pthread.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long balance;
static int ready;

void deposit(long amount) {
  pthread_mutex_lock(&m);
  long b = balance;
  balance = b + amount;
  pthread_mutex_unlock(&m);
  ready = 1;
}

long audit(void) {
  long seen = balance;  /* no lock */
  if (ready) return seen;
  return 0;
}
"""

# Two threads; deposit holds m, audit reads balance without it.
TRACE = f"""\
main|w(balance)|bank.c:4 (main)
main|fork(T1)|bank.c:30 (main)
main|fork(T2)|bank.c:31 (main)
T1|acq(m)|bank.c:8 (deposit)
T1|r(balance)|bank.c:9 (deposit)
T1|w(balance)|bank.c:10 (deposit)
T1|rel(m)|bank.c:11 (deposit)
T1|w(ready)|bank.c:12 (deposit)
T2|r(balance)|bank.c:16 (audit)
T2|r(ready)|bank.c:17 (audit)
T2|w({EVIL_STD})|bank.c:17 (audit)
T1|w({EVIL_STD})|bank.c:12 (deposit)
T1|w(log)|logger.c:3 (log_line)
T2|w(log)|logger.c:3 (log_line)
"""


class Dom(html.parser.HTMLParser):
    """The rows, texts and attributes of a dumped page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.rows = []  # attributes of each row of a finding
        self.body = {}
        self.tags = []
        self.text = []
        self.classes = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append(tag)
        self.classes.extend((a.get("class") or "").split())
        if tag == "body":
            self.body = a
        if "finding" in (a.get("class") or "").split():
            self.rows.append(a)

    def handle_data(self, data):
        self.text.append(data)


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def run(cmd, expect=None, cwd=None):
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    if expect is not None and r.returncode not in expect:
        fail(f"{' '.join(map(str, cmd))}: exit {r.returncode}\n{r.stdout}\n{r.stderr}")
    return r


def chromium_command():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def browser(chromium, work, args):
    profile = work / "profile"
    cmd = [chromium, "--headless", "--disable-gpu", "--no-sandbox", "--enable-logging=stderr",
           "--v=0", f"--user-data-dir={profile}", "--no-first-run", "--disable-extensions",
           "--disable-background-networking", "--disable-component-update",
           "--disable-dev-shm-usage"] + args
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        fail(f"chromium exit {r.returncode}:\n{r.stderr[-3000:]}")
    return r


def load(chromium, work, page, fragment=""):
    """The page's DOM after its script ran, and what the browser logged from it."""
    r = browser(chromium, work, ["--dump-dom", page.resolve().as_uri() + fragment])
    # Console messages (console.log/error, uncaught exceptions) appear as "…:CONSOLE…] "text"".
    console = [line for line in r.stderr.splitlines() if ":CONSOLE" in line]
    check(not console, "the page wrote to the console:\n" + "\n".join(console))
    dom = Dom()
    dom.feed(r.stdout)
    check(dom.body.get("data-findings") is not None, "the page's script did not finish:\n" +
          r.stdout[-2000:])
    check("data-errors" not in dom.body, f"script errors: {dom.body.get('data-errors')}")
    return dom, r.stdout


def findings_of(report):
    out = []
    for result in report["results"]:
        for f in result["findings"]:
            out.append(dict(f, engine=result["engine"]))
    return out


def example(racepred, work):
    """The example report: its page, and its findings as JSON."""
    (work / "bank.c").write_text(SOURCE)
    trace = work / "bank.std"
    trace.write_text(TRACE)
    page = work / "example.html"
    args = ["analyze", "--witness", "-e", "shb,wcp,lockset"]
    # Run beside the trace, so that the page names it as a user would have.
    run([racepred] + args + ["--format", "html", "-o", page.name, trace.name], expect={1},
        cwd=work)
    r = run([racepred] + args + ["--format", "json", trace.name], expect={1}, cwd=work)
    return page, findings_of(json.loads(r.stdout))


def test_example(chromium, racepred, work):
    page, findings = example(racepred, work)
    engines = {f["engine"] for f in findings}
    check({"shb", "wcp", "lockset"} <= engines, f"engines {engines}")
    wcp = [f for f in findings if f["engine"] == "wcp"]
    check(wcp and len(wcp) < len(findings), f"{len(wcp)} wcp of {len(findings)} findings")
    # A race with a witness and the markup-like variable, opened through the fragment.
    opened = next((i for i, f in enumerate(findings)
                   if f.get("interleaving") and f["variable"] == EVIL), None)
    check(opened is not None, "no witnessed race on the markup-like variable")
    missing = next(i for i, f in enumerate(findings) if f["variable"] == "log")
    dom, text = load(chromium, work, page,
                     f"#filter=engine:wcp&open={opened + 1},{missing + 1}")
    # One row per finding, all in the DOM; the filter shows wcp's alone.
    check(len(dom.rows) == len(findings), f"{len(dom.rows)} rows for {len(findings)} findings")
    shown = [r for r in dom.rows if "hidden" not in r]
    check(len(shown) == len(wcp), f"{len(shown)} rows shown for {len(wcp)} wcp findings")
    check(all(r.get("data-engine") == "wcp" for r in shown), "a row of another engine is shown")
    check(dom.body.get("data-shown") == str(len(wcp)), f"data-shown {dom.body.get('data-shown')}")
    # The name stays text: no element came from it.
    check("img" not in dom.tags, "an <img> element was created from a name")
    check("<img" not in text, "markup from a name in the DOM")
    page_text = "".join(dom.text)
    check(EVIL in page_text, "the markup-like variable is not shown as text")
    # The opened finding: both accesses, source lines, lanes with the witness.
    check("detail" in dom.classes, "the finding in the fragment was not opened")
    for words in ("Observed order", "Witness: the reordered run", "long seen = balance;",
                  "source not found: logger.c:3"):
        check(words in page_text, f"{words!r} not in the page")
    check("lanes" in dom.classes and "src" in dom.classes, "no lanes or source lines")
    print(f"example: {len(findings)} findings, {len(wcp)} of wcp shown by #filter=engine:wcp")
    return page


def test_large(chromium, racepred, work, n=10000):
    """A report of n findings (one race per variable) renders, and how fast."""
    lines = ["main|fork(T1)|big.c:1 (main)", "main|fork(T2)|big.c:2 (main)"]
    lines += [f"T1|w(v{i})|big.c:{10 + i} (writer)" for i in range(n)]
    lines += [f"T2|w(v{i})|big.c:{10 + n + i} (other)" for i in range(n)]
    trace = work / "big.std"
    trace.write_text("\n".join(lines) + "\n")
    page = work / "big.html"
    run([racepred, "analyze", "-q", "--max-races", str(n), "--format", "html", "-o", page, trace],
        expect={1})
    dom, _ = load(chromium, work, page)
    check(len(dom.rows) == n, f"{len(dom.rows)} rows for {n} findings")
    listed = float(dom.body["data-render-ms"])
    loaded = float(dom.body["data-load-ms"])
    print(f"large: {n} findings listed in {listed:.0f} ms, loaded (laid out) in {loaded:.0f} ms "
          f"after navigation start (page {page.stat().st_size // 1024} KiB, load average "
          f"{os.getloadavg()[0]:.1f})")
    # How fast is measured and printed, not asserted: a test never depends on the machine's
    # speed or load (the number on an idle machine is in docs/CLI.md).


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--racepred", required=True)
    p.add_argument("--work", required=True)
    p.add_argument("--screenshot")
    a = p.parse_args()
    chromium = chromium_command()
    if not chromium:
        print("SKIP: chromium is not installed (scripts/install-deps.sh installs it)")
        return SKIP
    work = pathlib.Path(a.work).resolve()
    a.racepred = str(pathlib.Path(a.racepred).resolve())
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    start = time.monotonic()
    if a.screenshot:
        page, findings = example(a.racepred, work)
        witnessed = next(i for i, f in enumerate(findings) if f.get("interleaving"))
        shot = pathlib.Path(a.screenshot).resolve()
        browser(chromium, work, [f"--screenshot={shot}", "--window-size=1280,900",
                                 "--hide-scrollbars",
                                 page.resolve().as_uri() + f"#open={witnessed + 1}"])
        print(f"wrote {shot}")
        return 0
    test_example(chromium, a.racepred, work)
    test_large(chromium, a.racepred, work)
    print(f"passed in {time.monotonic() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
