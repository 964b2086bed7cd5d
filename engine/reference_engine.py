#!/usr/bin/env python3
"""The reference engine: the protocol of docs/engine-protocol.md, for real, on one machine.

Captures and operations live in SQLite (DATA/engine.sqlite) and uploads on disk
(DATA/uploads/ID/INDEX.jpg, whatever their type); a resumable upload's bytes so far are in
DATA/resumable/TOKEN.part until it completes (draft-ietf-httpbis-resumable-upload, interop
versions 3, 5 and 6), so that it survives a cut connection and a restart of the engine; one left
untouched for a day (--expire-resumable-after) is given up, as its client will never ask again.
It is for tests and for anyone writing their own engine, so it is plain and strict, and it can be
told to fail in the ways a real network and a real server fail (see `Fault`). Python's standard
library only: nothing to install but python3.

    python3 engine/reference_engine.py --port 0 --data /tmp/engine   # prints {"port": N, ...}
    python3 engine/reference_engine.py --data /tmp/engine --dump     # the records, one JSON a line
"""

import argparse
import datetime
import hashlib
import http.server
import json
import os
import re
import signal
import socket
import sqlite3
import struct
import sys
import threading
import time
import urllib.parse

# The version of docs/engine-protocol.md this engine answers by default (`--protocol-version`).
PROTOCOL_VERSION = 2
ID_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,128}\Z")
TYPE_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9._-]{0,63}\Z")
MEDIA_TYPE_PATTERN = re.compile(r"[A-Za-z0-9!#$&^_.+-]{1,63}/[A-Za-z0-9!#$&^_.+-]{1,63}\Z")
MAX_ENTITY_BYTES = 256
SHA256_PATTERN = re.compile(r"[0-9a-f]{64}\Z")
MAX_UPLOAD_BYTES = 64 * 1024 * 1024
MAX_RECORD_BYTES = 1024 * 1024
MAX_MEDIA = 100
# draft-ietf-httpbis-resumable-upload as URLSession speaks it: interop version 3 (iOS 17, macOS 14;
# draft -01, `Upload-Incomplete`), 5 (iOS 18, `Upload-Complete`) and 6 (iOS 18.1, the append's
# Content-Type `application/partial-upload`).
INTEROP_VERSIONS = (3, 5, 6)
TOKEN_PATTERN = re.compile(r"[0-9a-f]{32}\Z")
SF_INTEGER_PATTERN = re.compile(r"[0-9]{1,15}\Z")
CHUNK_BYTES = 64 * 1024
# An unfinished resumable upload that no request has touched for this long is given up: its
# resource and bytes are deleted, as a client that was killed, or moved on, never will.
RESUMABLE_MAX_AGE = 24 * 3600

# MARK: - EXIF: the camera's own clock and GPS, read from an uploaded JPEG


def read_exif(jpeg):
    """The camera's time and position in a JPEG, as {"captured_at": str|None, "place": dict|None}.

    Walks the markers up to the first APP1 "Exif" segment, then the TIFF structure in it: IFD0,
    its EXIF sub-IFD (DateTimeOriginal 0x9003, SubSecTimeOriginal 0x9291, OffsetTimeOriginal
    0x9011) and its GPS sub-IFD (tags 1-4). Every offset is checked against the segment's bounds;
    whatever is malformed, missing or impossible reads as absent, never as an error, because a
    photo with a broken EXIF block is still a photo. The rules are the device's (ImagePrep's):
    an unknown or impossible date, an offset outside -12:00..+14:00, a missing or odd hemisphere
    letter, a zero denominator or an out-of-range coordinate all mean "not known".
    """
    tiff = _exif_tiff(jpeg)
    if tiff is None:
        return {"captured_at": None, "place": None}
    tags = _TIFFTags(tiff)
    ifd0 = tags.ifd(tags.first_ifd_offset())
    exif = tags.ifd(tags.long_value(ifd0.get(0x8769)))
    gps = tags.ifd(tags.long_value(ifd0.get(0x8825)))
    return {
        "captured_at": _camera_time(
            tags.text(exif.get(0x9003)), tags.text(exif.get(0x9291)), tags.text(exif.get(0x9011))
        ),
        "place": _camera_place(tags, gps),
    }


def _exif_tiff(jpeg):
    """The TIFF bytes of the first APP1 segment that starts with "Exif\\0\\0", or None."""
    if jpeg[:2] != b"\xff\xd8":
        return None
    position = 2
    while position + 4 <= len(jpeg):
        if jpeg[position] != 0xFF:
            return None
        marker = jpeg[position + 1]
        if marker == 0xFF:  # fill byte
            position += 1
            continue
        if marker == 0x00:  # FF 00 is no marker: libjpeg (and the device) skip both bytes
            position += 2
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # no length
            position += 2
            continue
        if marker in (0xDA, 0xD9):  # start of scan, end of image: no EXIF before it
            return None
        length = struct.unpack(">H", jpeg[position + 2 : position + 4])[0]
        end = position + 2 + length
        if length < 2 or end > len(jpeg):
            return None
        payload = jpeg[position + 4 : end]
        if marker == 0xE1 and payload[:6] == b"Exif\x00\x00":
            return payload[6:]
        position = end
    return None


