#!/usr/bin/env python3
"""Checks a live engine against docs/engine-protocol.md, rule by rule: the capture API of the
contract, and the operations of the extension.

    python3 engine/conformance.py http://127.0.0.1:8080          # one line per rule
    python3 engine/conformance.py https://engine.example.com/api  # a base URL with a path works too

Resumable uploads are optional: an engine that does not offer them skips those rules ("skip"), and
keeps the one that a client relies on either way: a refused creation leaves the key to the
contract's PUT ("upload-after-creation").

It exits 0 only when the engine keeps every rule, 1 when it breaks one, 2 for a usage error. It
sends real requests under request ids of its own (`conformance-<random>-...`), new on every run,
so it can run against an engine that holds other data, any number of times; what it creates
stays there. Python's standard library only, like the reference engine: nothing to install.
"""

import argparse
import base64
import hashlib
import http.client
import json
import os
import re
import sys
import urllib.parse

# An 8x8 baseline JPEG without EXIF (286 bytes, made with ImageMagick); each run makes its own
# bytes from it by adding a comment segment, so that its uploads are new to the engine.
TINY_JPEG = base64.b64decode(
    "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19i"
    "Z2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2Nj"
    "Y2NjY2NjY2P/wAARCAAIAAgDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAT/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QA"
    "FAEBAAAAAAAAAAAAAAAAAAAABP/EABQRAQAAAAAAAAAAAAAAAAAAAAD/2gAMAwEAAhEDEQA/ALQDRH//2Q=="
)
MAX_ANSWER_BYTES = 1024 * 1024
# An ISO 8601 moment in UTC: "2024-04-30T12:02:05Z", "...+00:00", with or without a fraction.
RECEIVED_AT = re.compile(r"\A\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|\+00:00)\Z")


def jpeg(comment):
    """TINY_JPEG with a COM segment holding `comment` after its SOI marker."""
    text = comment.encode()
    return TINY_JPEG[:2] + b"\xff\xfe" + (len(text) + 2).to_bytes(2, "big") + text + TINY_JPEG[2:]


def sha256(data):
    return hashlib.sha256(data).hexdigest()


class Answer:
    def __init__(self, status, headers, body):
        self.status, self.headers, self.body = status, headers, body
        try:
            self.json = json.loads(body) if body else None
        except ValueError:
            self.json = None

    def header(self, name):
        return next((value for key, value in self.headers if key.lower() == name.lower()), None)

    def __str__(self):
        text = self.body[:300].decode("utf-8", "replace").replace("\n", " ")
        return "%d %s" % (self.status, text)


class Engine:
    """Requests to the engine at a base URL, each on a connection of its own."""

    def __init__(self, base, timeout):
        parts = urllib.parse.urlsplit(base)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("the engine's URL must be http:// or https:// with a host, not %r" % base)
        self.parts, self.timeout = parts, timeout
        self.prefix = parts.path.rstrip("/")

    def request(self, method, path, body=None, headers=None):
        kind = http.client.HTTPSConnection if self.parts.scheme == "https" else http.client.HTTPConnection
        connection = kind(self.parts.hostname, self.parts.port, timeout=self.timeout)
        try:
            headers = dict(headers or {}, Connection="close")
            connection.request(method, self.prefix + path, body=body, headers=headers)
            response = connection.getresponse()
            payload = response.read(MAX_ANSWER_BYTES + 1)
            return Answer(response.status, response.getheaders(), payload)
        finally:
            connection.close()

    def put(self, request_id, index, data):
        return self.request("PUT", "/v1/uploads/%s/%d" % (request_id, index), data, {"Content-Type": "image/jpeg"})

    def post(self, record, key):
        return self.request("POST", "/v1/captures", json.dumps(record).encode(),
                            {"Content-Type": "application/json", "Idempotency-Key": key})

    def get(self, request_id):
        return self.request("GET", "/v1/captures/%s" % request_id)

    def post_operation(self, operation, key):
        return self.request("POST", "/v1/operations", json.dumps(operation).encode(),
                            {"Content-Type": "application/json", "Idempotency-Key": key})

    def url(self, path):
        return "%s://%s%s%s" % (self.parts.scheme, self.parts.netloc, self.prefix, path)

    def get_operation(self, request_id):
        return self.request("GET", "/v1/operations/%s" % request_id)


