"""A small Chrome DevTools protocol driver for the HTML report's browser test.

Debian packages only: chromium started with --remote-debugging-port=0 (the port it picked is
read from the DevToolsActivePort file in its profile) and python3-websocket for the protocol's
WebSocket. Pages are driven as a user would: keys typed with Input.dispatchKeyEvent, clicks with
Input.dispatchMouseEvent; Runtime.evaluate only reads the page. Every wait is a bounded retry on
a condition with a generous deadline, never a fixed sleep.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import time

# Debian's python3-websocket lives in /usr/lib/python3/dist-packages, which an interpreter that
# is not Debian's (pyenv, a virtualenv) does not see: the test then runs itself under
# /usr/bin/python3 (html_browser_test.py's main does that through websocket_missing()).
try:
    import websocket  # python3-websocket
except ImportError:  # pragma: no cover - handled by the caller
    websocket = None

DEADLINE = 90.0  # seconds for any one condition: generous, the machine may be loaded


class Failure(Exception):
    pass


def websocket_missing():
    return websocket is None


class Browser:
    """One headless chromium, spoken to over the DevTools protocol."""

    def __init__(self, chromium, profile, window=(1280, 900)):
        self.profile = pathlib.Path(profile)
        shutil.rmtree(self.profile, ignore_errors=True)
        self.profile.mkdir(parents=True)
        self.log = open(self.profile.parent / (self.profile.name + ".log"), "w")
        cmd = [chromium, "--headless", "--disable-gpu", "--no-sandbox", "--remote-debugging-port=0",
               f"--user-data-dir={self.profile}", "--no-first-run", "--disable-extensions",
               "--disable-background-networking", "--disable-component-update",
               "--disable-dev-shm-usage", "--disable-background-timer-throttling",
               "--disable-renderer-backgrounding", f"--window-size={window[0]},{window[1]}",
               "about:blank"]
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=self.log,
                                     stderr=subprocess.STDOUT)
        self.ws = None
        self.next_id = 0
        self.events = []  # (sessionId, method, params) not yet looked at
        try:
            port_file = self.profile / "DevToolsActivePort"

            def ready():
                if self.proc.poll() is not None:
                    raise Failure(f"chromium exited with {self.proc.returncode}: "
                                  f"{self.log_tail()}")
                try:
                    lines = port_file.read_text().split("\n")
                except OSError:
                    return None
                return lines if len(lines) >= 2 and lines[0] and lines[1] else None

            port, path = wait_for(ready, "chromium's DevToolsActivePort file")[:2]
            self.ws = websocket.create_connection(f"ws://127.0.0.1:{port}{path}", timeout=DEADLINE,
                                                  suppress_origin=True)
        except BaseException:
            self.close()
            raise

    def log_tail(self):
        self.log.flush()
        try:
            return (self.profile.parent / (self.profile.name + ".log")).read_text()[-3000:]
        except OSError:
            return ""

    def _receive(self, timeout):
        """One message, or None when none came within `timeout` seconds."""
        self.ws.settimeout(timeout)
        try:
            text = self.ws.recv()
        except websocket.WebSocketTimeoutException:
            return None
        return json.loads(text)

    def send(self, method, params=None, session=None):
        self.next_id += 1
        ident = self.next_id
        message = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.ws.send(json.dumps(message))
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            m = self._receive(max(0.01, deadline - time.monotonic()))
            if m is None:
                break
            if m.get("id") == ident:
                if "error" in m:
                    raise Failure(f"{method}: {m['error']}")
                return m.get("result", {})
            if "method" in m:
                self.events.append((m.get("sessionId"), m["method"], m.get("params", {})))
        raise Failure(f"{method}: no answer in {DEADLINE:.0f} s")

    def pump(self, timeout):
        """Collects the events that arrive within `timeout` seconds (or until the first one)."""
        m = self._receive(timeout)
        while m is not None:
            if "method" in m:
                self.events.append((m.get("sessionId"), m["method"], m.get("params", {})))
            m = self._receive(0.001)

    def page(self):
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target,
                                                      "flatten": True})["sessionId"]
        return Page(self, session)

    def close(self):
        if self.ws is not None:
            try:
                self.ws.settimeout(5)
                self.ws.send(json.dumps({"id": 0, "method": "Browser.close", "params": {}}))
            except Exception:  # noqa: BLE001 - closing anyway
                pass
            try:
                self.ws.close()
            except Exception:  # noqa: BLE001
                pass
            self.ws = None
        if self.proc.poll() is None:
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def wait_for(condition, what, deadline=DEADLINE, pump=None):
    """Retries `condition` until it returns something true; fails after `deadline` seconds."""
    end = time.monotonic() + deadline
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > end:
            raise Failure(f"timed out after {deadline:.0f} s waiting for {what}")
        if pump:
            pump(0.02)  # returns as soon as the browser says anything
        else:
            time.sleep(0.02)


# Keys typed by name: (key, code, Windows virtual key code, text).
KEYS = {
    "Enter": ("Enter", "Enter", 13, "\r"),
    "Backspace": ("Backspace", "Backspace", 8, ""),
    "Tab": ("Tab", "Tab", 9, ""),
    "Escape": ("Escape", "Escape", 27, ""),
    "Space": (" ", "Space", 32, " "),
    "ArrowDown": ("ArrowDown", "ArrowDown", 40, ""),
    "ArrowUp": ("ArrowUp", "ArrowUp", 38, ""),
    "End": ("End", "End", 35, ""),
    "Home": ("Home", "Home", 36, ""),
}


class Page:
    def __init__(self, browser, session):
        self.browser = browser
        self.session = session
        self.console = []  # what the page logged: console calls, exceptions, log entries
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")

    def send(self, method, params=None):
        result = self.browser.send(method, params, self.session)
        self._take_events()
        return result

    def _take_events(self):
        keep = []
        for session, method, params in self.browser.events:
            if session != self.session:
                keep.append((session, method, params))
            elif method == "Runtime.consoleAPICalled":
                args = " ".join(str(a.get("value", a.get("description", ""))) for a in
                                params.get("args", []))
                self.console.append(f"console.{params.get('type')}: {args}")
            elif method == "Runtime.exceptionThrown":
                d = params.get("exceptionDetails", {})
                self.console.append("exception: " + str(d.get("exception", {}).get(
                    "description", d.get("text"))))
            elif method == "Log.entryAdded":
                e = params.get("entry", {})
                self.console.append(f"log {e.get('level')}: {e.get('text')} {e.get('url', '')}")
        self.browser.events = keep

    def pump(self, timeout):
        self.browser.pump(timeout)
        self._take_events()

    def evaluate(self, expression):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise Failure(f"{expression}: {r['exceptionDetails']}")
        return r.get("result", {}).get("value")

    def wait(self, expression, what=None, deadline=DEADLINE):
        """The value of `expression` once it is true (evaluated again until then)."""
        return wait_for(lambda: self.evaluate(expression), what or expression, deadline,
                        self.pump)

    def navigate(self, url):
        r = self.send("Page.navigate", {"url": url})
        if r.get("errorText"):
            raise Failure(f"navigating to {url}: {r['errorText']}")

    # ---- input, as a user gives it ----
    def key(self, name, modifiers=0, commands=None):
        key, code, vk, text = KEYS[name]
        down = {"type": "keyDown" if text else "rawKeyDown", "key": key, "code": code,
                "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk, "modifiers": modifiers}
        if text:
            down["text"] = text
            down["unmodifiedText"] = text
        if commands:
            down["commands"] = commands
        self.send("Input.dispatchKeyEvent", down)
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": key, "code": code,
                                             "windowsVirtualKeyCode": vk,
                                             "nativeVirtualKeyCode": vk, "modifiers": modifiers})

    def type(self, text):
        """Types `text` one key at a time into whatever has the focus."""
        for c in text:
            upper = c.upper()
            vk = ord(upper) if upper.isalnum() and upper.isascii() else 0
            code = (f"Key{upper}" if c.isalpha() and c.isascii() else
                    f"Digit{c}" if c.isdigit() else "")
            self.send("Input.dispatchKeyEvent", {"type": "keyDown", "key": c, "code": code,
                                                 "text": c, "unmodifiedText": c,
                                                 "windowsVirtualKeyCode": vk,
                                                 "nativeVirtualKeyCode": vk})
            self.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": c, "code": code,
                                                 "windowsVirtualKeyCode": vk,
                                                 "nativeVirtualKeyCode": vk})

    def clear(self):
        """Selects everything in the focused box (Ctrl+A) and deletes it."""
        self.send("Input.dispatchKeyEvent", {"type": "rawKeyDown", "key": "a", "code": "KeyA",
                                             "windowsVirtualKeyCode": 65, "modifiers": 2,
                                             "commands": ["selectAll"]})
        self.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": "a", "code": "KeyA",
                                             "windowsVirtualKeyCode": 65, "modifiers": 2})
        self.key("Backspace")

    def click_at(self, x, y):
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            params = {"type": kind, "x": x, "y": y}
            if kind != "mouseMoved":
                params.update(button="left", buttons=1 if kind == "mousePressed" else 0,
                              clickCount=1)
            self.send("Input.dispatchMouseEvent", params)

    def click(self, selector_expression):
        """Clicks the middle of the element `selector_expression` evaluates to (scrolled into
        view first, as a user scrolls to what they click)."""
        rect = self.evaluate(
            "(function(){var e=" + selector_expression + ";if(!e)return null;"
            "e.scrollIntoView({block:'center'});var r=e.getBoundingClientRect();"
            "return [r.left+r.width/2,r.top+r.height/2,r.width,r.height];})()")
        if not rect or rect[2] <= 0 or rect[3] <= 0:
            raise Failure(f"nothing to click at {selector_expression}: {rect}")
        self.click_at(rect[0], rect[1])


def reexec_under_debian_python():
    """When python3-websocket is missing here but Debian's interpreter is not this one, runs
    this script again under /usr/bin/python3 (where the Debian package is). Returns only when
    that is not possible."""
    debian = "/usr/bin/python3"
    if os.path.exists(debian) and os.path.realpath(sys.executable) != os.path.realpath(debian) \
            and not os.environ.get("RACEPRED_REEXEC"):
        os.environ["RACEPRED_REEXEC"] = "1"
        os.execv(debian, [debian] + sys.argv)