class _TIFFTags:
    """Bounds-checked reads from one TIFF block; each IFD is a dict of tag -> (type, count, data offset)."""

    SIZES = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 9: 4, 10: 8}

    def __init__(self, data):
        self.data = data
        order = data[:2]
        self.order = "<" if order == b"II" else ">" if order == b"MM" else None
        if self.order is None or len(data) < 8 or self.unpack("H", 2) != 42:
            self.order = None

    def unpack(self, kind, offset):
        size = struct.calcsize(kind)
        if offset < 0 or offset + size > len(self.data):
            return None
        return struct.unpack(self.order + kind, self.data[offset : offset + size])[0]

    def first_ifd_offset(self):
        return self.unpack("I", 4) if self.order else None

    def ifd(self, offset):
        if self.order is None or offset is None or offset < 8:
            return {}
        count = self.unpack("H", offset)
        if count is None or offset + 2 + 12 * count > len(self.data):
            return {}
        entries = {}
        for index in range(count):
            entry = offset + 2 + 12 * index
            tag, kind, values = self.unpack("H", entry), self.unpack("H", entry + 2), self.unpack("I", entry + 4)
            size = self.SIZES.get(kind)
            if size is None or values > MAX_UPLOAD_BYTES:
                continue
            data = entry + 8 if size * values <= 4 else self.unpack("I", entry + 8)
            if data + size * values <= len(self.data):
                entries.setdefault(tag, (kind, values, data))
        return entries

    def long_value(self, entry):
        if entry is None or entry[0] not in (3, 4) or entry[1] != 1:
            return None
        return self.unpack("H" if entry[0] == 3 else "I", entry[2])

    def text(self, entry):
        if entry is None or entry[0] not in (2, 7):
            return None
        raw = self.data[entry[2] : entry[2] + entry[1]].split(b"\x00")[0]
        return raw.decode("latin-1").strip() or None

    def rationals(self, entry, count):
        """`count` RATIONALs, or SRATIONALs as some phones write (Nokia's GPS), none negative; else None."""
        if entry is None or entry[0] not in (5, 10) or entry[1] != count:
            return None
        kind = "I" if entry[0] == 5 else "i"
        values = []
        for index in range(count):
            numerator, denominator = self.unpack(kind, entry[2] + 8 * index), self.unpack(kind, entry[2] + 8 * index + 4)
            if not denominator or numerator < 0 or denominator < 0:
                return None
            values.append(numerator / denominator)
        return values


def _camera_time(date_time, sub_second, offset):
    """ISO 8601 from DateTimeOriginal, its SubSecTime digits and its OffsetTime, or None."""
    match = re.fullmatch(r"(\d{4}):(\d{2}):(\d{2}) (\d{2}):(\d{2}):(\d{2})", date_time or "")
    if not match:
        return None
    try:
        moment = datetime.datetime(*map(int, match.groups()))
    except ValueError:  # February 30th, hour 24, year 0000: unknown or impossible
        return None
    text = moment.isoformat()
    if sub_second and sub_second.isdigit():
        text += "." + sub_second
    offset_match = re.fullmatch(r"([+-])(\d{2}):(\d{2})", offset or "")
    if offset_match:
        minutes = int(offset_match[2]) * 60 + int(offset_match[3])
        if int(offset_match[3]) < 60 and -12 * 60 <= (-minutes if offset_match[1] == "-" else minutes) <= 14 * 60:
            text += offset
    return text


def _camera_place(tags, gps):
    """{"latitude", "longitude"} in signed degrees from the GPS IFD, or None."""
    signed = []
    for ref_tag, value_tag, positive, negative, limit in ((1, 2, "N", "S", 90), (3, 4, "E", "W", 180)):
        ref = tags.text(gps.get(ref_tag))
        parts = tags.rationals(gps.get(value_tag), 3)
        if ref not in (positive, negative) or parts is None:
            return None
        degrees = parts[0] + parts[1] / 60 + parts[2] / 3600
        if degrees > limit:
            return None
        signed.append(-degrees if ref == negative else degrees)
    return {"latitude": signed[0], "longitude": signed[1]}


# MARK: - Storage