class Failure(Exception):
    pass


def expect(condition, what, answer=None):
    if not condition:
        raise Failure(what + ("; the answer was: %s" % answer if answer is not None else ""))


def expect_error(answer, status, code):
    """The documented error answer: the status, and {"error": code, "message": a sentence}."""
    expect(answer.status == status, "expected %d, got %d" % (status, answer.status), answer)
    body = answer.json
    expect(isinstance(body, dict) and body.get("error") == code,
           'expected the body {"error": "%s", "message": ...}' % code, answer)
    expect(isinstance(body.get("message"), str) and body["message"], "the error has no message", answer)


def expect_upload_answer(answer, status, request_id, index, data):
    expect(answer.status == status, "expected %d, got %d" % (status, answer.status), answer)
    body = answer.json
    expect(isinstance(body, dict), 'expected the body {"request_id", "index", "sha256", "byte_count"}', answer)
    wanted = {"request_id": request_id, "index": index, "sha256": sha256(data), "byte_count": len(data)}
    for key, value in wanted.items():
        expect(body.get(key) == value and type(body.get(key)) is type(value),
               "expected %s %s in the body, got %s" % (key, json.dumps(value), json.dumps(body.get(key))))


def expect_engine_additions(answer, request, sizes):
    """What only an engine that stored the record can answer, so that no server mirroring the
    request passes for one: `received_at` as a UTC ISO 8601 moment, each media entry's
    `byte_count` of the upload it holds, and never the request itself."""
    record = answer.json
    expect(record != request, "the answer is the request itself, not a record the engine made", answer)
    received_at = record.get("received_at")
    expect(isinstance(received_at, str) and RECEIVED_AT.match(received_at) is not None,
           "expected received_at, when the engine received it, in UTC ISO 8601, got %s" % json.dumps(received_at))
    for held in record.get("media") or []:
        index = held.get("index") if isinstance(held, dict) else None
        if index in sizes:
            expect(held.get("byte_count") == sizes[index] and type(held.get("byte_count")) is int,
                   "expected media byte_count %d, got %s" % (sizes[index], json.dumps(held.get("byte_count"))))


def expect_record(answer, status, request, sizes):
    """A record: the request's fields with the engine's decisions applied. The photo carries no
    EXIF, so the client's time and place stand; each media entry keeps its index, SHA-256 and size,
    and adds the byte count of its upload (`sizes`, by index)."""
    expect(answer.status == status, "expected %d, got %d" % (status, answer.status), answer)
    record = answer.json
    expect(isinstance(record, dict), "expected the record as a JSON object", answer)
    expect_engine_additions(answer, request, sizes)
    for key in ("request_id", "kind", "note", "captured_at", "time_zone", "place"):
        expect(record.get(key) == request[key],
               "expected %s %s in the record, got %s" % (key, json.dumps(request[key]), json.dumps(record.get(key))))
    media = record.get("media")
    expect(isinstance(media, list) and len(media) == len(request["media"]),
           "expected %d media entries in the record" % len(request["media"]), answer)
    for sent, held in zip(request["media"], sorted(media, key=lambda item: item.get("index", -1))):
        for key in ("index", "sha256", "width", "height"):
            expect(isinstance(held, dict) and held.get(key) == sent[key],
                   "expected media %s %s, got %s" % (key, json.dumps(sent[key]), json.dumps(held.get(key))))
    return record


def expect_replay(answer, first):
    """The answer to a replay: 200, Idempotent-Replayed: true, and the record the first request made."""
    expect(answer.status == 200, "expected 200, got %d" % answer.status, answer)
    expect((answer.header("Idempotent-Replayed") or "").lower() == "true",
           "expected the header Idempotent-Replayed: true", answer)
    expect(answer.json == first, "expected the record the first request created", answer)


