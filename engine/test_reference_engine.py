"""Tests of the reference engine: its EXIF walker against exiftool's readings of the fixtures, and
the wire contract of docs/engine-protocol.md over real HTTP on loopback.

    python3 -m unittest discover -s engine -v     (EngineTests runs this too)
"""

import datetime
import hashlib
import http.client
import json
import os
import random
import shutil
import socket
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_engine  # noqa: E402

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures")


def fixture(name):
    for folder in ("corpus", "crafted"):
        path = os.path.join(FIXTURES, folder, name)
        if os.path.exists(path):
            with open(path, "rb") as file:
                return file.read()
    raise FileNotFoundError(name)


class EXIFTests(unittest.TestCase):
    """read_exif against exiftool 12.57's readings in the fixtures' exiftool.json files."""

    # Where the device's rules (ImagePrep's, and so the engine's) say "not known" and exiftool
    # still prints a value: a latitude of 95 or a longitude of 190, a hemisphere letter 'X' that
    # exiftool signs north, a signed coordinate, and coordinates stored as text.
    NOT_A_PLACE = {"gps-latitude-out-of-range.jpg", "gps-longitude-out-of-range.jpg", "gps-latitude-ref-invalid.jpg",
                   "gps-latitude-negative.jpg", "gps-coordinates-text-comma-decimals.jpg"}

    # The fields the test reads, from exiftool -G1:4 keys ("GPS:Copy1:GPSLatitude" is the GPS
    # group's GPSLatitude; see Tests/Fixtures/exiftool-readings.sh).
    FIELDS = {"DateTimeOriginal": "ExifIFD:DateTimeOriginal", "SubSecTimeOriginal": "ExifIFD:SubSecTimeOriginal",
              "OffsetTimeOriginal": "ExifIFD:OffsetTimeOriginal", "GPSLatitude": "Composite:GPSLatitude",
              "GPSLongitude": "Composite:GPSLongitude"}

    def expected_files(self):
        for folder in ("corpus", "crafted"):
            with open(os.path.join(FIXTURES, folder, "exiftool.json")) as file:
                for tags in json.load(file):
                    by_group = {}
                    for key, value in tags.items():
                        parts = key.split(":")
                        by_group.setdefault(parts[0] + ":" + parts[-1], value)
                    yield tags["SourceFile"], {field: by_group.get(key) for field, key in self.FIELDS.items()}

    @staticmethod
    def expected_time(fields):
        text = fields.get("DateTimeOriginal")
        try:
            moment = datetime.datetime.strptime(text or "", "%Y:%m:%d %H:%M:%S")
        except ValueError:  # absent, all zeros, or February 29th of a common year
            return None
        result = moment.isoformat()
        if fields.get("SubSecTimeOriginal") is not None:
            result += "." + str(fields["SubSecTimeOriginal"])
        return result + (fields.get("OffsetTimeOriginal") or "")

    def test_every_fixture_reads_as_exiftool_reads_it(self):
        count = 0
        for name, fields in self.expected_files():
            with self.subTest(name=name):
                found = reference_engine.read_exif(fixture(name))
                self.assertEqual(found["captured_at"], self.expected_time(fields))
                latitude, longitude = fields.get("GPSLatitude"), fields.get("GPSLongitude")
                # exiftool prints "" for a coordinate with a zero denominator.
                if not isinstance(latitude, (int, float)) or not isinstance(longitude, (int, float)) \
                        or name in self.NOT_A_PLACE:
                    self.assertIsNone(found["place"])
                else:
                    self.assertAlmostEqual(found["place"]["latitude"], latitude, places=9)
                    self.assertAlmostEqual(found["place"]["longitude"], longitude, places=9)
                count += 1
        self.assertGreater(count, 55)

    def test_damaged_bytes_never_raise(self):
        """Truncations and random byte flips of photos with EXIF: absent values, never an exception."""
        generator = random.Random(7)
        for name in ("offset-plus0200-pixel8pro-8x8.jpg", "gps-north-west-iphone5-orientation3.jpg",
                     "exif-little-endian-canon-40d.jpg"):
            original = fixture(name)[:4096]
            for _ in range(300):
                damaged = bytearray(original[: generator.randrange(len(original) + 1)])
                for _ in range(generator.randrange(1, 8)):
                    if damaged:
                        damaged[generator.randrange(len(damaged))] = generator.randrange(256)
                result = reference_engine.read_exif(bytes(damaged))
                self.assertEqual(set(result), {"captured_at", "place"})


