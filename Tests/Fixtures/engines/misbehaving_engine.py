#!/usr/bin/env python3
"""Servers that answer the capture API the way no engine should, for the tests: each mode is one
way that something between a phone and its engine (a hotel's Wi-Fi login page, a proxy, a broken
or older engine) answers. Python's standard library only.

    python3 misbehaving_engine.py MODE [--port 0] [--reference-engine ENGINE_FOLDER --data DATA] [--token T]

Modes:
    html           every request: 200 text/html, a Wi-Fi login page
    other-json     every request: 200 application/json that is not the engine's answer
    other-bytes    an upload: 201 with the documented body, but another SHA-256; a capture: 404
    endless        every request: 200 application/json whose chunked body never ends
    huge-length    every request: 200 with Content-Length 64 GiB, then bytes until the client leaves
    keeps-first    the reference engine from ENGINE_FOLDER, except that a replay with another
                   body under a used key is answered 200 with the first record (as the engine
                   before issue 11 did): it breaks one rule of the contract
    requires-token the reference engine from ENGINE_FOLDER behind a sign-in: every /v1 request
                   without `Authorization: Bearer T` (--token) is answered 401, as by an engine
                   whose tokens were rotated; the 401s are in its request log
    quotes-request the reference engine from ENGINE_FOLDER, except that every record (a capture
                   or an operation) is refused with a 400 whose message quotes the request: its
                   path and query, its note and its place

Like the reference engine it prints {"port": N, "url": ...} once it listens, and stops on SIGTERM.
"""

import argparse
import http.server
import json
import signal
import sys
import time

LOGIN_PAGE = b"""<!DOCTYPE html>
<html><head><title>Welcome to Hotel Wi-Fi</title></head>
<body><form action="/login"><p>Accept the terms to go online.</p><button>Connect</button></form></body></html>
"""


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    mode = None

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        self.misbehave()

    do_PUT = do_POST = do_DELETE = do_GET

    def misbehave(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        try:
            getattr(self, "answer_" + self.mode.replace("-", "_"))()
        except (BrokenPipeError, ConnectionResetError):
            pass
        self.close_connection = True

    def send(self, status, content_type, body, extra=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def answer_html(self):
        self.send(200, "text/html; charset=utf-8", LOGIN_PAGE)

    def answer_other_json(self):
        self.send(200, "application/json", b'{"status": "ok", "received": true}\n')

    def answer_other_bytes(self):
        parts = self.path.strip("/").split("/")
        if self.command == "PUT" and len(parts) == 4:
            body = {"request_id": parts[2], "index": int(parts[3]), "sha256": "0" * 64, "byte_count": 1}
            self.send(201, "application/json", json.dumps(body).encode())
        else:
            self.send(404, "application/json", b'{"error": "not_found", "message": "Nothing here."}')

    # The endless bodies come at up to 64 MB/s, as over a fast network rather than at loopback
    # speed: FoundationNetworking cannot pause a transfer, so what arrives before a cancellation
    # takes effect passes through the client (and is dropped there), and at loopback speed that
    # would be gigabytes.
    CHUNK = b" " * 65536

    def answer_endless(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        while True:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(self.CHUNK), self.CHUNK))
            time.sleep(0.001)

    def answer_huge_length(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(64 * 1024 ** 3))
        self.end_headers()
        while True:
            self.wfile.write(self.CHUNK)
            time.sleep(0.001)


def keeps_first_engine(folder, data, port):
    """The reference engine, with every request looking alike to its replay check."""
    sys.path.insert(0, folder)
    import reference_engine

    reference_engine.canonical = lambda request: "same"
    store = reference_engine.Store(data)
    return reference_engine.Engine(("127.0.0.1", port), store)


def token_engine(folder, data, port, token):
    """The reference engine, refusing every /v1 request that lacks the bearer token."""
    sys.path.insert(0, folder)
    import reference_engine

    dispatch = reference_engine.Handler.dispatch

    def signed_in_only(self, method):
        if self.path.startswith("/v1/") and self.headers.get("Authorization") != "Bearer " + token:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.body_read = True
            self.server.log(self, method, self.path, 401)
            return self.answer(401, {"error": "unauthorized", "message": "The token is not valid (any more)."})
        return dispatch(self, method)

    reference_engine.Handler.dispatch = signed_in_only
    return reference_engine.Engine(("127.0.0.1", port), reference_engine.Store(data))


def quoting_engine(folder, data, port):
    """The reference engine, refusing every record with a 400 that quotes what it was sent."""
    sys.path.insert(0, folder)
    import reference_engine

    dispatch = reference_engine.Handler.dispatch

    def quoting(self, method):
        if method == "POST" and self.path.startswith(("/v1/captures", "/v1/operations")):
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.body_read = True
            try:
                record = json.loads(body)
            except ValueError:
                record = {}
            message = "cannot take %s %s: note %r, place %r, payload %r" % (
                method, self.path, record.get("note"), record.get("place"), record.get("payload"))
            self.server.log(self, method, self.path, 400)
            return self.answer(400, {"error": "bad_request", "message": message})
        return dispatch(self, method)

    reference_engine.Handler.dispatch = quoting
    return reference_engine.Engine(("127.0.0.1", port), reference_engine.Store(data))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=["html", "other-json", "other-bytes", "endless", "huge-length", "keeps-first", "requires-token", "quotes-request"])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--reference-engine", help="the folder of reference_engine.py (for keeps-first)")
    parser.add_argument("--data", help="the engine's data folder (for keeps-first and requires-token)")
    parser.add_argument("--token", help="the one bearer token taken (for requires-token)")
    options = parser.parse_args()
    if options.mode in ("keeps-first", "requires-token", "quotes-request") and (not options.reference_engine or not options.data):
        parser.error(options.mode + " needs --reference-engine and --data")
    if options.mode == "keeps-first":
        server = keeps_first_engine(options.reference_engine, options.data, options.port)
    elif options.mode == "quotes-request":
        server = quoting_engine(options.reference_engine, options.data, options.port)
    elif options.mode == "requires-token":
        if not options.token:
            parser.error("requires-token needs --token")
        server = token_engine(options.reference_engine, options.data, options.port, options.token)
    else:
        Handler.mode = options.mode
        server = http.server.ThreadingHTTPServer(("127.0.0.1", options.port), Handler)
        server.daemon_threads = True
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(0))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    host, port = server.server_address[:2]
    print(json.dumps({"port": port, "url": "http://%s:%d" % (host, port)}), flush=True)
    try:
        server.serve_forever()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