def expect_operation(answer, status, request, sizes):
    """An operation's record: the request's fields as they were sent, its payload untouched, each
    media entry with its index and SHA-256 and the byte count of its upload (`sizes`, by index)."""
    expect(answer.status == status, "expected %d, got %d" % (status, answer.status), answer)
    record = answer.json
    expect(isinstance(record, dict), "expected the record as a JSON object", answer)
    expect_engine_additions(answer, request, sizes)
    for key in ("request_id", "entity", "type", "version", "payload"):
        expect(key in record and record[key] == request[key],
               "expected %s %s in the record, got %s" % (key, json.dumps(request[key]), json.dumps(record.get(key))))
    media = record.get("media")
    expect(isinstance(media, list) and len(media) == len(request["media"]),
           "expected %d media entries in the record" % len(request["media"]), answer)
    for sent, held in zip(request["media"], sorted(media, key=lambda item: item.get("index", -1))):
        for key in ("index", "sha256"):
            expect(isinstance(held, dict) and held.get(key) == sent[key],
                   "expected media %s %s, got %s" % (key, json.dumps(sent[key]), json.dumps(held.get(key))))
    return record


def operation_rules(engine, run):
    """The extension's rules for operations, in the order they run."""
    memo = jpeg("conformance %s memo" % run)
    operation = "conformance-%s-operation" % run
    missing = "conformance-%s-operation-missing" % run
    bare = "conformance-%s-operation-bare" % run
    request = {
        "request_id": operation, "entity": "note:conformance-%s" % run, "type": "note.update", "version": 2,
        "payload": {"text": "a rule check", "tags": ["a", "b"], "pinned": True, "weight": 2.5},
        "media": [{"index": 0, "sha256": sha256(memo), "width": 8, "height": 8}],
    }
    created = {}

    def operation_new():
        expect_upload_answer(engine.put(operation, 0, memo), 201, operation, 0, memo)
        answer = engine.post_operation(request, operation)
        created["record"] = expect_operation(answer, 201, request, {0: len(memo)})
        expect(answer.header("Idempotent-Replayed") is None, "a new record is not a replay", answer)

    def operation_without_entity():
        plain = dict(request, request_id=bare, entity=None, payload=None, media=[])
        expect_operation(engine.post_operation(plain, bare), 201, plain, {})

    def operation_replay():
        expect("record" in created, "needs operation-new")
        expect_replay(engine.post_operation(request, operation), created["record"])

    def operation_replay_different():
        expect("record" in created, "needs operation-new")
        other = dict(request, payload=dict(request["payload"], text="another text"))
        expect_error(engine.post_operation(other, operation), 422, "idempotency_key_reused")
        expect(engine.get_operation(operation).json == created["record"], "the first record must stay as it was")

    def operation_upload_missing():
        expect_error(engine.post_operation(dict(request, request_id=missing), missing), 422, "upload_missing")

    def operation_checksum_mismatch():
        engine.put(missing, 0, jpeg("conformance %s other memo" % run))
        expect_error(engine.post_operation(dict(request, request_id=missing), missing), 422, "checksum_mismatch")
        expect(engine.get_operation(missing).status == 404, "a refused operation must not be kept")

    def operation_get():
        expect("record" in created, "needs operation-new")
        answer = engine.get_operation(operation)
        expect(answer.status == 200 and answer.json == created["record"], "expected 200 with the record", answer)

    def operation_get_missing():
        expect_error(engine.get_operation("conformance-%s-never" % run), 404, "not_found")

    def operation_key_of_a_capture():
        capture = "conformance-%s-capture" % run
        expect(engine.get(capture).status == 200, "needs capture-new")
        expect_error(engine.post_operation(dict(request, request_id=capture, media=[]), capture), 422,
                     "idempotency_key_reused")

    return [
        ("operation-new", "a new operation is 201 with its record: the request's fields, its payload untouched, with"
         " received_at and each upload's byte_count",
         operation_new),
        ("operation-without-entity",
         "an operation without an entity, payload or media is 201 with its record and received_at",
         operation_without_entity),
        ("operation-replay", "the same operation again is 200, Idempotent-Replayed: true, with the first record",
         operation_replay),
        ("operation-replay-different", "another body under a used key is 422 idempotency_key_reused",
         operation_replay_different),
        ("operation-upload-missing", "an operation listing an upload that never came is 422 upload_missing",
         operation_upload_missing),
        ("operation-checksum-mismatch",
         "an operation whose SHA-256 is not the upload's is 422 checksum_mismatch, not kept",
         operation_checksum_mismatch),
        ("operation-get", "GET /v1/operations/{request_id} is 200 with the record", operation_get),
        ("operation-get-missing", "GET of an unknown operation is 404 not_found", operation_get_missing),
        ("operation-key-of-a-capture", "an operation under a key a capture holds is 422 idempotency_key_reused",
         operation_key_of_a_capture),
    ]