class Store:
    """Records in SQLite and upload bytes on disk, under one lock: the engine is a reference, not a benchmark.

    Every upload file is written to a temporary name, flushed and renamed, and only then listed in
    the database, so a killed engine never lists bytes it does not hold.
    """

    def __init__(self, folder, resumable_max_age=RESUMABLE_MAX_AGE):
        self.folder = folder
        self.resumable_max_age = resumable_max_age
        self.uploads = os.path.join(folder, "uploads")
        os.makedirs(self.uploads, exist_ok=True)
        self.lock = threading.RLock()
        self.db = sqlite3.connect(os.path.join(folder, "engine.sqlite"), check_same_thread=False, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.executescript(
            """
            CREATE TABLE IF NOT EXISTS uploads (
                request_id TEXT NOT NULL, idx INTEGER NOT NULL, sha256 TEXT NOT NULL, byte_count INTEGER NOT NULL,
                received_at TEXT NOT NULL, PRIMARY KEY (request_id, idx));
            CREATE TABLE IF NOT EXISTS captures (
                sequence INTEGER PRIMARY KEY AUTOINCREMENT, request_id TEXT NOT NULL UNIQUE, record TEXT NOT NULL,
                request TEXT);
            CREATE TABLE IF NOT EXISTS operations (
                sequence INTEGER PRIMARY KEY AUTOINCREMENT, request_id TEXT NOT NULL UNIQUE, record TEXT NOT NULL,
                request TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS resumable_uploads (
                token TEXT PRIMARY KEY, request_id TEXT NOT NULL, idx INTEGER NOT NULL, content_type TEXT NOT NULL,
                completed_byte_count INTEGER, touched_at REAL);
            """
        )
        self.resumable = os.path.join(folder, "resumable")
        os.makedirs(self.resumable, exist_ok=True)
        # Data from before resources expired: their age starts now.
        if "touched_at" not in [column[1] for column in self.db.execute("PRAGMA table_info(resumable_uploads)")]:
            self.db.execute("ALTER TABLE resumable_uploads ADD COLUMN touched_at REAL")
        self.db.execute("UPDATE resumable_uploads SET touched_at = ? WHERE touched_at IS NULL", (time.time(),))
        # Data from before replays were compared: its records keep no request, and are answered as replays.
        if "request" not in [column[1] for column in self.db.execute("PRAGMA table_info(captures)")]:
            self.db.execute("ALTER TABLE captures ADD COLUMN request TEXT")

    def upload_path(self, request_id, index):
        return os.path.join(self.uploads, request_id, "%d.jpg" % index)

    def upload(self, request_id, index):
        row = self.db.execute(
            "SELECT sha256, byte_count, received_at FROM uploads WHERE request_id = ? AND idx = ?", (request_id, index)
        ).fetchone()
        return None if row is None else {"sha256": row[0], "byte_count": row[1], "received_at": row[2]}

    def put_upload(self, request_id, index, body, digest):
        path = self.upload_path(request_id, index)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        temporary = "%s.%d.%d.tmp" % (path, os.getpid(), threading.get_ident())
        with open(temporary, "wb") as file:
            file.write(body)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
        self.db.execute(
            "INSERT INTO uploads (request_id, idx, sha256, byte_count, received_at) VALUES (?, ?, ?, ?, ?)",
            (request_id, index, digest, len(body), utc_now()),
        )

    def put_upload_file(self, request_id, index, source, digest, byte_count):
        """A completed resumable upload's file, flushed already, renamed into place and then listed."""
        path = self.upload_path(request_id, index)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.replace(source, path)
        self.db.execute(
            "INSERT INTO uploads (request_id, idx, sha256, byte_count, received_at) VALUES (?, ?, ?, ?, ?)",
            (request_id, index, digest, byte_count, utc_now()),
        )

    def part_path(self, token):
        return os.path.join(self.resumable, token + ".part")

    def create_resumable(self, request_id, index, content_type):
        """A new upload resource, its (empty) part file on disk before it is listed."""
        token = os.urandom(16).hex()
        with open(self.part_path(token), "wb") as file:
            os.fsync(file.fileno())
        self.db.execute(
            "INSERT INTO resumable_uploads (token, request_id, idx, content_type, touched_at) VALUES (?, ?, ?, ?, ?)",
            (token, request_id, index, content_type, time.time()),
        )
        return token

    def touch_resumable(self, token):
        """Starts the resource's age again: an append is moving it on."""
        self.db.execute("UPDATE resumable_uploads SET touched_at = ? WHERE token = ?", (time.time(), token))

    def expire_resumable(self):
        """Gives up every unfinished resource that no request touched for `resumable_max_age`
        seconds: its row and its bytes go, and a request for it is then 404."""
        cutoff = time.time() - self.resumable_max_age
        expired = self.db.execute(
            "SELECT token FROM resumable_uploads WHERE completed_byte_count IS NULL AND touched_at < ?", (cutoff,)
        ).fetchall()
        for (token,) in expired:
            self.remove_resumable(token)
        return len(expired)

    def resumable_upload(self, token):
        """The resource's key, media type and offset (the bytes on disk, or the completed count), or None."""
        row = self.db.execute(
            "SELECT request_id, idx, content_type, completed_byte_count FROM resumable_uploads WHERE token = ?",
            (token,),
        ).fetchone()
        if row is None:
            return None
        complete = row[3] is not None
        try:
            offset = row[3] if complete else os.path.getsize(self.part_path(token))
        except OSError:
            return None
        return {"request_id": row[0], "index": row[1], "content_type": row[2], "complete": complete,
                "offset": offset}

    def complete_resumable(self, token, byte_count):
        self.db.execute("UPDATE resumable_uploads SET completed_byte_count = ? WHERE token = ?", (byte_count, token))

    def remove_resumable(self, token):
        self.db.execute("DELETE FROM resumable_uploads WHERE token = ?", (token,))
        try:
            os.remove(self.part_path(token))
        except OSError:
            pass

    def record(self, request_id):
        row = self.db.execute("SELECT record FROM captures WHERE request_id = ?", (request_id,)).fetchone()
        return None if row is None else json.loads(row[0])

    def request_of(self, request_id):
        """The canonical form of the request that created the record (see `canonical`), or None."""
        row = self.db.execute("SELECT request FROM captures WHERE request_id = ?", (request_id,)).fetchone()
        return None if row is None else row[0]

    def records(self):
        return [json.loads(row[0]) for row in self.db.execute("SELECT record FROM captures ORDER BY sequence")]

    def add_record(self, record, request):
        self.db.execute(
            "INSERT INTO captures (request_id, record, request) VALUES (?, ?, ?)",
            (record["request_id"], json.dumps(record, sort_keys=True), canonical(request)),
        )

    def operation(self, request_id):
        """The operation's record and the canonical form of the request that made it, or None."""
        row = self.db.execute("SELECT record, request FROM operations WHERE request_id = ?", (request_id,)).fetchone()
        return None if row is None else (json.loads(row[0]), row[1])

    def operations(self):
        """Every operation's record, in the order the engine created them."""
        return [json.loads(row[0]) for row in self.db.execute("SELECT record FROM operations ORDER BY sequence")]

    def add_operation(self, record, request):
        self.db.execute(
            "INSERT INTO operations (request_id, record, request) VALUES (?, ?, ?)",
            (record["request_id"], json.dumps(record, sort_keys=True), canonical(request)),
        )

    def state(self):
        """Everything, for tests: the records, and each upload with a digest of the bytes on disk now."""
        uploads = []
        for request_id, index, sha256, byte_count in self.db.execute(
            "SELECT request_id, idx, sha256, byte_count FROM uploads ORDER BY request_id, idx"
        ):
            try:
                with open(self.upload_path(request_id, index), "rb") as file:
                    on_disk = hashlib.sha256(file.read()).hexdigest()
            except OSError:
                on_disk = None
            uploads.append(
                {"request_id": request_id, "index": index, "sha256": sha256, "byte_count": byte_count,
                 "sha256_on_disk": on_disk}
            )
        self.expire_resumable()
        resumable = []
        for (token,) in self.db.execute("SELECT token FROM resumable_uploads ORDER BY rowid").fetchall():
            held = self.resumable_upload(token)
            if held is not None:
                resumable.append({"token": token, "request_id": held["request_id"], "index": held["index"],
                                  "offset": held["offset"], "complete": held["complete"]})
        return {"records": self.records(), "operations": self.operations(), "uploads": uploads,
                "resumable_uploads": resumable}


def canonical(request):
    """The form in which two requests (two captures, or two operations) are compared: the
    documented fields only, as `parse_capture` and `parse_operation` read them (an empty
    `captured_at` is null, `place` is latitude and longitude, an absent width is no width), media
    in index order, keys sorted, no white space. Two bodies that differ only in key order, white
    space, number spelling or fields the protocol does not know are the same request."""
    normal = dict(request, media=sorted(request["media"], key=lambda item: item["index"]))
    return json.dumps(normal, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


# MARK: - Faults


class Fault:
    """One way to fail, for the next `count` requests that match `method` and `path_prefix`.

    Modes: "status" answers `status` (with `retry_after` as Retry-After, if given) without doing
    anything; "drop_connection" closes the connection as soon as the request line and headers
    are read; "delay" waits `seconds` and then handles the request normally; "hold" waits until
    the test releases it (`POST /_engine/release`) and then handles it normally; "drop_reply" handles
    the request (stores what it stores) and then closes the connection instead of answering;
    "cut_body" reads `after` bytes of the request's body and then closes the connection, as a
    network that drops mid-upload (a resumable upload keeps what came).
    """

    MODES = ("status", "drop_connection", "delay", "hold", "drop_reply", "cut_body")

    def __init__(self, spec):
        self.mode = spec.get("mode")
        if self.mode not in self.MODES:
            raise ValueError("mode must be one of %s" % ", ".join(self.MODES))
        self.count = int(spec.get("count", 1))
        self.status = int(spec.get("status", 503))
        self.retry_after = spec.get("retry_after")
        self.seconds = float(spec.get("seconds", 1))
        self.method = spec.get("method")
        self.path_prefix = spec.get("path_prefix", "/v1/")
        self.after = int(spec.get("after", 0))
        if self.count < 1 or not 100 <= self.status <= 599 or self.seconds < 0 or self.after < 0:
            raise ValueError("count must be at least 1, status 100-599, seconds and after at least 0")

    @staticmethod
    def parse(text):
        """A fault from "mode=status,status=503,count=2,retry_after=30" (the --fault flag)."""
        spec = dict(part.split("=", 1) for part in text.split(",") if "=" in part)
        return Fault(spec)

    def matches(self, method, path):
        return (self.method is None or self.method == method) and path.startswith(self.path_prefix)

    def describe(self):
        return {key: getattr(self, key) for key in ("mode", "count", "status", "retry_after", "seconds", "method",
                                                     "path_prefix", "after")}


# MARK: - HTTP


class EngineError(Exception):
    """An answer other than success: the status, a machine code and one sentence for people."""

    def __init__(self, status, code, message, headers=None):
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers or {}


class ConnectionCut(Exception):
    """The request's body ended before its Content-Length: the connection was cut mid-upload."""

    def __init__(self, received):
        super().__init__("cut after %d bytes" % received)
        self.received = received


class Engine(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, store, faults=(), protocol_version=PROTOCOL_VERSION):
        super().__init__(address, Handler)
        self.store = store
        self.protocol_version = protocol_version
        self.faults = list(faults)
        self.faults_lock = threading.Lock()
        self.in_flight = set()
        self.released = threading.Event()  # set by POST /_engine/release: what "hold" waits for
        self.held = 0  # the requests waiting for it
        self.requests = []  # the request log: method, path, status or what happened instead

    def take_fault(self, method, path):
        with self.faults_lock:
            for fault in self.faults:
                if fault.matches(method, path):
                    fault.count -= 1
                    if fault.count == 0:
                        self.faults.remove(fault)
                    return fault
        return None

    def log(self, handler, method, path, outcome, replayed=False):
        parts = path.strip("/").split("/")
        request_id = handler.headers.get("Idempotency-Key") if parts in (["v1", "captures"], ["v1", "operations"]) \
            else parts[2] if len(parts) > 2 else None
        with self.faults_lock:
            self.requests.append({"method": method, "path": path, "request_id": request_id, "outcome": outcome,
                                  "replayed": replayed})


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as phones use it; every answer has a Content-Length
    server_version = "ReferenceEngine/1"
    cut_after = None  # the bytes of the body read before a cut_body fault closes the connection
    method = None
    wait = None  # the "delay" or "hold" fault this request keeps to

    def log_message(self, format, *args):  # quiet: tests read the request log instead
        pass

    def do_GET(self):
        self.dispatch("GET")

    def do_PUT(self):
        self.dispatch("PUT")

    def do_HEAD(self):
        self.dispatch("HEAD")

    def do_PATCH(self):
        self.dispatch("PATCH")

    def do_POST(self):
        self.dispatch("POST")

    def do_DELETE(self):
        self.dispatch("DELETE")

    def dispatch(self, method):
        path = urllib.parse.urlsplit(self.path).path
        if path.startswith("/_engine/"):
            return self.control(method, path)
        fault = self.server.take_fault(method, path)
        if fault and fault.mode == "drop_connection":
            self.server.log(self, method, path, "connection dropped")
            return self.drop()
        # A record waits while its key is in flight, so that a replay sent meanwhile meets 409.
        self.wait = fault if fault and fault.mode in ("delay", "hold") else None
        if self.wait and not (method == "POST" and path in ("/v1/captures", "/v1/operations")):
            self.wait_as_told()
        if fault and fault.mode == "status":
            self.discard_body()
            headers = {"Retry-After": str(fault.retry_after)} if fault.retry_after is not None else {}
            self.server.log(self, method, path, fault.status)
            return self.answer(
                fault.status, {"error": "injected", "message": "an injected failure (HTTP %d)" % fault.status}, headers
            )
        replayed = False
        self.body_read = False
        self.cut_after = fault.after if fault and fault.mode == "cut_body" else None
        self.method = method
        try:
            status, body, headers = self.route(method, path)
            replayed = headers.get("Idempotent-Replayed") == "true"
        except ConnectionCut as cut:
            self.server.log(self, method, path, "connection cut after %d bytes of the body" % cut.received)
            return self.drop()
        except EngineError as error:
            status, body, headers = error.status, {"error": error.code, "message": error.message}, error.headers
            if not self.body_read:
                self.discard_body()
        if fault and fault.mode == "drop_reply":
            self.server.log(self, method, path, "reply dropped after %d" % status, replayed)
            return self.drop()
        self.server.log(self, method, path, status, replayed)
        self.answer(status, body, headers)

    def wait_as_told(self):
        """What a "delay" or "hold" fault asks of this request: `seconds`, or until the test's release."""
        if self.wait is None:
            return
        if self.wait.mode == "hold":
            with self.server.faults_lock:
                self.server.held += 1
            try:
                self.server.released.wait()
            finally:
                with self.server.faults_lock:
                    self.server.held -= 1
        else:
            time.sleep(self.wait.seconds)

    def route(self, method, path):
        parts = path.strip("/").split("/")
        if parts[:2] == ["v1", "uploads"] and len(parts) == 4:
            request_id, index = parse_id(parts[2]), parse_index(parts[3])
            version = self.interop_version()
            if version is not None and method in ("PUT", "POST"):
                return self.create_resumable(request_id, index, version)
            if method != "PUT":
                raise EngineError(405, "method_not_allowed", "Uploads take PUT.", {"Allow": "PUT"})
            return self.put_upload(request_id, index)
        if parts[:2] == ["v1", "uploads"] and len(parts) == 5:
            return self.resumable_resource(method, parse_id(parts[2]), parse_index(parts[3]), parts[4])
        if parts == ["v1", "captures"]:
            if method == "POST":
                return self.post_record(parse_capture, self.create)
            if method == "GET":
                return 200, {"records": self.server.store.records()}, {}
            raise EngineError(405, "method_not_allowed", "Captures take POST or GET.", {"Allow": "GET, POST"})
        if parts[:2] == ["v1", "captures"] and len(parts) == 3:
            if method != "GET":
                raise EngineError(405, "method_not_allowed", "A capture takes GET.", {"Allow": "GET"})
            request_id = parse_id(parts[2])
            with self.server.store.lock:
                record = self.server.store.record(request_id)
            if record is None:
                raise EngineError(404, "not_found", "No capture has the request id '%s'." % request_id)
            return 200, record, {}
        if parts == ["v1", "operations"]:
            if method == "POST":
                return self.post_record(parse_operation, self.create_operation)
            if method == "GET":
                with self.server.store.lock:
                    return 200, {"records": self.server.store.operations()}, {}
            raise EngineError(405, "method_not_allowed", "Operations take POST or GET.", {"Allow": "GET, POST"})
        if parts[:2] == ["v1", "operations"] and len(parts) == 3:
            if method != "GET":
                raise EngineError(405, "method_not_allowed", "An operation takes GET.", {"Allow": "GET"})
            request_id = parse_id(parts[2])
            with self.server.store.lock:
                held = self.server.store.operation(request_id)
            if held is None:
                raise EngineError(404, "not_found", "No operation has the request id '%s'." % request_id)
            return 200, held[0], {}
        raise EngineError(404, "not_found", "No such endpoint: %s %s." % (method, path))

    def put_upload(self, request_id, index):
        # A capture's photos are image/jpeg (the contract); an operation's attachments may be any
        # media type (the extension).
        if not MEDIA_TYPE_PATTERN.match(self.headers.get("Content-Type", "").split(";")[0].strip()):
            raise EngineError(415, "unsupported_media_type", "An upload needs a media type, such as image/jpeg.")
        body = self.read_body(MAX_UPLOAD_BYTES)
        digest = hashlib.sha256(body).hexdigest()
        store = self.server.store
        return self.hold_upload(
            request_id, index, digest, len(body), lambda: store.put_upload(request_id, index, body, digest))

    def hold_upload(self, request_id, index, digest, byte_count, keep):
        """The contract's answer to a whole upload, however it came (one PUT, or the last append
        of a resumable one): 201 after `keep()` stores it under a new key, 200 when the key holds
        exactly these bytes, 422 upload_conflict when it holds others (and keeps them)."""
        store = self.server.store
        with store.lock:
            held = store.upload(request_id, index)
            if held is None:
                keep()
                held = store.upload(request_id, index)
                status = 201
            elif held["sha256"] == digest:
                status = 200
            else:
                raise EngineError(
                    422, "upload_conflict",
                    "Upload %d of '%s' already holds different bytes (SHA-256 %s, these are %s)."
                    % (index, request_id, held["sha256"], digest),
                )
        # The SHA-256 and byte count are of the bytes received, computed here; received_at is when
        # the engine first held them: nothing a server that only mirrors requests could answer.
        answer = {"request_id": request_id, "index": index, "sha256": digest, "byte_count": byte_count,
                  "received_at": held["received_at"]}
        return status, answer, {}

    # Resumable uploads (draft-ietf-httpbis-resumable-upload, interop versions 3, 5, 6)

    def interop_version(self):
        """The request's Upload-Draft-Interop-Version when it is one the engine speaks; None
        without the header; 400 for another version."""
        value = self.headers.get("Upload-Draft-Interop-Version")
        if value is None:
            return None
        if not value.strip().isdigit() or int(value.strip()) not in INTEROP_VERSIONS:
            raise EngineError(400, "bad_request", "Upload-Draft-Interop-Version is one of %s."
                              % ", ".join(map(str, INTEROP_VERSIONS)))
        return int(value.strip())

    def upload_complete(self, version):
        """Whether the request says its body ends the upload: `Upload-Complete: ?1` (version 5 and
        later) or `Upload-Incomplete: ?0` (version 3); None when it says neither."""
        name, complete_value = ("Upload-Incomplete", "?0") if version == 3 else ("Upload-Complete", "?1")
        value = self.headers.get(name)
        if value is None:
            return None
        value = value.strip()
        if value not in ("?0", "?1"):
            raise EngineError(400, "bad_request", "%s is ?0 or ?1." % name)
        return value == complete_value

    @staticmethod
    def upload_fields(version, complete, offset):
        fields = {"Upload-Draft-Interop-Version": str(version), "Upload-Offset": str(offset)}
        if version == 3:
            fields["Upload-Incomplete"] = "?0" if complete else "?1"
        else:
            fields["Upload-Complete"] = "?1" if complete else "?0"
        return fields

    def create_resumable(self, request_id, index, version):
        """Upload creation: a new upload resource under this key, announced with 104 (Location)
        before a body is read, so that a client cut off mid-body can ask how much arrived."""
        complete = self.upload_complete(version)
        if complete is None:
            raise EngineError(400, "bad_request", "A resumable upload's creation says whether it is complete.")
        content_type = self.headers.get("Content-Type", "").split(";")[0].strip()
        if not MEDIA_TYPE_PATTERN.match(content_type):
            raise EngineError(415, "unsupported_media_type", "An upload needs a media type, such as image/jpeg.")
        length = self.content_length()
        store = self.server.store
        with store.lock:
            store.expire_resumable()
            token = store.create_resumable(request_id, index, content_type)
        location = "/v1/uploads/%s/%d/%s" % (request_id, index, token)
        if length:
            self.send_response_only(104, "Upload Resumption Supported")
            self.send_header("Upload-Draft-Interop-Version", str(version))
            self.send_header("Location", location)
            self.end_headers()
            self.wfile.flush()
        return self.append(token, 0, length, complete, version, {"Location": location})

    def resumable_resource(self, method, request_id, index, token):
        """HEAD (the offset), PATCH (an append from it) and DELETE (give up) on an upload resource."""
        store = self.server.store
        with store.lock:
            store.expire_resumable()
            held = store.resumable_upload(token) if TOKEN_PATTERN.match(token) else None
        if held is None or held["request_id"] != request_id or held["index"] != index:
            raise EngineError(404, "not_found", "No resumable upload is at %s." % self.path)
        version = self.interop_version()
        if version is None:
            raise EngineError(400, "bad_request", "A resumable upload's request carries Upload-Draft-Interop-Version.")
        if method == "HEAD":
            # An append still arriving (its client already cut off) would make the offset stale: wait for it.
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                with self.server.faults_lock:
                    if ("upload", token) not in self.server.in_flight:
                        break
                time.sleep(0.01)
            with store.lock:
                held = store.resumable_upload(token)
            if held is None:
                raise EngineError(404, "not_found", "No resumable upload is at %s." % self.path)
            headers = self.upload_fields(version, held["complete"], held["offset"])
            headers["Cache-Control"] = "no-store"
            return 204, None, headers
        if method == "DELETE":
            with store.lock:
                store.remove_resumable(token)
            return 204, None, {"Upload-Draft-Interop-Version": str(version)}
        if method != "PATCH":
            raise EngineError(405, "method_not_allowed", "An upload resource takes HEAD, PATCH or DELETE.",
                              {"Allow": "HEAD, PATCH, DELETE"})
        if version >= 6 and self.headers.get("Content-Type", "").split(";")[0].strip() != "application/partial-upload":
            raise EngineError(415, "unsupported_media_type", "An append's Content-Type is application/partial-upload.")
        offset = self.headers.get("Upload-Offset", "").strip()
        complete = self.upload_complete(version)
        if not SF_INTEGER_PATTERN.match(offset) or complete is None:
            raise EngineError(400, "bad_request", "An append carries Upload-Offset and whether it completes the upload.")
        if held["complete"]:
            raise EngineError(400, "upload_completed", "The upload at %s is complete; it takes no more bytes."
                              % self.path, self.upload_fields(version, True, held["offset"]))
        if int(offset) != held["offset"]:
            raise EngineError(409, "mismatching_upload_offset", "The upload at %s holds %d bytes, not %s."
                              % (self.path, held["offset"], offset),
                              self.upload_fields(version, False, held["offset"]))
        return self.append(token, held["offset"], self.content_length(), complete, version, {})

    def content_length(self):
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            self.close_connection = True
            raise EngineError(411, "length_required", "The request needs a Content-Length.")
        return int(length)

    def append(self, token, offset, length, complete, version, headers):
        """Appends the body to the resource's part file from `offset`, a chunk at a time and
        flushed, so that what came before a cut is kept; the last append hashes the whole file
        and holds it as the contract's upload."""
        store = self.server.store
        if offset + length > MAX_UPLOAD_BYTES:
            self.close_connection = True
            raise EngineError(413, "too_large", "The upload would have %d bytes; at most %d are taken."
                              % (offset + length, MAX_UPLOAD_BYTES))
        key = ("upload", token)
        with self.server.faults_lock:
            if key in self.server.in_flight:
                raise EngineError(409, "in_progress", "Another request appends to this upload.", {"Retry-After": "1"})
            self.server.in_flight.add(key)
        try:
            self.body_read = True
            received = 0
            with store.lock:
                store.touch_resumable(token)
            with open(store.part_path(token), "r+b") as file:
                file.truncate(offset)
                file.seek(offset)
                limit = length if self.cut_after is None else min(length, self.cut_after)
                while received < limit:
                    chunk = self.rfile.read(min(CHUNK_BYTES, limit - received))
                    if not chunk:
                        break
                    file.write(chunk)
                    received += len(chunk)
                file.flush()
                os.fsync(file.fileno())
            with store.lock:
                store.touch_resumable(token)
            if received < length:
                self.close_connection = True
                raise ConnectionCut(received)
            total = offset + length
            with store.lock:
                held = store.resumable_upload(token)
            if not complete:
                return 201 if headers else 204, None, dict(headers, **self.upload_fields(version, False, total))
            digest = hashlib.sha256()
            with open(store.part_path(token), "rb") as file:
                for block in iter(lambda: file.read(CHUNK_BYTES), b""):
                    digest.update(block)
            digest = digest.hexdigest()

            def keep():
                store.put_upload_file(held["request_id"], held["index"], store.part_path(token), digest, total)

            try:
                status, answer, _ = self.hold_upload(held["request_id"], held["index"], digest, total, keep)
            finally:
                with store.lock:
                    store.complete_resumable(token, total)
                    try:
                        os.remove(store.part_path(token))
                    except OSError:
                        pass
            return status, answer, dict(headers, **self.upload_fields(version, True, total))
        finally:
            with self.server.faults_lock:
                self.server.in_flight.discard(key)

    def post_record(self, parse, create):
        """POST /v1/captures and /v1/operations: the key, the body read by `parse`, one request per
        key at a time, and then `create`."""
        key = self.headers.get("Idempotency-Key")
        if key is None:
            raise EngineError(400, "bad_request", "A record needs an Idempotency-Key header.")
        key = parse_id(key)
        try:
            body = json.loads(self.read_body(MAX_RECORD_BYTES))
        except ValueError:
            raise EngineError(400, "bad_request", "The body is not JSON.")
        request = parse(body)
        if request["request_id"] != key:
            raise EngineError(400, "bad_request", "The request_id '%s' is not the Idempotency-Key '%s'."
                              % (request["request_id"], key))
        with self.server.faults_lock:
            if key in self.server.in_flight:
                kind = "capture" if self.path.startswith("/v1/captures") else "operation"
                raise EngineError(409, "in_progress", "The %s '%s' is still being processed." % (kind, key),
                                  {"Retry-After": "1"})
            self.server.in_flight.add(key)
        try:
            self.wait_as_told()
            status, record, headers = create(request)
            return status, as_of_version(record, self.server.protocol_version), headers
        finally:
            with self.server.faults_lock:
                self.server.in_flight.discard(key)

    def create(self, request):
        store = self.server.store
        with store.lock:
            if store.operation(request["request_id"]) is not None:
                raise key_reused(request["request_id"], "an operation")
            held = store.record(request["request_id"])
            if held is not None:
                # The IETF Idempotency-Key draft: a key reused with another body is refused, not replayed.
                first = store.request_of(request["request_id"])
                if first is not None and first != canonical(request):
                    raise EngineError(
                        422, "idempotency_key_reused",
                        "The Idempotency-Key '%s' was already used for a capture with a different body;"
                        " the engine keeps the first one." % request["request_id"],
                    )
                return 200, held, {"Idempotent-Replayed": "true"}
            camera = {"captured_at": None, "place": None}
            media = self.held_media(request, "capture")
            for item in media:
                with open(store.upload_path(request["request_id"], item["index"]), "rb") as file:
                    found = read_exif(file.read())
                camera = {key: camera[key] or found[key] for key in camera}
            record = dict(request, media=media, received_at=utc_now())
            # The camera's own clock first, then the client's, then now; the photo's GPS over the client's.
            for key, sources in (("captured_at", ("camera", "client", "server")), ("place", ("photo", "client"))):
                if camera[key] is not None:
                    record[key], record[key + "_source"] = camera[key], sources[0]
                elif request[key] is not None:
                    record[key + "_source"] = sources[1]
                elif key == "captured_at":
                    record[key], record[key + "_source"] = utc_now(), sources[2]
                else:
                    record[key + "_source"] = None
            store.add_record(record, request)
        return 201, record, {"Location": "/v1/captures/" + request["request_id"]}

    def held_media(self, request, what):
        """The request's media with each upload's byte count, once every upload has arrived with
        the SHA-256 the request names; otherwise 422 upload_missing or checksum_mismatch."""
        store, media = self.server.store, []
        for item in sorted(request["media"], key=lambda item: item["index"]):
            upload = store.upload(request["request_id"], item["index"])
            if upload is None:
                raise EngineError(422, "upload_missing", "Upload %d of '%s' has not arrived."
                                  % (item["index"], request["request_id"]))
            if upload["sha256"] != item["sha256"]:
                raise EngineError(
                    422, "checksum_mismatch",
                    "Upload %d of '%s' has SHA-256 %s, not %s as the %s says."
                    % (item["index"], request["request_id"], upload["sha256"], item["sha256"], what),
                )
            media.append(dict(item, byte_count=upload["byte_count"]))
        return media

    def create_operation(self, request):
        """An operation (the extension): kept as it came, its payload untouched, with each
        upload's byte count and the time it was received."""
        store = self.server.store
        with store.lock:
            if store.record(request["request_id"]) is not None:
                raise key_reused(request["request_id"], "a capture")
            held = store.operation(request["request_id"])
            if held is not None:
                if held[1] != canonical(request):
                    raise key_reused(request["request_id"], "an operation with a different body")
                return 200, held[0], {"Idempotent-Replayed": "true"}
            record = dict(request, media=self.held_media(request, "operation"), received_at=utc_now())
            store.add_operation(record, request)
        return 201, record, {"Location": "/v1/operations/" + request["request_id"]}

    def control(self, method, path):
        """The test-only endpoints: faults to inject, and the whole state to inspect."""
        server = self.server
        if path == "/_engine/faults" and method == "POST":
            try:
                fault = Fault(json.loads(self.read_body(MAX_RECORD_BYTES)))
            except (ValueError, TypeError) as error:
                return self.answer(400, {"error": "bad_request", "message": str(error)})
            with server.faults_lock:
                server.faults.append(fault)
                if fault.mode == "hold":
                    server.released.clear()
            return self.answer(201, fault.describe())
        if path == "/_engine/release" and method == "POST":
            server.released.set()
            return self.answer(200, {"released": True})
        if path == "/_engine/faults" and method == "DELETE":
            with server.faults_lock:
                server.faults.clear()
            return self.answer(200, {"faults": []})
        if path == "/_engine/state" and method == "GET":
            with server.store.lock:
                state = server.store.state()
            with server.faults_lock:
                state["requests"] = list(server.requests)
                state["faults"] = [fault.describe() for fault in server.faults]
                state["held"] = server.held
            return self.answer(200, state)
        self.discard_body()
        return self.answer(404, {"error": "not_found", "message": "No such control endpoint: %s %s." % (method, path)})

    # Bodies and answers

    def read_body(self, limit):
        self.body_read = True
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            return self.read_chunked(limit)
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit():
            self.close_connection = True
            raise EngineError(411, "length_required", "The request needs a Content-Length.")
        if int(length) > limit:
            self.close_connection = True
            raise EngineError(413, "too_large", "The body has %s bytes; at most %d are taken." % (length, limit))
        if self.cut_after is not None and self.cut_after < int(length):
            self.rfile.read(self.cut_after)
            self.close_connection = True
            raise ConnectionCut(self.cut_after)
        body = self.rfile.read(int(length))
        if len(body) != int(length):
            self.close_connection = True
            raise EngineError(400, "bad_request", "The body ended after %d of %s bytes." % (len(body), length))
        return body

    def read_chunked(self, limit):
        body = b""
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass
                return body
            body += self.rfile.read(size)
            self.rfile.readline()
            if len(body) > limit:
                self.close_connection = True
                raise EngineError(413, "too_large", "The body has more than %d bytes." % limit)

    def discard_body(self):
        try:
            self.read_body(MAX_UPLOAD_BYTES)
        except EngineError:
            self.close_connection = True

    def answer(self, status, body, headers=None):
        """The answer: `body` as JSON, or none at all when it is None (a 204, or an answer to HEAD)."""
        no_body = body is None or getattr(self, "method", None) == "HEAD"
        payload = b"" if no_body else (json.dumps(body, sort_keys=True) + "\n").encode()
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        if status != 204:
            self.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        if self.close_connection or self.headers.get("Connection", "").lower() == "close":
            self.send_header("Connection", "close")  # so that the client never reuses a connection that closes
        self.end_headers()
        self.wfile.write(payload)

    def drop(self):
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def parse_id(text):
    if not ID_PATTERN.match(text):
        raise EngineError(400, "bad_request", "A request id is 1 to 128 letters, digits, '-' or '_'.")
    return text


def parse_index(text):
    if not text.isdigit() or len(text) > 6:
        raise EngineError(400, "bad_request", "An upload index is a whole number from 0.")
    return int(text)


def key_reused(request_id, what):
    """The IETF Idempotency-Key draft's answer to a key used for another request than its first."""
    return EngineError(
        422, "idempotency_key_reused",
        "The Idempotency-Key '%s' was already used for %s; the engine keeps the first one." % (request_id, what),
    )


def parse_operation(body):
    """The operation request's fields, checked for type; anything else is a 400 naming the field.
    The payload may be any JSON value, and is kept as it came."""
    def fail(field, what):
        raise EngineError(400, "bad_request", "'%s' must be %s." % (field, what))

    if not isinstance(body, dict):
        fail("body", "a JSON object")
    if not isinstance(body.get("request_id"), str):
        fail("request_id", "a string")
    entity = body.get("entity")
    if entity is not None and (not isinstance(entity, str) or not entity
                               or len(entity.encode()) > MAX_ENTITY_BYTES
                               or any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in entity)):
        fail("entity", "null or 1 to %d bytes of text without control characters" % MAX_ENTITY_BYTES)
    if not isinstance(body.get("type"), str) or not TYPE_PATTERN.match(body["type"]):
        fail("type", "1 to 64 letters, digits, '.', '-' or '_', starting with a letter")
    version = body.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        fail("version", "a whole number from 1")
    if "payload" not in body:
        fail("payload", "present (any JSON value, null included)")
    media = body.get("media")
    if not isinstance(media, list) or len(media) > MAX_MEDIA:
        fail("media", "a list of at most %d uploads" % MAX_MEDIA)
    request = {key: body[key] for key in ("request_id", "type", "version", "payload")}
    request["entity"] = entity
    request["media"] = []
    for item in media:
        ok = isinstance(item, dict) and isinstance(item.get("index"), int) and not isinstance(item["index"], bool) \
            and item["index"] >= 0 and isinstance(item.get("sha256"), str) and SHA256_PATTERN.match(item["sha256"]) \
            and all(item.get(key) is None or (isinstance(item[key], int) and not isinstance(item[key], bool)
                                              and item[key] >= 0) for key in ("width", "height"))
        if not ok:
            fail("media", "a list of {index, sha256 (64 lowercase hex digits), width?, height?}")
        request["media"].append(
            {key: item[key] for key in ("index", "sha256", "width", "height") if item.get(key) is not None})
    if len({item["index"] for item in request["media"]}) != len(request["media"]):
        fail("media", "a list whose indexes differ")
    return request


def parse_capture(body):
    """The capture request's fields, checked for type; anything else is a 400 naming the field."""
    def fail(field, what):
        raise EngineError(400, "bad_request", "'%s' must be %s." % (field, what))

    if not isinstance(body, dict):
        fail("body", "a JSON object")
    request = {}
    for field in ("request_id", "kind", "note"):
        if not isinstance(body.get(field), str):
            fail(field, "a string")
        request[field] = body[field]
    for field in ("captured_at", "time_zone"):
        value = body.get(field)
        if value is not None and not isinstance(value, str):
            fail(field, "a string or null")
        request[field] = value or None
    place = body.get("place")
    if place is not None:
        numbers = [place.get(key) if isinstance(place, dict) else None for key in ("latitude", "longitude")]
        if not all(isinstance(n, (int, float)) and not isinstance(n, bool) for n in numbers) or \
                abs(numbers[0]) > 90 or abs(numbers[1]) > 180:
            fail("place", "null or {\"latitude\": -90..90, \"longitude\": -180..180}")
        place = {"latitude": numbers[0], "longitude": numbers[1]}
    request["place"] = place
    media = body.get("media")
    if not isinstance(media, list) or len(media) > MAX_MEDIA:
        fail("media", "a list of at most %d uploads" % MAX_MEDIA)
    request["media"] = []
    for item in media:
        ok = isinstance(item, dict) and all(
            isinstance(item.get(key), int) and not isinstance(item.get(key), bool) and item[key] >= 0
            for key in ("index", "width", "height")
        ) and isinstance(item.get("sha256"), str) and SHA256_PATTERN.match(item["sha256"])
        if not ok:
            fail("media", "a list of {index, sha256 (64 lowercase hex digits), width, height}")
        request["media"].append({key: item[key] for key in ("index", "sha256", "width", "height")})
    if len({item["index"] for item in request["media"]}) != len(request["media"]):
        fail("media", "a list whose indexes differ")
    return request


def as_of_version(record, version):
    """A record answered as an engine written to `version` of docs/engine-protocol.md answers it:
    version 1 knew neither `received_at` nor each upload's `byte_count`, which version 2 requires."""
    if version >= 2:
        return record
    media = [{key: value for key, value in item.items() if key != "byte_count"} for item in record["media"]]
    return dict({key: value for key, value in record.items() if key != "received_at"}, media=media)


def main(arguments=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8080, help="0 picks a free port (default 8080)")
    parser.add_argument("--data", default="engine-data", help="folder for engine.sqlite and uploads/")
    parser.add_argument("--fault", action="append", default=[], type=Fault.parse,
                        help="a fault to start with, e.g. mode=status,status=503,count=2,retry_after=30;"
                             " mode=drop_reply,method=POST; mode=delay,seconds=2; mode=drop_connection")
    parser.add_argument("--protocol-version", type=int, choices=range(1, PROTOCOL_VERSION + 1),
                        default=PROTOCOL_VERSION,
                        help="answer records as an engine written to this version of docs/engine-protocol.md"
                             " does (default %d; 1 leaves out received_at and byte_count)" % PROTOCOL_VERSION)
    parser.add_argument("--expire-resumable-after", type=float, default=RESUMABLE_MAX_AGE, metavar="SECONDS",
                        help="give up an unfinished resumable upload that no request touched for this long"
                             " (default %d, a day)" % RESUMABLE_MAX_AGE)
    parser.add_argument("--dump", action="store_true",
                        help="print the records (captures, then operations) as JSON lines and exit")
    options = parser.parse_args(arguments)
    if options.expire_resumable_after <= 0:
        parser.error("--expire-resumable-after is more than 0 seconds")
    store = Store(options.data, options.expire_resumable_after)
    if options.dump:
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `--dump | head` ends quietly
        for record in store.records() + store.operations():
            print(json.dumps(record, sort_keys=True))
        return
    # SIGTERM stops the engine even when the parent started it with SIGTERM ignored or blocked
    # (a child inherits both, and test runners start processes from threads that block signals).
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(0))
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM, signal.SIGINT])
    engine = Engine((options.host, options.port), store, options.fault, options.protocol_version)
    host, port = engine.server_address[:2]
    print(json.dumps({"port": port, "url": "http://%s:%d" % (host, port), "data": os.path.abspath(options.data)}),
          flush=True)
    try:
        engine.serve_forever()
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        engine.server_close()


if __name__ == "__main__":
    main()