class RunningEngine:
    """The engine in this process, on a free port of 127.0.0.1, with its data in a temporary folder."""

    def __init__(self, folder=None):
        self.folder = folder or tempfile.mkdtemp(prefix="engine-test-")
        self.server = reference_engine.Engine(("127.0.0.1", 0), reference_engine.Store(self.folder))
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def request(self, method, path, body=None, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.server.server_address[1], timeout=10)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            payload = response.read()
            return response.status, dict(response.getheaders()), json.loads(payload) if payload else None
        finally:
            connection.close()

    def put(self, request_id, index, data, content_type="image/jpeg"):
        return self.request("PUT", "/v1/uploads/%s/%d" % (request_id, index), data, {"Content-Type": content_type})

    def post(self, body, key=None):
        headers = {"Content-Type": "application/json"}
        if key is not None:
            headers["Idempotency-Key"] = key
        return self.request("POST", "/v1/captures", json.dumps(body).encode(), headers)

    def post_operation(self, body, key=None):
        headers = {"Content-Type": "application/json"}
        if key is not None:
            headers["Idempotency-Key"] = key
        return self.request("POST", "/v1/operations", json.dumps(body).encode(), headers)

    def fault(self, **spec):
        status, _, _ = self.request("POST", "/_engine/faults", json.dumps(spec).encode())
        assert status == 201


def capture_body(request_id, photos, **overrides):
    body = {
        "request_id": request_id, "kind": "plate", "note": "front gate", "captured_at": "2024-04-30T14:02:05+02:00",
        "time_zone": "Europe/Berlin", "place": {"latitude": 52.5, "longitude": 13.25},
        "media": [{"index": index, "sha256": hashlib.sha256(photo).hexdigest(), "width": 8, "height": 8}
                  for index, photo in enumerate(photos)],
    }
    body.update(overrides)
    return body