class Skipped(Exception):
    """The engine does not offer what the rule checks, which the protocol lets it leave out."""


def refuses_resumption(status):
    """Whether an answer to a resumable upload's creation says "no resumable uploads here": a 4xx
    other than those about the credentials, the proxy, the time or the rate, which a client takes
    as about every request alike, or 501."""
    return (400 <= status < 500 and status not in (401, 403, 407, 408, 429)) or status == 501


def fallback_rules(engine, run):
    """What a client that asks for a resumable upload first relies on, whether the engine offers
    them or not: the creation holds nothing under the key, so the contract's PUT still brings the
    upload, and the capture that lists it is created. So a contract-only engine, or a gateway
    that answers the creation its own way, still gets every capture."""
    request_id = "conformance-%s-fallback" % run
    photo = jpeg("conformance %s fallback" % run)
    record = {
        "request_id": request_id, "kind": "conformance", "note": "after a creation",
        "captured_at": "2024-04-30T14:02:05+02:00", "time_zone": "Europe/Berlin",
        "place": {"latitude": 52.5, "longitude": 13.25},
        "media": [{"index": 0, "sha256": sha256(photo), "width": 8, "height": 8}],
    }

    def upload_after_creation():
        engine.request("POST", "/v1/uploads/%s/0" % request_id, b"",
                       {"Upload-Draft-Interop-Version": "6", "Upload-Complete": "?0", "Content-Type": "image/jpeg"})
        expect_upload_answer(engine.put(request_id, 0, photo), 201, request_id, 0, photo)
        expect_record(engine.post(record, request_id), 201, record, {0: len(photo)})

    return [
        ("upload-after-creation", "a resumable upload's creation, refused or not, holds nothing under its key: the"
         " contract's PUT of it is then 201, and the capture that lists it is created", upload_after_creation),
    ]


