#!/usr/bin/env python3
"""Servers that answer the capture API the way no engine should, for the tests: each mode is one
way that something between a phone and its engine (a hotel's Wi-Fi login page, a proxy, a broken
or older engine) answers. Python's standard library only.

    python3 misbehaving_engine.py MODE [--port 0] [--reference-engine ENGINE_FOLDER --data DATA] [--token T]
                                    [--status N] [--unauthorized-once METHOD]
                                    [--record-refusals N]

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
    echo           a mirror: an upload is answered 201 with the documented body of the bytes it
                   got (the right SHA-256), a record 201 with the request's own body
    gzip-bomb      every request: 200 application/json with 1 GiB of spaces, as a server or proxy
                   that compresses what the client accepts: gzip-compressed into about 1 MB when
                   the request's Accept-Encoding names gzip, else plain; each request's headers
                   are appended to DATA/requests.jsonl (--data)
    gzip-bomb-anyway  the same, compressed whatever the request's Accept-Encoding says
    loses-uploads  the reference engine from ENGINE_FOLDER, except that every record is answered
                   422 upload_missing, as by an engine that loses what it was sent
    refuses-poison the reference engine from ENGINE_FOLDER, except that a record whose request id
                   starts with "poison" is answered 500, every time
    no-resumption  the reference engine from ENGINE_FOLDER as it was before resumable uploads: a
                   creation (POST /v1/uploads/...) is 405, every upload one PUT
    foreign-location      the reference engine, except that an upload resource's Location names
                   another host (127.0.0.2) with the same path
    other-entry-location  the reference engine, except that an upload resource's Location is the
                   one of another entry's upload ("other-entry")
    lying-offset   the reference engine, except that HEAD answers an Upload-Offset 7 bytes above
                   the one it holds
    offset-beyond  the reference engine, except that HEAD answers an Upload-Offset of 10^12
    says-complete  the reference engine, except that HEAD answers Upload-Complete: ?1 for an
                   upload it has not completed
    upper-case-location  the reference engine, except that an upload resource's Location is
                   absolute, with its scheme in capitals (HTTP://127.0.0.1:PORT/...): the same URL
    refuses-appends  the reference engine, except that every append is read to its end and
                   answered 409 mismatching_upload_offset, and each HEAD says one byte more than the
                   last (the offset creeps while nothing is kept)
    drops-appends  the same, except that every append is read to its end and its connection then
                   dropped, with no answer
    creeps-a-share  as drops-appends, except that each HEAD says it holds a sixty-fourth of the
                   last append more (and a byte): just what a client takes as progress
    refuses-creation  the reference engine, except that a resumable upload's creation is answered
                   --status (with an error body), as by an engine or a gateway that does not take
                   it; every PUT is taken
    holds-deletes  the reference engine, except that a DELETE of an upload resource is logged
                   ("held") and never answered: it is held until the client leaves
    refuses-completion  the reference engine, except that every completing append is read to its
                   end and answered 404, and the first --record-refusals records (default 3) are
                   answered 422 upload_missing: each round costs the client an append and a PUT
    requires-basic the reference engine from ENGINE_FOLDER behind HTTP Basic authentication: every
                   /v1 request without `Authorization: Basic base64(T)` (--token USER:PASSWORD) is
                   answered 401 with `WWW-Authenticate: Basic realm="engine"`

With any of the eleven modes from foreign-location to refuses-creation, --unauthorized-once METHOD reads the first upload request with
METHOD to its end and answers it 401, as an engine whose token expired just then.

Like the reference engine it prints {"port": N, "url": ...} once it listens, and stops on SIGTERM.
"""

import argparse
import base64
import hashlib
import http.server
import json
import os
import signal
import struct
import sys
import threading
import time
import zlib

LOGIN_PAGE = b"""<!DOCTYPE html>
<html><head><title>Welcome to Hotel Wi-Fi</title></head>
<body><form action="/login"><p>Accept the terms to go online.</p><button>Connect</button></form></body></html>
"""