class ContractTests(unittest.TestCase):
    def setUp(self):
        self.engine = RunningEngine()
        self.camera = fixture("offset-plus0200-pixel8pro-8x8.jpg")
        self.plain = fixture("no-exif.jpg")

    def tearDown(self):
        self.engine.stop()
        shutil.rmtree(self.engine.folder, ignore_errors=True)

    def test_an_upload_is_201_when_new_200_when_the_same_and_422_when_different(self):
        status, _, body = self.engine.put("c1", 0, self.plain)
        self.assertEqual(status, 201)
        received_at = body.pop("received_at")
        self.assertRegex(received_at, r"\A\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00\Z")
        self.assertEqual(body, {"request_id": "c1", "index": 0, "sha256": hashlib.sha256(self.plain).hexdigest(),
                                "byte_count": len(self.plain)})
        status, _, repeat = self.engine.put("c1", 0, self.plain)
        self.assertEqual((status, repeat), (200, dict(body, received_at=received_at)), "when it first came")
        status, _, body = self.engine.put("c1", 0, self.camera)
        self.assertEqual(status, 422)
        self.assertEqual(body["error"], "upload_conflict")
        self.assertEqual(self.engine.put("c1", 1, self.plain, "a photo")[:1], (415,))
        self.assertEqual(self.engine.put("c1", 1, self.plain, "audio/mp4")[:1], (201,), "an attachment of any type")
        self.assertEqual(self.engine.put("bad.id", 0, self.plain)[0], 400)
        self.assertEqual(self.engine.request("PUT", "/v1/uploads/c1/x", self.plain, {"Content-Type": "image/jpeg"})[0],
                         400)

    def test_a_capture_is_201_then_replayed_as_200_and_never_appended_twice(self):
        self.engine.put("c1", 0, self.plain)
        body = capture_body("c1", [self.plain])
        status, headers, created = self.engine.post(body, key="c1")
        self.assertEqual(status, 201)
        self.assertEqual(headers["Location"], "/v1/captures/c1")
        self.assertNotIn("Idempotent-Replayed", headers)
        for _ in range(2):
            status, headers, replayed = self.engine.post(body, key="c1")
            self.assertEqual((status, headers.get("Idempotent-Replayed")), (200, "true"))
            self.assertEqual(replayed, created)
        self.assertEqual(self.engine.request("GET", "/v1/captures/c1")[2], created)
        self.assertEqual(len(self.engine.request("GET", "/v1/captures")[2]["records"]), 1)
        self.assertEqual(self.engine.request("GET", "/v1/captures/c2")[:1], (404,))

    def test_a_replay_with_another_body_is_422_and_the_first_record_stays(self):
        self.engine.put("c1", 0, self.plain)
        created = self.engine.post(capture_body("c1", [self.plain]), key="c1")[2]
        for change in ({"note": "back gate"}, {"captured_at": None}, {"place": None},
                       {"media": [{"index": 0, "sha256": hashlib.sha256(self.plain).hexdigest(), "width": 9,
                                   "height": 8}]}):
            with self.subTest(change=change):
                status, headers, body = self.engine.post(capture_body("c1", [self.plain], **change), key="c1")
                self.assertEqual((status, body["error"]), (422, "idempotency_key_reused"))
                self.assertNotIn("Idempotent-Replayed", headers)
        self.assertEqual(self.engine.request("GET", "/v1/captures/c1")[2], created)

    def test_a_replay_is_compared_in_canonical_form(self):
        self.engine.put("c1", 0, self.plain)
        body = capture_body("c1", [self.plain])
        created = self.engine.post(body, key="c1")[2]
        # Other key order, other white space, a field the contract does not know, 52.50 for 52.5.
        text = json.dumps(dict(reversed(list(body.items())), extra="ignored"), indent=3).replace("52.5", "52.50")
        status, headers, replayed = self.engine.request(
            "POST", "/v1/captures", text.encode(), {"Content-Type": "application/json", "Idempotency-Key": "c1"})
        self.assertEqual((status, headers.get("Idempotent-Replayed"), replayed), (200, "true", created))

    def test_a_record_kept_before_replays_were_compared_is_replayed(self):
        self.engine.put("c1", 0, self.plain)
        created = self.engine.post(capture_body("c1", [self.plain]), key="c1")[2]
        self.engine.server.store.db.execute("UPDATE captures SET request = NULL")
        status, _, replayed = self.engine.post(capture_body("c1", [self.plain], note="other"), key="c1")
        self.assertEqual((status, replayed), (200, created))

    def test_a_capture_is_422_when_an_upload_is_missing_or_differs(self):
        self.engine.put("c1", 0, self.plain)
        status, _, body = self.engine.post(capture_body("c1", [self.plain, self.camera]), key="c1")
        self.assertEqual((status, body["error"]), (422, "upload_missing"))
        status, _, body = self.engine.post(capture_body("c1", [self.camera]), key="c1")
        self.assertEqual((status, body["error"]), (422, "checksum_mismatch"))
        self.assertIsNone(self.engine.server.store.record("c1"))

    def test_a_malformed_capture_is_400_naming_what_is_wrong(self):
        self.assertEqual(self.engine.post(capture_body("c1", []))[0], 400)  # no Idempotency-Key
        self.assertEqual(self.engine.post(capture_body("c1", []), key="c2")[0], 400)  # key is not the id
        for field, value in (("kind", 3), ("place", {"latitude": 91, "longitude": 0}), ("media", [{"index": 0}]),
                             ("captured_at", 5)):
            with self.subTest(field=field):
                status, _, body = self.engine.post(capture_body("c1", [], **{field: value}), key="c1")
                self.assertEqual(status, 400)
                self.assertIn("'%s'" % field, body["message"])

    def test_the_cameras_clock_and_the_photos_place_win(self):
        self.engine.put("cam", 0, self.camera)
        record = self.engine.post(capture_body("cam", [self.camera]), key="cam")[2]
        self.assertEqual((record["captured_at"], record["captured_at_source"]),
                         ("2023-10-06T22:53:51.724+02:00", "camera"))
        self.assertEqual(record["place_source"], "photo")
        self.assertAlmostEqual(record["place"]["latitude"], 40.4000694444444)

        self.engine.put("cli", 0, self.plain)
        record = self.engine.post(capture_body("cli", [self.plain]), key="cli")[2]
        self.assertEqual((record["captured_at"], record["captured_at_source"]), ("2024-04-30T14:02:05+02:00", "client"))
        self.assertEqual((record["place"], record["place_source"]), ({"latitude": 52.5, "longitude": 13.25}, "client"))

        self.engine.put("now", 0, self.plain)
        record = self.engine.post(capture_body("now", [self.plain], captured_at=None, place=None), key="now")[2]
        self.assertEqual(record["captured_at_source"], "server")
        self.assertTrue(record["captured_at"].endswith("+00:00"))
        self.assertEqual((record["place"], record["place_source"]), (None, None))

    def test_a_key_in_flight_answers_409(self):
        # "delay" holds the record for a time, "hold" until the test's release.
        for key, fault in (("c1", {"mode": "delay", "seconds": 1}), ("c2", {"mode": "hold"})):
            with self.subTest(**fault):
                self.engine.put(key, 0, self.plain)
                self.engine.fault(method="POST", **fault)
                body = capture_body(key, [self.plain])
                first = []
                thread = threading.Thread(target=lambda: first.append(self.engine.post(body, key=key)))
                thread.start()
                while key not in self.engine.server.in_flight:
                    time.sleep(0.01)
                status, headers, answer = self.engine.post(body, key=key)
                self.assertEqual((status, answer["error"], headers["Retry-After"]), (409, "in_progress", "1"))
                if fault["mode"] == "hold":
                    thread.join(0.2)
                    self.assertTrue(thread.is_alive(), "held until released")
                    self.assertEqual(self.engine.request("POST", "/_engine/release")[0], 200)
                thread.join()
                self.assertEqual(first[0][0], 201)

    def test_faults_fail_the_next_requests_as_ordered(self):
        self.engine.fault(mode="status", status=503, retry_after="30", count=2, path_prefix="/v1/uploads/")
        for _ in range(2):
            status, headers, body = self.engine.put("c1", 0, self.plain)
            self.assertEqual((status, headers["Retry-After"], body["error"]), (503, "30", "injected"))
        self.assertEqual(self.engine.put("c1", 0, self.plain)[0], 201)

        self.engine.fault(mode="drop_connection")
        with self.assertRaises((http.client.RemoteDisconnected, ConnectionError)):
            self.engine.put("c1", 1, self.plain)
        self.assertIsNone(self.engine.server.store.upload("c1", 1))

        self.engine.fault(mode="drop_reply", method="PUT")
        with self.assertRaises((http.client.RemoteDisconnected, ConnectionError)):
            self.engine.put("c1", 1, self.plain)
        self.assertIsNotNone(self.engine.server.store.upload("c1", 1), "the work was done, only the reply was lost")
        self.assertEqual(self.engine.put("c1", 1, self.plain)[0], 200)
        outcomes = [entry["outcome"] for entry in self.engine.request("GET", "/_engine/state")[2]["requests"]]
        self.assertEqual(outcomes, [503, 503, 201, "connection dropped", "reply dropped after 201", 200])

    def test_records_and_uploads_survive_a_restart(self):
        self.engine.put("c1", 0, self.plain)
        created = self.engine.post(capture_body("c1", [self.plain]), key="c1")[2]
        self.engine.stop()
        self.engine = RunningEngine(self.engine.folder)
        self.assertEqual(self.engine.request("GET", "/v1/captures/c1")[2], created)
        self.assertEqual(self.engine.put("c1", 0, self.plain)[0], 200)
        state = self.engine.request("GET", "/_engine/state")[2]
        self.assertEqual(state["uploads"][0]["sha256_on_disk"], hashlib.sha256(self.plain).hexdigest())