def resumable_rules(engine, run):
    """Resumable uploads (draft-ietf-httpbis-resumable-upload, interop version 6), which an engine
    may leave out: one that answers the creation with a 4xx other than 401, 403, 407, 408 and 429,
    or 501, without a Location, skips these rules (a client then sends the contract's PUT)."""
    request_id = "conformance-%s-resumable" % run
    photo = jpeg("conformance %s resumable %s" % (run, "r" * 3000))
    v6 = {"Upload-Draft-Interop-Version": "6"}
    held = {}

    def append(offset, data, complete):
        headers = dict(v6, **{"Upload-Offset": str(offset), "Upload-Complete": "?1" if complete else "?0",
                              "Content-Type": "application/partial-upload"})
        return engine.request("PATCH", held["path"], data, headers)

    def needs_resource():
        if held.get("skipped"):
            raise Skipped(held["skipped"])
        expect("path" in held, "needs resumable-create")

    def create():
        answer = engine.request("POST", "/v1/uploads/%s/0" % request_id, b"",
                                dict(v6, **{"Upload-Complete": "?0", "Content-Type": "image/jpeg"}))
        if refuses_resumption(answer.status) and answer.header("Location") is None:
            held["skipped"] = "the engine does not offer resumable uploads (the creation was answered %d)" % answer.status
            raise Skipped(held["skipped"])
        expect(answer.status == 201, "expected 201, got %d" % answer.status, answer)
        location = urllib.parse.urlsplit(urllib.parse.urljoin(engine.url("/"), answer.header("Location") or ""))
        prefix = engine.prefix + "/v1/uploads/%s/0/" % request_id
        expect((location.scheme, location.netloc) == (engine.parts.scheme, engine.parts.netloc)
               and location.path.startswith(prefix) and len(location.path) > len(prefix) and not location.query,
               "expected a Location on this engine under %s" % prefix, answer)
        expect((answer.header("Upload-Complete"), answer.header("Upload-Offset")) == ("?0", "0"),
               "expected Upload-Complete: ?0 and Upload-Offset: 0", answer)
        held["path"] = location.path[len(engine.prefix):]

    def offset():
        needs_resource()
        answer = append(0, photo[:1000], False)
        expect(200 <= answer.status < 300 and answer.header("Upload-Offset") == "1000",
               "an append that does not complete is 2xx with Upload-Offset: 1000", answer)
        answer = engine.request("HEAD", held["path"], None, v6)
        expect(200 <= answer.status < 300, "expected 204, got %d" % answer.status, answer)
        expect((answer.header("Upload-Offset"), answer.header("Upload-Complete")) == ("1000", "?0"),
               "expected Upload-Offset: 1000 and Upload-Complete: ?0", answer)
        expect("no-store" in (answer.header("Cache-Control") or ""), "expected Cache-Control: no-store", answer)

    def wrong_offset():
        needs_resource()
        answer = append(500, photo[500:], True)
        expect(answer.status == 409, "expected 409, got %d" % answer.status, answer)
        expect(answer.header("Upload-Offset") == "1000", "expected the offset held, Upload-Offset: 1000", answer)
        offset_now = engine.request("HEAD", held["path"], None, v6).header("Upload-Offset")
        expect(offset_now == "1000", "a refused append must append nothing (HEAD says %s)" % offset_now)

    def complete():
        needs_resource()
        answer = append(1000, photo[1000:], True)
        expect_upload_answer(answer, 201, request_id, 0, photo)
        expect(answer.header("Upload-Complete") == "?1", "expected Upload-Complete: ?1", answer)
        expect_upload_answer(engine.put(request_id, 0, photo), 200, request_id, 0, photo)
        held["complete"] = True

    def completed_resumed():
        needs_resource()
        expect(held.get("complete"), "needs resumable-complete")
        answer = engine.request("HEAD", held["path"], None, v6)
        expect((answer.header("Upload-Complete"), answer.header("Upload-Offset")) == ("?1", str(len(photo))),
               "expected Upload-Complete: ?1 and the whole length", answer)
        answer = append(len(photo), b"more bytes", True)
        expect(400 <= answer.status < 500, "an append to a completed upload is refused with a 4xx", answer)
        expect_upload_answer(engine.put(request_id, 0, photo), 200, request_id, 0, photo)

    def other_key():
        needs_resource()
        token = held["path"].rsplit("/", 1)[1]
        for path in ("/v1/uploads/conformance-%s-other/0/%s" % (run, token), "/v1/uploads/%s/1/%s" % (request_id, token)):
            answer = engine.request("HEAD", path, None, v6)
            expect(answer.status == 404, "a resource named under another key (%s) is 404" % path, answer)

    return [
        ("resumable-create", "POST with Upload-Complete: ?0 creates an upload resource: 201 with its Location on this"
         " engine, Upload-Complete: ?0, Upload-Offset: 0", create),
        ("resumable-offset", "HEAD gives the bytes held (Upload-Offset) and Upload-Complete: ?0, not to be cached",
         offset),
        ("resumable-wrong-offset", "an append at another offset than the one held is 409 with Upload-Offset, and"
         " appends nothing", wrong_offset),
        ("resumable-complete", "the completing append is answered as the contract's PUT, with the SHA-256 and"
         " byte count of the whole file, which is then held once", complete),
        ("resumable-completed-resumed", "a completed upload says so to HEAD and refuses more bytes", completed_resumed),
        ("resumable-other-key", "an upload resource answers only under its own request id and index", other_key),
    ]


