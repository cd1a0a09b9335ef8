#!/usr/bin/env python3
"""racepred's HTML report in a real browser: Debian's chromium, headless.

    html_browser_test.py --racepred BIN --work DIR [--screenshot PNG]

On a report of a small trace (three engines, witnesses, a variable named like markup, source
files beside the trace and one missing), loaded with --dump-dom: the page logs nothing to the
console and records no script error, the DOM has one row per finding, the URL fragment
#filter=engine:wcp leaves only wcp's rows shown, an opened finding shows both accesses, source
lines, "source not found" and the thread lanes with the witness, and the markup-like name is text.

Then the same page driven as a user would, over the DevTools protocol (cdp.py: chromium's
--remote-debugging-port and python3-websocket): keys typed into the engine, kind, variable, file
and text boxes filter the rows (checked against the findings of the JSON report) and update the
URL fragment; a finding opens with Tab, Down and Enter, another with a click; a link's fragment
fills the boxes.

Then a report of 10,000 findings: every row listed, in order, and a filter typed on it; the page
measures its own times (performance.now(), written into the DOM: first screen built, first
drawn, load event, every row listed) and the test prints them without asserting them (a test
never depends on the machine's speed or load).

--screenshot PNG writes a picture of the example report (docs/images/html-report.png).
Exit code 77 (skipped) when chromium is not installed. python3-websocket is Debian's package:
when this interpreter does not see it, the test runs itself again under /usr/bin/python3.
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

import cdp

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

    # A report with no finding is listed at once, and says so in its title.
    (work / "quiet.std").write_text("main|w(x)|bank.c:4 (main)\n")
    run([racepred, "analyze", "--format", "html", "-o", "quiet.html", "quiet.std"], expect={0},
        cwd=work)
    dom, _ = load(chromium, work, work / "quiet.html")
    check(not dom.rows and dom.body.get("data-findings") == "0", "rows in a report of none")
    check("data-rows-ms" in dom.body, "a report of no finding is never listed")
    check("racepred analyze: 0 findings" in "".join(dom.text), "title of a report of none")
    return page, findings


def shown_rows(page):
    """The indices of the rows a user sees (built and not hidden), in page order."""
    return page.evaluate("Array.from(document.querySelectorAll('#rows .finding'))"
                         ".filter(function (r) { return !r.hidden; })"
                         ".map(function (r) { return Number(r.getAttribute('data-i')); })")


def focus_by_tab(page, element_id, back=False):
    """Presses Tab (Shift+Tab when `back`) until the element has the focus, as a keyboard user."""
    for _ in range(12):
        if page.evaluate("document.activeElement && document.activeElement.id") == element_id:
            return
        page.key("Tab", modifiers=8 if back else 0)
    fail(f"Tab never reached #{element_id}")


def expected(findings, engine="", kind="", variable="", file="", text=""):
    """Which findings the filters keep: the ground truth, from the JSON report."""
    out = []
    for i, f in enumerate(findings):
        locs = [f.get(k) for k in ("second_location", "first_location", "location") if f.get(k)]
        hay = "\n".join(str(x) for x in [f["kind"], f.get("variable", ""), f["engine"],
                                          f.get("confidence", ""), f.get("fingerprint", ""),
                                          f.get("first_thread", ""), f.get("second_thread", "")]
                        + locs).lower()
        if ((not engine or f["engine"] == engine) and (not kind or f["kind"] == kind)
                and variable in f.get("variable", "") and (not file or any(file in x for x in locs))
                and text.lower() in hay):
            out.append(i)
    return out


def wait_shown(page, want, hash_, what):
    """Waits until the rows shown are `want` and the fragment is `hash_`."""
    page.wait(f"document.body.getAttribute('data-shown') === '{len(want)}'", what)
    rows = shown_rows(page)
    check(rows == want, f"{what}: rows {rows} shown, expected {want}")
    fragment = page.evaluate("location.hash")
    check(fragment == hash_, f"{what}: fragment {fragment!r}, expected {hash_!r}")
    empty = page.evaluate("!document.getElementById('empty').hidden")
    check(empty == (not want), f"{what}: 'No finding matches' shown is {empty}")


def test_typing(chromium, work, page_file, findings):
    """The filter boxes and the list driven as a user would: keys typed into each box (the
    rows shown and the fragment follow), a finding opened with the keyboard and one by a
    click, and a link's fragment filling the boxes."""
    browser = cdp.Browser(chromium, work / "cdp-profile")
    try:
        page = browser.page()
        uri = page_file.resolve().as_uri()
        page.navigate(uri)
        page.wait("document.body && document.body.hasAttribute('data-rows-ms')", "the list")
        every = list(range(len(findings)))
        check(shown_rows(page) == every, f"rows {shown_rows(page)} for {len(findings)} findings")

        # The engine and kind boxes are drop-down lists: a keyboard user tabs to one and types
        # an option's first letter; Home goes back to "all".
        focus_by_tab(page, "f-engine")
        page.type("w")
        wait_shown(page, expected(findings, engine="wcp"), "#filter=engine:wcp", "engine w(cp)")
        page.key("Home")
        wait_shown(page, every, "", "engine all")
        focus_by_tab(page, "f-kind")
        page.type("d")
        wait_shown(page, expected(findings, kind="data-race"), "#filter=kind:data-race",
                   "kind d(ata-race)")
        page.key("Home")
        wait_shown(page, every, "", "kind all")

        # Text boxes: typed one key at a time, each key filters.
        focus_by_tab(page, "f-variable")
        page.type("bal")
        bal = expected(findings, variable="bal")
        check(bal and len(bal) < len(findings), f"{len(bal)} findings on balance")
        wait_shown(page, bal, "#filter=variable:bal", "variable bal")
        focus_by_tab(page, "f-file")
        page.type("logger")
        wait_shown(page, [], "#filter=variable:bal;file:logger", "variable bal and file logger")
        page.clear()
        wait_shown(page, bal, "#filter=variable:bal", "file box cleared")
        focus_by_tab(page, "f-variable", back=True)
        page.clear()
        page.type("<img")
        evil = expected(findings, variable="<img")
        check(evil, "no finding on the markup-like variable")
        wait_shown(page, evil, "#filter=variable:%3Cimg", "variable <img")
        page.clear()
        focus_by_tab(page, "f-file")
        page.type("logger.c")
        logger = expected(findings, file="logger.c")
        check(logger and len(logger) < len(findings), f"{len(logger)} findings in logger.c")
        wait_shown(page, logger, "#filter=file:logger.c", "file logger.c")
        page.clear()
        focus_by_tab(page, "f-text")
        page.type("AUDIT")
        audit = expected(findings, text="audit")
        check(audit and len(audit) < len(findings), f"{len(audit)} findings name audit")
        wait_shown(page, audit, "#filter=text:AUDIT", "text AUDIT")
        page.clear()
        wait_shown(page, every, "", "text box cleared")

        # Open by keyboard: Tab from the last box reaches the first row, Down the second,
        # Enter opens it (the fragment names it), Enter again closes it.
        page.key("Tab")
        check(page.evaluate("document.activeElement.getAttribute('data-i')") == "0",
              "Tab after the filters does not reach the first row")
        page.key("End")
        check(page.evaluate("document.activeElement.getAttribute('data-i')")
              == str(len(findings) - 1), "End does not move to the last row")
        page.key("Home")
        page.key("ArrowDown")
        check(page.evaluate("document.activeElement.getAttribute('data-i')") == "1",
              "Home, Down does not move to the second row")
        page.key("Enter")
        page.wait("document.querySelector('.finding[data-i=\"1\"]').nextSibling.className"
                  " === 'detail'", "the second finding opened by Enter")
        check(page.evaluate("location.hash") == "#open=2", "the fragment does not name it")
        check(page.evaluate("document.activeElement.getAttribute('aria-expanded')") == "true",
              "aria-expanded not set")
        check("Observed order" in page.evaluate("document.querySelector('.detail').textContent"),
              "the opened finding shows no lanes")
        page.key("Enter")
        page.wait("!document.querySelector('.detail')", "the finding closed by Enter")
        check(page.evaluate("location.hash") == "", "the fragment still names it")
        # The list is one tab stop: Tab leaves it, Shift+Tab comes back to the same row.
        page.key("Tab")
        check(not page.evaluate("document.activeElement.classList.contains('finding')"),
              "Tab stays in the list")
        page.key("Tab", modifiers=8)
        check(page.evaluate("document.activeElement.getAttribute('data-i')") == "1",
              "Shift+Tab does not come back to the row")

        # Open by a click: the witnessed race on the markup-like variable; a filter that
        # hides it hides its details too.
        opened = next(i for i, f in enumerate(findings)
                      if f.get("interleaving") and f["variable"] == EVIL)
        page.click(f"document.querySelector('.finding[data-i=\"{opened}\"]')")
        page.wait("!!document.querySelector('.detail')", "the clicked finding opened")
        detail = page.evaluate("document.querySelector('.detail').textContent")
        for words in ("Witness: the reordered run", "long seen = balance;", EVIL):
            check(words in detail, f"{words!r} not in the clicked finding")
        check(page.evaluate("location.hash") == f"#open={opened + 1}", "fragment after a click")
        focus_by_tab(page, "f-variable", back=True)
        page.type("ready")
        hidden = opened not in expected(findings, variable="ready")
        page.wait(f"document.querySelector('.detail').hidden === {str(hidden).lower()}",
                  "the opened finding's details follow its row")
        check(page.evaluate("location.hash") == f"#filter=variable:ready&open={opened + 1}",
              "fragment with a filter and an opened finding")
        page.clear()

        # A link: the fragment fills the boxes and filters.
        page.navigate(uri + "#filter=engine:shb;variable:bal")
        page.wait("document.getElementById('f-engine').value === 'shb' && "
                  "document.getElementById('f-variable').value === 'bal'",
                  "the boxes filled from the fragment")
        want = [i for i in expected(findings, engine="shb", variable="bal")]
        page.wait(f"document.body.getAttribute('data-shown') === '{len(want)}'", "shb and bal")
        check(shown_rows(page) == want, f"rows {shown_rows(page)} for shb and bal, want {want}")
        check(not page.console, "the page wrote to the console:\n" + "\n".join(page.console))
        print(f"typing: engine, kind, variable, file and text boxes filter as typed; "
              f"opened by Enter and by a click")
    finally:
        browser.close()


