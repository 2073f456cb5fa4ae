"""An attack pass against a running table (``dicetable demo``): malformed requests of every
kind a hostile guest on the table's Wi-Fi could send, counted by the status they get. No
answer may be a 500, and the table must answer throughout.

    python -m pi.probe http://127.0.0.1:8080 --pin 0000

It logs in as the host (the demo prints its PIN), reads the seat links from the host page,
then sends: every route with every method; for each POST route no body, junk forms, bad
numbers (other scripts' digits, huge, negative, floats, bools), deep, malformed and non-UTF-8
JSON, a body over the size limit; bad and huge cookies; CRLF and other sites in redirects;
raw malformed HTTP. It prints the count per status and each request that got a 500 (exit
status 1 when there is one, or when the table stopped answering).
"""
from __future__ import annotations

import argparse
import collections
import http.client
import json
import re
import socket
import sys
from typing import Any, Iterator
from urllib.parse import quote, urlencode, urlsplit

from engines import GAMES

#: Route templates of the pages (``pi.web``); <token> is a seat link's, <id> a game's.
ROUTES = [
    "/", "/api/state", "/events", "/api/live", "/camera.jpg", "/roll.jpg", "/lang/en", "/lang/ja", "/lang/xx",
    "/history", "/api/history", "/history/<id>", "/api/history/<id>", "/history/<id>.jsonl", "/stats", "/api/stats",
    "/seat/<token>", "/seat/<token>/events", "/seat/<token>/live", "/seat/<token>/state", "/seat/<token>/act",
    "/seat/<token>/faces", "/seat/<token>/claim", "/seat/<token>/layout",
    "/host", "/host/login", "/host/links",  # /host/logout last (run) "/host/start", "/host/act", "/host/throw", "/host/correct",
    "/host/undo", "/host/end", "/host/calibrate/capture/red", "/host/calibrate/capture/%E2%80%AE",
    "/host/calibrate/save", "/host/teach", "/host/teach/start", "/host/teach/finish", "/host/voice",
    f"/rules/{GAMES[0]}", "/rules/..%2F..%2Fetc%2Fpasswd", "/healthz", "/static/app.js", "/static/..%2F__init__.py",
    "/demo/press/Aki", "/demo/release/Aki", "/demo/throw", "/demo/throw/<token>", "/demo/rethrow/<token>",
    "/demo/lay-out/<token>", "/demo/apply-thrown", "/nothing-here", "/%00", "/" + "a" * 5000,
]
#: What the pages' forms and JSON bodies name.
FIELDS = ["type", "value", "seat", "card", "pin", "game", "seats", "options", "seed", "face", "faces", "dice",
          "sides", "confirm", "undo", "next", "seat_0", "name_0", "colour_0", "n", "picked", "layout", "d6"]
BAD_NUMBERS = ["²", "١٢", "١", "1e3", "1_000", "-1", "1.5", "99999999999999999999999999", "9" * 5000, "NaN", "",
               "true", " ", "\x00", "0x10", "+-1"]
BAD_JSON_VALUES: list[Any] = [10**30, -(10**30), 1.5, True, None, "²", [], {}, [1] * 500, "x" * 70_000]
DEEP = "[" * 30_000 + "]" * 30_000