class ResumableUploadTests(unittest.TestCase):
    """draft-ietf-httpbis-resumable-upload (interop version 6, and 3 as iOS 17 speaks it): an
    upload created, cut, asked for its offset, appended from it, and held as the contract's
    upload once complete, across a restart of the engine."""

    V6 = {"Upload-Draft-Interop-Version": "6"}

    def setUp(self):
        self.engine = RunningEngine()
        self.photo = bytes(random.Random(7).randrange(256) for _ in range(40000))

    def tearDown(self):
        self.engine.stop()
        shutil.rmtree(self.engine.folder, ignore_errors=True)

    def create(self, request_id="r1", index=0, complete="?0", body=b"", method="POST"):
        headers = dict(self.V6, **{"Upload-Complete": complete, "Content-Type": "image/jpeg"})
        return self.engine.request(method, "/v1/uploads/%s/%d" % (request_id, index), body, headers)

    def head(self, location):
        return self.engine.request("HEAD", location, None, self.V6)

    def patch(self, location, offset, body, complete="?1"):
        headers = dict(self.V6, **{"Upload-Offset": str(offset), "Upload-Complete": complete,
                                   "Content-Type": "application/partial-upload"})
        return self.engine.request("PATCH", location, body, headers)

    def test_a_cut_append_resumes_from_the_engines_offset_and_completes_as_the_contracts_upload(self):
        status, headers, _ = self.create()
        self.assertEqual((status, headers["Upload-Complete"], headers["Upload-Offset"]), (201, "?0", "0"))
        location = headers["Location"]
        self.assertRegex(location, r"\A/v1/uploads/r1/0/[0-9a-f]{32}\Z")
        self.engine.fault(mode="cut_body", after=15000, method="PATCH")
        with self.assertRaises((http.client.RemoteDisconnected, ConnectionError)):
            self.patch(location, 0, self.photo)
        status, headers, body = self.head(location)
        self.assertEqual((status, headers["Upload-Offset"], headers["Upload-Complete"], body), (204, "15000", "?0", None))
        self.assertEqual(headers["Cache-Control"], "no-store")
        self.assertIsNone(self.engine.server.store.upload("r1", 0), "not held before it is complete")

        self.engine.stop()
        self.engine = RunningEngine(self.engine.folder)
        self.assertEqual(self.head(location)[1]["Upload-Offset"], "15000", "the bytes so far survive a restart")
        status, headers, body = self.patch(location, 15000, self.photo[15000:])
        digest = hashlib.sha256(self.photo).hexdigest()
        self.assertEqual(status, 201)
        self.assertEqual((body["sha256"], body["byte_count"]), (digest, len(self.photo)))
        self.assertEqual((headers["Upload-Complete"], headers["Upload-Offset"]), ("?1", str(len(self.photo))))
        state = self.engine.request("GET", "/_engine/state")[2]
        self.assertEqual(state["uploads"][0]["sha256_on_disk"], digest)
        self.assertEqual(self.engine.put("r1", 0, self.photo)[0], 200, "held as if one PUT had brought it")

    def test_an_append_at_the_wrong_offset_is_409_with_the_offset_held(self):
        location = self.create()[1]["Location"]
        self.patch(location, 0, self.photo[:100], complete="?0")
        status, headers, body = self.patch(location, 50, self.photo[50:])
        self.assertEqual((status, body["error"], headers["Upload-Offset"]), (409, "mismatching_upload_offset", "100"))
        self.assertEqual(self.head(location)[1]["Upload-Offset"], "100", "nothing appended")

    def test_a_completed_upload_takes_no_more_bytes_and_says_so_to_head(self):
        location = self.create()[1]["Location"]
        self.assertEqual(self.patch(location, 0, self.photo)[0], 201)
        headers = self.head(location)[1]
        self.assertEqual((headers["Upload-Complete"], headers["Upload-Offset"]), ("?1", str(len(self.photo))))
        status, _, body = self.patch(location, len(self.photo), b"more")
        self.assertEqual((status, body["error"]), (400, "upload_completed"))
        self.assertEqual(self.engine.server.store.upload("r1", 0)["byte_count"], len(self.photo))

    def test_a_resumed_upload_of_other_bytes_under_a_held_key_is_422_and_the_first_bytes_stay(self):
        self.engine.put("r1", 0, self.photo)
        location = self.create()[1]["Location"]
        status, _, body = self.patch(location, 0, b"other bytes")
        self.assertEqual((status, body["error"]), (422, "upload_conflict"))
        self.assertEqual(self.engine.server.store.upload("r1", 0)["sha256"], hashlib.sha256(self.photo).hexdigest())

    def test_an_unfinished_upload_left_untouched_expires_and_a_finished_one_stays(self):
        store = self.engine.server.store
        store.resumable_max_age = 60
        left = self.create()[1]["Location"]
        self.assertEqual(self.patch(left, 0, self.photo[:100], complete="?0")[0], 204)
        moving = self.create(request_id="r3")[1]["Location"]
        finished = self.create(request_id="r2")[1]["Location"]
        self.assertEqual(self.patch(finished, 0, self.photo)[0], 201)
        with store.lock:
            store.db.execute("UPDATE resumable_uploads SET touched_at = touched_at - 40")
        self.assertEqual(self.patch(moving, 0, self.photo[:100], complete="?0")[0], 204, "an append touches it")
        with store.lock:
            store.db.execute("UPDATE resumable_uploads SET touched_at = touched_at - 40")
        part = store.part_path(left.rsplit("/", 1)[1])
        self.assertTrue(os.path.exists(part))
        self.assertEqual(self.head(left)[0], 404)
        self.assertFalse(os.path.exists(part), "its bytes are gone too")
        state = self.engine.request("GET", "/_engine/state")[2]
        self.assertEqual(sorted((held["request_id"], held["complete"]) for held in state["resumable_uploads"]),
                         [("r2", True), ("r3", False)])
        self.assertEqual(self.head(moving)[1]["Upload-Offset"], "100")
        self.assertEqual(self.head(finished)[1]["Upload-Complete"], "?1")

    def test_a_resource_answers_only_under_its_own_key(self):
        location = self.create()[1]["Location"]
        token = location.rsplit("/", 1)[1]
        for path in ("/v1/uploads/r2/0/" + token, "/v1/uploads/r1/1/" + token, "/v1/uploads/r1/0/" + "0" * 32,
                     "/v1/uploads/r1/0/../x"):
            self.assertEqual(self.head(path)[0], 404, path)

    def test_a_creation_with_the_whole_body_announces_104_and_completes_at_once(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.engine.server.server_address[1], timeout=10)
        try:
            connection.putrequest("PUT", "/v1/uploads/r1/0")
            for name, value in (("Upload-Draft-Interop-Version", "3"), ("Upload-Incomplete", "?0"),
                                ("Content-Type", "image/jpeg"), ("Content-Length", str(len(self.photo)))):
                connection.putheader(name, value)
            connection.endheaders()
            interim = connection.sock.recv(4096)
            self.assertTrue(interim.startswith(b"HTTP/1.1 104 Upload Resumption Supported\r\n"), interim)
            self.assertIn(b"\r\nLocation: /v1/uploads/r1/0/", interim)
            connection.send(self.photo)
            response = connection.getresponse()
            self.assertEqual((response.status, response.getheader("Upload-Incomplete")), (201, "?0"))
            self.assertEqual(json.loads(response.read())["byte_count"], len(self.photo))
        finally:
            connection.close()

    def test_an_upload_without_the_interop_header_is_the_contracts_put_and_post_is_refused(self):
        self.assertEqual(self.engine.put("r1", 0, self.photo)[0], 201)
        status, headers, _ = self.engine.request("POST", "/v1/uploads/r1/1", b"", {"Content-Type": "image/jpeg"})
        self.assertEqual((status, headers["Allow"]), (405, "PUT"))
        self.assertEqual(self.create(complete="?2")[0], 400)
        self.assertEqual(
            self.engine.request("POST", "/v1/uploads/r1/1", b"", {"Upload-Draft-Interop-Version": "4"})[0], 400)