def test_large(chromium, racepred, work, n=10000):
    """A report of n findings: when it is shown and loaded, every row listed in order, and a
    filter typed on it."""
    lines = ["main|fork(T1)|big.c:1 (main)", "main|fork(T2)|big.c:2 (main)"]
    lines += [f"T1|w(v{i})|big.c:{10 + i} (writer)" for i in range(n)]
    lines += [f"T2|w(v{i})|big.c:{10 + n + i} (other)" for i in range(n)]
    trace = work / "big.std"
    trace.write_text("\n".join(lines) + "\n")
    page_file = work / "big.html"
    run([racepred, "analyze", "-q", "--max-races", str(n), "--format", "html", "-o", page_file,
         trace], expect={1})
    browser = cdp.Browser(chromium, work / "cdp-profile")
    try:
        page = browser.page()
        page.navigate(page_file.resolve().as_uri())
        page.wait("document.body && document.body.hasAttribute('data-rows-ms')",
                  "every row listed")
        body = page.evaluate("(function () { var b = document.body, o = {}; "
                             "['data-render-ms', 'data-paint-ms', 'data-load-ms', 'data-rows-ms',"
                             " 'data-findings', 'data-shown'].forEach(function (k) {"
                             " o[k] = b.getAttribute(k); }); return o; })()")
        check(body["data-findings"] == str(n) and body["data-shown"] == str(n),
              f"findings {body['data-findings']}, shown {body['data-shown']}")
        order = page.evaluate("Array.from(document.querySelectorAll('#rows .finding'))"
                              ".map(function (r) { return Number(r.getAttribute('data-i')); })")
        check(order == list(range(n)), f"{len(order)} rows for {n} findings, or out of order")
        check(page.evaluate("document.getElementById('spacer').offsetHeight") == 0,
              "the spacer is left when every row is listed")
        times = {k: float(body[k]) if body[k] else float("nan") for k in
                 ("data-render-ms", "data-paint-ms", "data-load-ms", "data-rows-ms")}
        print(f"large: {n} findings (page {page_file.stat().st_size // 1024} KiB): first screen "
              f"built in {times['data-render-ms']:.0f} ms, drawn at "
              f"{times['data-paint-ms']:.0f} ms, load event at {times['data-load-ms']:.0f} ms, "
              f"every row listed at {times['data-rows-ms']:.0f} ms after navigation start "
              f"(load average {os.getloadavg()[0]:.1f})")
        # How fast is measured and printed, not asserted: a test never depends on the machine's
        # speed or load (the numbers on a quiet machine are in docs/CLI.md).
        focus_by_tab(page, "f-variable")
        page.type("v999")
        page.wait("document.body.getAttribute('data-shown') === '11'", "variable v999")
        names = page.evaluate("Array.from(document.querySelectorAll('#rows .finding'))"
                              ".filter(function (r) { return !r.hidden; })"
                              ".map(function (r) { return r.children[2].textContent; })")
        check(sorted(names) == sorted(["v999"] + [f"v999{d}" for d in range(10)]),
              f"rows shown for v999: {names}")
        # The keyboard across the whole list: End goes to the last finding, far below.
        page.clear()
        page.wait(f"document.body.getAttribute('data-shown') === '{n}'", "the filter cleared")
        focus_by_tab(page, "f-text")
        page.key("Tab")
        page.key("End")
        page.key("Enter")
        check(page.evaluate("document.activeElement.getAttribute('data-i')") == str(n - 1),
              "End does not reach the last finding")
        page.wait("!!document.querySelector('.detail')", "the last finding opened by Enter")
        check(page.evaluate("location.hash") == f"#open={n}", "fragment of the last finding")
        check(not page.console, "the page wrote to the console:\n" + "\n".join(page.console))

        # A link to the last finding, opened before the rest of the list is built.
        page.navigate("about:blank")
        page.wait("document.readyState === 'complete' && location.href === 'about:blank'",
                  "a blank page")
        page.navigate(page_file.resolve().as_uri() + f"#open={n}")
        page.wait(f"!!document.querySelector('.finding[data-i=\"{n - 1}\"].open')",
                  "the last finding opened by the fragment")
        page.wait("document.body.hasAttribute('data-rows-ms')", "every row listed")
        count = page.evaluate("document.querySelectorAll('#rows .finding').length")
        check(count == n, f"{count} rows for {n} findings after opening the last one first")
        check(page.evaluate("document.querySelectorAll('.detail').length") == 1,
              "not one finding opened")
    finally:
        browser.close()


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
    if cdp.websocket_missing():
        cdp.reexec_under_debian_python()
        fail("python3-websocket is missing (scripts/install-deps.sh installs it): the filter "
             "boxes are driven over the DevTools protocol's WebSocket")
    try:
        page, findings = test_example(chromium, a.racepred, work)
        print(f"  ({time.monotonic() - start:.1f} s)")
        test_typing(chromium, work, page, findings)
        print(f"  ({time.monotonic() - start:.1f} s)")
        test_large(chromium, a.racepred, work)
    except cdp.Failure as e:
        fail(str(e))
    print(f"passed in {time.monotonic() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