class Probe:
    """One table under attack: its address, the host's cookie and CSRF token, seat tokens."""

    def __init__(self, root: str, timeout: float = 10.0) -> None:
        parts = urlsplit(root)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.timeout = timeout
        self.cookie = ""
        self.csrf = ""
        self.tokens: list[str] = []
        self.pin = ""
        self.game_id = "1"
        self.counts: collections.Counter[str] = collections.Counter()
        self.failures: list[str] = []

    # --------------------------------------------------------------------------- sending

    def send(self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None,
             what: str = "") -> int:
        """One request on its own connection; returns the status (0: no answer)."""
        headers = dict(headers or {})
        if self.cookie and "Cookie" not in headers:
            headers["Cookie"] = self.cookie
        if self.csrf:
            headers.setdefault("X-CSRF-Token", self.csrf)
        connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            connection.putrequest(method, path, skip_accept_encoding=True)
            for name, value in headers.items():
                connection.putheader(name, value)
            if body is not None:
                connection.putheader("Content-Length", str(len(body)))
            connection.endheaders(body)
            response = connection.getresponse()
            if not path.endswith("events") or method != "GET" or response.status != 200:
                response.read()
            status = response.status
        except (OSError, http.client.HTTPException) as exc:
            status = 0
            what = f"{what} ({type(exc).__name__}: {exc})"
        finally:
            connection.close()
        self.count(status, f"{method} {path[:80]} {what}")
        return status

    def raw(self, data: bytes, what: str) -> int:
        """Bytes straight onto a socket (malformed HTTP); the status of the answer, if any."""
        try:
            with socket.create_connection((self.host, self.port), timeout=self.timeout) as sock:
                sock.sendall(data)
                sock.shutdown(socket.SHUT_WR)
                answer = b""
                while len(answer) < 64:
                    chunk = sock.recv(4096)
                    if not chunk:
                        break
                    answer += chunk
        except OSError:
            answer = b""
        found = re.match(rb"HTTP/1\.[01] (\d{3})", answer)
        status = int(found.group(1)) if found else -1  # -1: closed without an answer (fine)
        self.count(status, f"raw {what}")
        return status

    def count(self, status: int, what: str) -> None:
        """Tally ``status``; a 5xx other than 503 (every live slot taken: the page polls) or
        no answer at all is a failure."""
        self.counts[str(status)] += 1
        if failed(status):
            self.failures.append(f"{status} {what}")

    # --------------------------------------------------------------------------- set-up

    def login(self, pin: str) -> None:
        """Log in as the host and read the CSRF token and the seat links from its page."""
        self.pin, self.cookie, self.csrf = pin, "", ""
        connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        connection.request("GET", "/")
        response = connection.getresponse()
        response.read()
        self.cookie = _session_cookie(response) or self.cookie
        page = self._get_text("/host")
        self.csrf = _csrf(page)
        body = urlencode({"pin": pin, "csrf": self.csrf}).encode()
        connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        connection.request("POST", "/host/login", body, {"Content-Type": "application/x-www-form-urlencoded",
                                                         "Cookie": self.cookie})
        response = connection.getresponse()
        response.read()
        self.cookie = _session_cookie(response) or self.cookie
        page = self._get_text("/host")
        self.csrf = _csrf(page) or self.csrf
        if 'name="pin"' in page:
            raise SystemExit("could not log in as the host: check --pin (and that the PIN is not locked out)")
        self.tokens = sorted(set(re.findall(r"/seat/([A-Za-z0-9_-]{16,})", page))) or self.tokens
        state = json.loads(self._get_text("/api/state"))
        game = state.get("game") or {}
        self.game_id = str(game.get("id", 1)) if isinstance(game, dict) else self.game_id

    def _get_text(self, path: str) -> str:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        connection.request("GET", path, headers={"Cookie": self.cookie, "Accept-Language": "en"})
        response = connection.getresponse()
        return response.read().decode("utf-8", "replace")

    # --------------------------------------------------------------------------- attacks

    def paths(self) -> Iterator[str]:
        """Every route, with good and bad seat links and game ids (read as it goes: a start
        or a reissue changes the links)."""
        for route in ROUTES:
            tokens = self.tokens[:1] + ["nope", "A" * 22, "%00", "..", "a" * 3000]
            ids = [self.game_id, "0", "99999999999999999999999", "١", "-1"]
            if "<token>" in route:
                yield from (route.replace("<token>", t) for t in tokens)
            elif "<id>" in route:
                yield from (route.replace("<id>", i) for i in ids)
            else:
                yield route

    def refresh(self) -> None:
        """The seat links again (a start or a reissue changes them); logged in again if a
        request logged the host out."""
        page = self._get_text("/host")
        if 'name="pin"' in page:
            self.login(self.pin)
            page = self._get_text("/host")
        self.tokens = sorted(set(re.findall(r"/seat/([A-Za-z0-9_-]{16,})", page))) or self.tokens

    def run(self) -> None:
        for path in self.paths():
            self.refresh()
            path = quote(path, safe="/%.-_~")
            for method in ("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"):
                self.send(method, path, b"" if method in ("POST", "PUT", "PATCH") else None, what="no body")
            for name, body, kind in self.bodies():
                self.send("POST", path, body, {"Content-Type": kind, "Accept": "application/json"}, what=name)
                self.send("POST", path, body, {"Content-Type": kind, "Accept": "text/html"}, what=name)
        self.cookies()
        self.redirects()
        self.malformed_http()
        for method in ("GET", "POST"):
            self.send(method, "/host/logout", b"" if method == "POST" else None, what="logout")

    def bodies(self) -> Iterator[tuple[str, bytes, str]]:
        form = "application/x-www-form-urlencoded"
        js = "application/json"
        yield "deep JSON", DEEP.encode(), js
        yield "deep JSON object", ('{"a":' * 10_000 + "1" + "}" * 10_000).encode(), js
        yield "truncated JSON", b'{"type": ', js
        yield "JSON not UTF-8", b'{"pin": "\xff\xfe\xc3"}', js
        yield "JSON NaN", b'{"value": NaN, "seed": Infinity}', js
        yield "JSON list", b"[1, 2, 3]", js
        yield "JSON string", b'"x"', js
        yield "empty JSON", b"", js
        yield "JSON with a BOM", b'\xef\xbb\xbf{"type": "declare"}', js
        yield "body over the limit", b"x" * (70 * 1024), form
        yield "form not UTF-8", b"type=\xff\xfe&value=\xc3", form
        yield "form of junk", b"&&&==%%%zz%G0=\x00", form
        yield "multipart junk", b"--x\r\nContent-Disposition: form-data\r\n\r\n", "multipart/form-data; boundary=x"
        yield "text", b"hello", "text/plain"
        for number in BAD_NUMBERS:
            fields = {f: number for f in FIELDS}
            yield f"form number {number[:12]!r}", urlencode(fields).encode(), form
            yield (f"form declare {number[:12]!r}",
                   urlencode({"type": "declare", "value": number, "seed": number, "face": number,
                              "dice": f"red {number}", "confirm": "1", "face.0": number}).encode(), form)
        for value in BAD_JSON_VALUES:
            body = {f: value for f in FIELDS}
            yield f"JSON {type(value).__name__} {str(value)[:12]}", json.dumps(body).encode(), js
            yield (f"JSON declare {str(value)[:12]}",
                   json.dumps({"type": "declare", "value": value, "seed": value, "faces": [value],
                               "dice": [{"colour": "red", "face": value, "sides": value}], "confirm": 1,
                               "game": GAMES[0], "seats": [{"name": "A", "colour": "red"}] * 2}).encode(), js)

    def cookies(self) -> None:
        for cookie in ("session=garbage", "session=" + "A" * 4000, "session=.eJyrVkrOz0nNS8_MUbJSqlZQSi0uTs3PS8wBAF0ABPE.x.y",
                       "lang=../../etc", "lang=" + "x" * 5000, "session=\x7f", "=; ;=;"):
            for path in ("/", "/host", "/api/state", f"/seat/{self.tokens[0]}"):
                self.send("GET", path, headers={"Cookie": cookie}, what=f"cookie {cookie[:20]!r}")
            self.send("POST", "/host/links", b"{}", {"Cookie": cookie, "Content-Type": "application/json"},
                      what=f"cookie {cookie[:20]!r}")

    def redirects(self) -> None:
        for target in ("/\r\nX: y", "/%0d%0aX", "//evil", "https://x", "/\\evil", "\\\\evil", "javascript:x",
                       "/\x00", "/ページ", "http:/\\evil", "x" * 5000):
            body = urlencode({"next": target}).encode()
            self.send("POST", "/lang/en", body, {"Content-Type": "application/x-www-form-urlencoded"},
                      what=f"next={target[:20]!r}")
        for referrer in ("https://evil//x", "\\\\evil", "/%0d%0a"):
            self.send("POST", "/lang/ja", b"", {"Referer": referrer, "Content-Type": "application/x-www-form-urlencoded"},
                      what=f"referrer {referrer!r}")
        self.send("GET", "/%0d%0aSet-Cookie:%20x=1", what="CRLF in the path")

    def malformed_http(self) -> None:
        for name, data in (
            ("garbage", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"),
            ("no version", b"GET /\r\n\r\n"),
            ("bad version", b"GET / HTTP/9.9\r\nHost: x\r\n\r\n"),
            ("huge header", b"GET / HTTP/1.1\r\nHost: x\r\nX: " + b"a" * 300_000 + b"\r\n\r\n"),
            ("negative length", b"POST /host/login HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n"),
            ("huge length", b"POST /host/login HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n"),
            ("bad chunks", b"POST /host/login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
            ("two lengths", b"POST /host/login HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"),
            ("bad method", b"G\x00T / HTTP/1.1\r\nHost: x\r\n\r\n"),
            ("header not UTF-8", b"GET / HTTP/1.1\r\nHost: x\r\nAccept-Language: \xff\xfe\r\nCookie: lang=\xff\r\n\r\n"),
        ):
            self.raw(data, name)


def failed(status: int) -> bool:
    return status == 0 or (status >= 500 and status != 503)


def _session_cookie(response: http.client.HTTPResponse) -> str | None:
    for header in response.headers.get_all("Set-Cookie") or []:
        if header.startswith("session="):
            return header.split(";", 1)[0]
    return None


def _csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    return found.group(1) if found else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pi.probe", description=__doc__.split("\n\n")[0])
    parser.add_argument("root", nargs="?", default="http://127.0.0.1:8080", help="the table's address")
    parser.add_argument("--pin", default="0000", help="the host PIN (the demo prints it)")
    args = parser.parse_args(argv)
    probe = Probe(args.root)
    probe.login(args.pin)
    probe.run()
    answering = probe.send("GET", "/api/state", what="still answering") == 200
    total = sum(probe.counts.values())
    print(f"{total} requests: " + ", ".join(f"{k}: {v}" for k, v in sorted(probe.counts.items())))
    for failure in probe.failures:
        print("  " + failure)
    errors = sum(v for k, v in probe.counts.items() if failed(int(k)))
    print(f"{errors} answered 500 or not at all; the table {'answers' if answering else 'does NOT answer'}")
    return 0 if errors == 0 and answering else 1


if __name__ == "__main__":
    sys.exit(main())