def operation_body(request_id, attachments=(), **overrides):
    body = {
        "request_id": request_id, "entity": "note:42", "type": "note.update", "version": 1,
        "payload": {"text": "gate left open", "count": 3},
        "media": [{"index": index, "sha256": hashlib.sha256(data).hexdigest()} for index, data in enumerate(attachments)],
    }
    body.update(overrides)
    return body


class OperationTests(unittest.TestCase):
    """The extension: POST /v1/operations and GET /v1/operations/{request_id}."""

    def setUp(self):
        self.engine = RunningEngine()
        self.memo = b"\x00\x01 a recorded memo"

    def tearDown(self):
        self.engine.stop()
        shutil.rmtree(self.engine.folder, ignore_errors=True)

    def test_an_operation_is_201_then_replayed_as_200_and_kept_as_it_came(self):
        self.assertEqual(self.engine.put("o1", 0, self.memo, "audio/mp4")[0], 201)
        body = operation_body("o1", [self.memo])
        status, headers, created = self.engine.post_operation(body, key="o1")
        self.assertEqual(status, 201)
        self.assertEqual(headers["Location"], "/v1/operations/o1")
        self.assertEqual(created["payload"], body["payload"])
        self.assertEqual(created["media"], [dict(body["media"][0], byte_count=len(self.memo))])
        self.assertEqual((created["entity"], created["type"], created["version"]), ("note:42", "note.update", 1))
        # Another key order, other white space and an unknown field are the same request.
        same = json.dumps(dict(reversed(list(body.items())), extra="ignored"), indent=2).encode()
        status, headers, replayed = self.engine.request(
            "POST", "/v1/operations", same, {"Content-Type": "application/json", "Idempotency-Key": "o1"})
        self.assertEqual((status, headers.get("Idempotent-Replayed"), replayed), (200, "true", created))
        self.assertEqual(self.engine.request("GET", "/v1/operations/o1")[2], created)
        self.assertEqual(self.engine.request("GET", "/v1/operations")[2], {"records": [created]})
        self.assertEqual(self.engine.request("GET", "/v1/operations/o2")[:1], (404,))

    def test_another_body_under_a_used_key_is_422_and_so_is_a_key_a_capture_holds(self):
        self.engine.post_operation(operation_body("o1"), key="o1")
        for change in ({"payload": {"text": "other"}}, {"entity": None}, {"type": "note.delete"}, {"version": 2}):
            with self.subTest(change=change):
                status, _, body = self.engine.post_operation(operation_body("o1", **change), key="o1")
                self.assertEqual((status, body["error"]), (422, "idempotency_key_reused"))
        plain = fixture("no-exif.jpg")
        self.engine.put("c1", 0, plain)
        self.assertEqual(self.engine.post(capture_body("c1", [plain]), key="c1")[0], 201)
        status, _, body = self.engine.post_operation(operation_body("c1"), key="c1")
        self.assertEqual((status, body["error"]), (422, "idempotency_key_reused"))
        status, _, body = self.engine.post(capture_body("o1", []), key="o1")
        self.assertEqual((status, body["error"]), (422, "idempotency_key_reused"))

    def test_an_operation_is_422_when_an_upload_is_missing_or_differs(self):
        body = operation_body("o1", [self.memo])
        self.assertEqual(self.engine.post_operation(body, key="o1")[2]["error"], "upload_missing")
        self.engine.put("o1", 0, b"other bytes", "audio/mp4")
        self.assertEqual(self.engine.post_operation(body, key="o1")[2]["error"], "checksum_mismatch")
        self.assertEqual(self.engine.request("GET", "/v1/operations/o1")[:1], (404,))

    def test_a_malformed_operation_is_400_naming_the_field(self):
        for field, value in (("type", "9lives"), ("type", None), ("version", 0), ("version", True),
                             ("entity", ""), ("entity", "a\nb"), ("media", [{"index": 0}])):
            with self.subTest(field=field, value=value):
                status, _, body = self.engine.post_operation(operation_body("o1", **{field: value}), key="o1")
                self.assertEqual(status, 400)
                self.assertIn("'%s'" % field, body["message"])
        without_payload = operation_body("o1")
        del without_payload["payload"]
        self.assertEqual(self.engine.post_operation(without_payload, key="o1")[0], 400)
        self.assertEqual(self.engine.post_operation(operation_body("o2"), key="o1")[0], 400)

    def test_a_key_in_flight_answers_409(self):
        self.engine.fault(mode="delay", seconds=1, method="POST")
        body = operation_body("o1")
        first = []
        thread = threading.Thread(target=lambda: first.append(self.engine.post_operation(body, key="o1")))
        thread.start()
        while "o1" not in self.engine.server.in_flight:
            time.sleep(0.01)
        status, headers, answer = self.engine.post_operation(body, key="o1")
        self.assertEqual((status, answer["error"], headers["Retry-After"]), (409, "in_progress", "1"))
        self.assertEqual(answer["message"], "The operation 'o1' is still being processed.")
        thread.join()
        self.assertEqual(first[0][0], 201)

    def test_the_state_lists_operations_in_the_order_they_were_created(self):
        for request_id in ("o2", "o1", "o3"):
            self.engine.post_operation(operation_body(request_id), key=request_id)
        state = self.engine.request("GET", "/_engine/state")[2]
        self.assertEqual([record["request_id"] for record in state["operations"]], ["o2", "o1", "o3"])
        self.assertEqual([entry["request_id"] for entry in state["requests"]], ["o2", "o1", "o3"])


class CommandLineTests(unittest.TestCase):
    def test_port_0_prints_the_chosen_port_and_dump_prints_the_records(self):
        folder = tempfile.mkdtemp(prefix="engine-test-")
        try:
            import subprocess
            process = subprocess.Popen(
                [sys.executable, reference_engine.__file__, "--port", "0", "--data", folder,
                 "--fault", "mode=status,status=503,count=1"], stdout=subprocess.PIPE)
            started = json.loads(process.stdout.readline())
            with socket.create_connection(("127.0.0.1", started["port"]), timeout=5):
                pass
            connection = http.client.HTTPConnection("127.0.0.1", started["port"], timeout=5)
            connection.request("GET", "/v1/captures/none")
            self.assertEqual(connection.getresponse().status, 503, "the --fault flag is in force")
            process.terminate()
            self.assertEqual(process.wait(timeout=10), 0)
            dump = subprocess.run([sys.executable, reference_engine.__file__, "--data", folder, "--dump"],
                                  capture_output=True, check=True)
            self.assertEqual(dump.stdout, b"")
        finally:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