def gzip_bomb(size=1024 ** 3):
    """`size` spaces (a JSON body: white space) as one gzip member of about a thousandth of that.
    One MiB is compressed once, ending in a full flush so that the compressor starts afresh, and
    the same bytes stand for every MiB after it: a second to make, not a minute."""
    block = b" " * (1024 * 1024)
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    piece = compressor.compress(block) + compressor.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(size // len(block)):
        crc = zlib.crc32(block, crc)
    last = zlib.compressobj(9, zlib.DEFLATED, -15).flush()
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    return header + piece * (size // len(block)) + last + struct.pack("<II", crc, size & 0xFFFFFFFF)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    mode = None
    data = None
    bomb = None

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        self.misbehave()

    do_PUT = do_POST = do_DELETE = do_GET

    def misbehave(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.body = self.rfile.read(length)
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

    def answer_echo(self):
        parts = self.path.strip("/").split("/")
        if self.command == "PUT" and len(parts) == 4:
            body = {"request_id": parts[2], "index": int(parts[3]), "sha256": hashlib.sha256(self.body).hexdigest(),
                    "byte_count": len(self.body)}
            self.send(201, "application/json", json.dumps(body).encode())
        else:
            self.send(201, self.headers.get("Content-Type") or "application/json", self.body)

    def answer_gzip_bomb(self):
        with open(os.path.join(self.data, "requests.jsonl"), "a") as log:
            log.write(json.dumps({"method": self.command, "path": self.path, "headers": dict(self.headers)}) + "\n")
        if self.mode == "gzip-bomb-anyway" or "gzip" in (self.headers.get("Accept-Encoding") or ""):
            return self.send(200, "application/json", self.bomb, {"Content-Encoding": "gzip"})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(1024 ** 3))
        self.send_header("Connection", "close")
        self.end_headers()
        for _ in range(1024 ** 3 // len(self.CHUNK)):
            self.wfile.write(self.CHUNK)
            time.sleep(0.001)

    answer_gzip_bomb_anyway = answer_gzip_bomb

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


def unauthorized(handler, method, message):
    """Reads the request's body to its end and answers it 401, in the engine's request log too."""
    handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
    handler.body_read = True
    handler.server.log(handler, method, handler.path, 401)
    return handler.answer(401, {"error": "unauthorized", "message": message})


def token_engine(folder, data, port, token):
    """The reference engine, refusing every /v1 request that lacks the bearer token."""
    sys.path.insert(0, folder)
    import reference_engine

    dispatch = reference_engine.Handler.dispatch

    def signed_in_only(self, method):
        if self.path.startswith("/v1/") and self.headers.get("Authorization") != "Bearer " + token:
            return unauthorized(self, method, "The token is not valid (any more).")
        return dispatch(self, method)

    reference_engine.Handler.dispatch = signed_in_only
    return reference_engine.Engine(("127.0.0.1", port), reference_engine.Store(data))


def basic_engine(folder, data, port, credentials):
    """The reference engine behind HTTP Basic authentication with `credentials` (USER:PASSWORD)."""
    sys.path.insert(0, folder)
    import reference_engine

    dispatch = reference_engine.Handler.dispatch
    expected = "Basic " + base64.b64encode(credentials.encode()).decode()

    def signed_in_only(self, method):
        if self.path.startswith("/v1/") and self.headers.get("Authorization") != expected:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.body_read = True
            self.server.log(self, method, self.path, 401)
            return self.answer(401, {"error": "unauthorized", "message": "The user name or password is wrong."},
                               {"WWW-Authenticate": 'Basic realm="engine"'})
        return dispatch(self, method)

    reference_engine.Handler.dispatch = signed_in_only
    return reference_engine.Engine(("127.0.0.1", port), reference_engine.Store(data))


def lossy_engine(folder, data, port, mode, record_refusals):
    """The reference engine, holding every DELETE of an upload resource unanswered
    (`holds-deletes`), or refusing every completing append and the first records
    (`refuses-completion`)."""
    sys.path.insert(0, folder)
    import reference_engine

    dispatch = reference_engine.Handler.dispatch
    refusals = [record_refusals]
    refusals_lock = threading.Lock()

    def lossy(self, method):
        parts = self.path.strip("/").split("/")
        resource = parts[:2] == ["v1", "uploads"] and len(parts) == 5
        if mode == "holds-deletes" and method == "DELETE" and resource:
            self.server.log(self, method, self.path, "held")
            # Held until the client gives up and closes the connection.
            while self.connection.recv(4096):
                pass
            self.close_connection = True
            return None
        if mode == "refuses-completion" and method == "PATCH" and resource \
                and self.headers.get("Upload-Complete", "").strip() == "?1":
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.body_read = True
            self.server.log(self, method, self.path, 404)
            return self.answer(404, {"error": "not_found", "message": "No such upload."})
        if mode == "refuses-completion" and method == "POST" and self.path.startswith(("/v1/captures",
                                                                                        "/v1/operations")):
            with refusals_lock:
                refuses = refusals[0] > 0
                refusals[0] -= 1 if refuses else 0
            if refuses:
                key = self.headers.get("Idempotency-Key") or ""
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                self.body_read = True
                self.server.log(self, method, self.path, 422)
                return self.answer(422, {"error": "upload_missing", "message": "Upload 0 of '%s' has not arrived."
                                         % key})
        return dispatch(self, method)

    reference_engine.Handler.dispatch = lossy
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


def record_refusing_engine(folder, data, port, refuses, status, code, message):
    """The reference engine, answering `status` to every record whose request id `refuses`."""
    sys.path.insert(0, folder)
    import reference_engine

    dispatch = reference_engine.Handler.dispatch

    def refusing(self, method):
        key = self.headers.get("Idempotency-Key") or ""
        if method == "POST" and self.path.startswith(("/v1/captures", "/v1/operations")) and refuses(key):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.body_read = True
            self.server.log(self, method, self.path, status)
            return self.answer(status, {"error": code, "message": message % key})
        return dispatch(self, method)

    reference_engine.Handler.dispatch = refusing
    return reference_engine.Engine(("127.0.0.1", port), reference_engine.Store(data))


RESUMABLE_LIARS = ("foreign-location", "other-entry-location", "lying-offset", "offset-beyond", "says-complete",
                   "upper-case-location", "refuses-appends", "drops-appends", "creeps-a-share", "refuses-creation")


def resumable_engine(folder, data, port, mode, status=None, unauthorized_once=None):
    """The reference engine, with resumable uploads left out (`no-resumption`) or lied about."""
    sys.path.insert(0, folder)
    import reference_engine

    if unauthorized_once:
        dispatch = reference_engine.Handler.dispatch
        first = threading.Lock()

        def unauthorized_first(self, method):
            if method == unauthorized_once and self.path.startswith("/v1/uploads/") and first.acquire(blocking=False):
                return unauthorized(self, method, "The token has expired.")
            return dispatch(self, method)

        reference_engine.Handler.dispatch = unauthorized_first

    if mode == "no-resumption":
        reference_engine.Handler.interop_version = lambda self: None
    answer = reference_engine.Handler.answer
    route = reference_engine.Handler.route
    resource = reference_engine.Handler.resumable_resource
    creeping = {}  # by token: how far each HEAD's offset has crept past what is held
    appended = {}  # by token: the bytes of the last append read

    def refusing_creation(self, method, path):
        parts = path.strip("/").split("/")
        if mode == "refuses-creation" and method == "POST" and parts[:2] == ["v1", "uploads"] and len(parts) == 4:
            self.discard_body()
            self.body_read = True
            raise reference_engine.EngineError(status, "refused", "This server takes no %s here." % method)
        return route(self, method, path)

    def creeping_resource(self, method, request_id, index, token):
        if method == "PATCH":
            appended[token] = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(appended[token])
            self.body_read = True
            if mode in ("drops-appends", "creeps-a-share"):
                self.close_connection = True
                raise reference_engine.ConnectionCut(appended[token])
            held = self.server.store.resumable_upload(token)
            offset = (held["offset"] if held else 0) + creeping.get(token, 0)
            raise reference_engine.EngineError(
                409, "mismatching_upload_offset", "The upload holds %d bytes." % offset,
                {"Upload-Draft-Interop-Version": "6", "Upload-Offset": str(offset), "Upload-Complete": "?0"})
        status_, body, headers = resource(self, method, request_id, index, token)
        if method == "HEAD" and "Upload-Offset" in headers:
            step = appended.get(token, 0) // 64 + 1 if mode == "creeps-a-share" else 1
            creeping[token] = creeping.get(token, 0) + step
            headers["Upload-Offset"] = str(int(headers["Upload-Offset"]) + creeping[token])
        return status_, body, headers

    reference_engine.Handler.route = refusing_creation
    if mode in ("refuses-appends", "drops-appends", "creeps-a-share"):
        reference_engine.Handler.resumable_resource = creeping_resource

    def lying(self, status, body, headers=None):
        headers = dict(headers or {})
        location = headers.get("Location", "")
        if location.startswith("/v1/uploads/"):
            if mode == "upper-case-location":
                headers["Location"] = "HTTP://127.0.0.1:%d%s" % (self.server.server_address[1], location)
            elif mode == "foreign-location":
                headers["Location"] = "http://127.0.0.2:%d%s" % (self.server.server_address[1], location)
            elif mode == "other-entry-location":
                parts = location.split("/")
                headers["Location"] = "/".join(parts[:3] + ["other-entry"] + parts[4:])
        if self.command == "HEAD" and "Upload-Offset" in headers:
            if mode == "lying-offset":
                headers["Upload-Offset"] = str(int(headers["Upload-Offset"]) + 7)
            elif mode == "offset-beyond":
                headers["Upload-Offset"] = str(10 ** 12)
            elif mode == "says-complete":
                headers["Upload-Complete"] = "?1"
        return answer(self, status, body, headers)

    reference_engine.Handler.answer = lying
    return reference_engine.Engine(("127.0.0.1", port), reference_engine.Store(data))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("mode", choices=("html", "other-json", "other-bytes", "endless", "huge-length", "keeps-first",
                                         "requires-token", "quotes-request", "echo", "gzip-bomb", "gzip-bomb-anyway", "loses-uploads",
                                         "refuses-poison", "no-resumption", "holds-deletes", "refuses-completion",
                                         "requires-basic") + RESUMABLE_LIARS)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--reference-engine", help="the folder of reference_engine.py (for keeps-first)")
    parser.add_argument("--data", help="the engine's data folder (for keeps-first and requires-token)")
    parser.add_argument("--token", help="the one bearer token taken (for requires-token)")
    parser.add_argument("--status", type=int, default=400, help="the answer to a creation (for refuses-creation)")
    parser.add_argument("--record-refusals", type=int, default=3,
                        help="the records answered 422 upload_missing first (for refuses-completion)")
    parser.add_argument("--unauthorized-once", metavar="METHOD",
                        help="answer the first upload request with METHOD 401, once its body is read")
    options = parser.parse_args()
    engines = ("keeps-first", "requires-token", "quotes-request", "loses-uploads", "refuses-poison",
               "no-resumption", "holds-deletes", "refuses-completion", "requires-basic") + RESUMABLE_LIARS
    if options.mode in engines and (not options.reference_engine or not options.data):
        parser.error(options.mode + " needs --reference-engine and --data")
    if options.mode == "keeps-first":
        server = keeps_first_engine(options.reference_engine, options.data, options.port)
    elif options.mode == "quotes-request":
        server = quoting_engine(options.reference_engine, options.data, options.port)
    elif options.mode == "loses-uploads":
        server = record_refusing_engine(options.reference_engine, options.data, options.port, lambda key: True, 422,
                                        "upload_missing", "Upload 0 of '%s' has not arrived.")
    elif options.mode == "refuses-poison":
        server = record_refusing_engine(options.reference_engine, options.data, options.port,
                                        lambda key: key.startswith("poison"), 500, "internal",
                                        "The engine failed on '%s'.")
    elif options.mode == "no-resumption" or options.mode in RESUMABLE_LIARS:
        server = resumable_engine(options.reference_engine, options.data, options.port, options.mode, options.status,
                                  options.unauthorized_once)
    elif options.mode in ("holds-deletes", "refuses-completion"):
        server = lossy_engine(options.reference_engine, options.data, options.port, options.mode,
                              options.record_refusals)
    elif options.mode == "requires-basic":
        if not options.token:
            parser.error("requires-basic needs --token USER:PASSWORD")
        server = basic_engine(options.reference_engine, options.data, options.port, options.token)
    elif options.mode == "requires-token":
        if not options.token:
            parser.error("requires-token needs --token")
        server = token_engine(options.reference_engine, options.data, options.port, options.token)
    else:
        Handler.mode = options.mode
        if options.mode.startswith("gzip-bomb"):
            if not options.data:
                parser.error("gzip-bomb needs --data")
            os.makedirs(options.data, exist_ok=True)
            Handler.data, Handler.bomb = options.data, gzip_bomb()
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