def rules(engine, run):
    """The rules, in the order they run: (name, what it asks, check). Later checks build on earlier ones."""
    photo, other = jpeg("conformance %s a" % run), jpeg("conformance %s b" % run)
    capture = "conformance-%s-capture" % run
    missing = "conformance-%s-missing" % run
    record = {
        "request_id": capture, "kind": "conformance", "note": "a rule check", "captured_at": "2024-04-30T14:02:05+02:00",
        "time_zone": "Europe/Berlin", "place": {"latitude": 52.5, "longitude": 13.25},
        "media": [{"index": 0, "sha256": sha256(photo), "width": 8, "height": 8}],
    }
    created = {}

    def upload_new():
        expect_upload_answer(engine.put(capture, 0, photo), 201, capture, 0, photo)

    def upload_repeat():
        expect_upload_answer(engine.put(capture, 0, photo), 200, capture, 0, photo)

    def upload_conflict():
        expect_error(engine.put(capture, 0, other), 422, "upload_conflict")
        expect_upload_answer(engine.put(capture, 0, photo), 200, capture, 0, photo)

    def bad_id():
        expect_error(engine.put("not.an.id", 0, photo), 400, "bad_request")

    def capture_upload_missing():
        engine.put(missing, 0, photo)
        listed = dict(record, request_id=missing, media=record["media"] + [
            {"index": 1, "sha256": sha256(other), "width": 8, "height": 8}])
        expect_error(engine.post(listed, missing), 422, "upload_missing")

    def capture_checksum_mismatch():
        wrong = dict(record, request_id=missing, media=[{"index": 0, "sha256": sha256(other), "width": 8, "height": 8}])
        expect_error(engine.post(wrong, missing), 422, "checksum_mismatch")
        expect(engine.get(missing).status == 404, "a refused capture must not be kept")

    def capture_new():
        answer = engine.post(record, capture)
        created["record"] = expect_record(answer, 201, record, {0: len(photo)})
        expect(answer.header("Idempotent-Replayed") is None, "a new record is not a replay", answer)

    def capture_replay():
        expect("record" in created, "needs capture-new")
        expect_replay(engine.post(record, capture), created["record"])

    def capture_replay_different():
        expect("record" in created, "needs capture-new")
        expect_error(engine.post(dict(record, note="another note"), capture), 422, "idempotency_key_reused")
        expect(engine.get(capture).json == created["record"], "the first record must stay as it was")

    def capture_get():
        expect("record" in created, "needs capture-new")
        answer = engine.get(capture)
        expect(answer.status == 200 and answer.json == created["record"], "expected 200 with the record", answer)

    def capture_get_missing():
        expect_error(engine.get("conformance-%s-never" % run), 404, "not_found")

    return [
        ("upload-new", "a new upload is 201 with {request_id, index, sha256, byte_count} of the bytes sent", upload_new),
        ("upload-repeat", "the same bytes again are 200 with the same body", upload_repeat),
        ("upload-conflict", "other bytes under a held key are 422 upload_conflict, and the first stay", upload_conflict),
        ("upload-bad-id", "a malformed request id is 400 bad_request", bad_id),
        ("capture-upload-missing", "a record listing an upload that never came is 422 upload_missing",
         capture_upload_missing),
        ("capture-checksum-mismatch", "a record whose SHA-256 is not the upload's is 422 checksum_mismatch, not kept",
         capture_checksum_mismatch),
        ("capture-new", "a new record is 201 with the record: the request's fields and its media, with what only the"
         " engine adds (received_at, each upload's byte_count)", capture_new),
        ("capture-replay", "the same record again is 200, Idempotent-Replayed: true, with the first record",
         capture_replay),
        ("capture-replay-different", "another body under a used key is 422 idempotency_key_reused",
         capture_replay_different),
        ("capture-get", "GET /v1/captures/{request_id} is 200 with the record", capture_get),
        ("capture-get-missing", "GET of an unknown request id is 404 not_found", capture_get_missing),
    ] + operation_rules(engine, run) + resumable_rules(engine, run) + fallback_rules(engine, run)


def main(arguments=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("url", help="the engine's base URL, for example http://127.0.0.1:8080")
    parser.add_argument("--timeout", type=float, default=15, help="seconds to wait for each answer (default 15)")
    options = parser.parse_args(arguments)
    try:
        engine = Engine(options.url, options.timeout)
    except ValueError as error:
        parser.error(str(error))
    run = os.urandom(6).hex()
    failures = skipped = 0
    for name, asks, check in rules(engine, run):
        try:
            check()
            print("ok   %s: %s" % (name, asks), flush=True)
        except Skipped as reason:
            skipped += 1
            print("skip %s: %s: %s" % (name, asks, reason), flush=True)
        except Failure as failure:
            failures += 1
            print("FAIL %s: %s: %s" % (name, asks, failure), flush=True)
        except (OSError, http.client.HTTPException) as error:
            failures += 1
            print("FAIL %s: %s: the request failed: %s" % (name, asks, error or type(error).__name__), flush=True)
    count = len(rules(engine, run)) - skipped
    print("%d of %d rules kept by %s%s" % (count - failures, count, options.url,
                                            " (%d skipped)" % skipped if skipped else ""))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
