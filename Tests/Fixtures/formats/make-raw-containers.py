#!/usr/bin/env python3
"""Writes camera raws in the containers that are not plain TIFF, around a real photo's pixels
(corpus/gps-north-east-pixel-4048x3036-gps-offset-only.jpg, MIT) and EXIF written here, so that
ImagePrep's reading of each container's EXIF is tested against exiftool's:

- raw-orf-olympus-made.orf: an ORF ("IIRO" where a TIFF has "II*\\0"): IFD0 holds the camera tags,
  a 480x360 Bayer mosaic (RGGB, 16-bit words) and links to the Exif IFD (with the mosaic's
  CFAPattern) and the GPS IFD, as an Olympus camera writes them.
- raw-rw2-panasonic-made.rw2: an RW2 ("IIU\\0"): IFD0 holds Panasonic's own size and offset tags,
  the same mosaic and the camera tags, Exif and GPS IFDs.
- raw-cr3-canon-made.cr3: a CR3 (ISO base media, brand "crx "): the EXIF in the `CMT1` (IFD0),
  `CMT2` (Exif IFD) and `CMT4` (GPS IFD) boxes of Canon's `uuid` box in `moov`. It has no CRX
  raw data (no open encoder writes it), so LibRaw refuses it: it tests the EXIF reading alone.
- raw-raf-fujifilm-made.raf: a RAF: Fujifilm's header, a 320x240 JPEG preview whose APP1 is the
  EXIF (as the camera writes it, right after SOI), a CFA header and the mosaic (16-bit words).

LibRaw opens the ORF, the RW2 and the RAF and renders their sensor data; it reads the ORF's and
the RW2's as those cameras pack them (Olympus's and Panasonic's compressed forms), so their
pictures are noise, and the RAF's without the camera's white balance, so it is tinted: these
files test where each container keeps its EXIF, not colour (dng-cfa-bayer-480x360.dng does).
Each has its own capture time, offset, position and orientation. Run from Tests/Fixtures/formats
with Debian's /usr/bin/python3 (Pillow).
"""
import importlib.util
import io
import struct

from PIL import Image

spec = importlib.util.spec_from_file_location("dng", "make-dng-fixtures.py")
dng = importlib.util.module_from_spec(spec)
spec.loader.exec_module(dng)
BYTE, ASCII, SHORT, LONG, RATIONAL, UNDEFINED = 1, 2, 3, 4, 5, 7
RAW_SIZE = (480, 360)


def gps_ifd(writer, latitude, longitude):
    """latitude and longitude as (ref, degrees, minutes, hundredths of seconds)."""
    (lat_ref, *lat), (lon_ref, *lon) = latitude, longitude
    return writer.ifd([
        (0x0000, BYTE, [2, 3, 0, 0]),
        (0x0001, ASCII, lat_ref.encode() + b"\0"), (0x0002, RATIONAL, [(lat[0], 1), (lat[1], 1), (lat[2], 100)]),
        (0x0003, ASCII, lon_ref.encode() + b"\0"), (0x0004, RATIONAL, [(lon[0], 1), (lon[1], 1), (lon[2], 100)]),
    ])


def exif_ifd(writer, date, offset, extra=()):
    return writer.ifd([
        (0x9003, ASCII, date.encode() + b"\0"),  # DateTimeOriginal
        (0x9011, ASCII, offset.encode() + b"\0"),  # OffsetTimeOriginal
        (0x829A, RATIONAL, [(1, 125)]),  # ExposureTime
        *extra,
    ])


def mosaic(photo, scale, big_endian=False):
    """The RGGB mosaic of the photo at RAW_SIZE, each sample's linear value times `scale`."""
    table = dng.linear_table(0, 4095)
    linear = photo.resize(RAW_SIZE, Image.LANCZOS)
    pixels = linear.load()
    words = [table[pixels[x, y][(0, 1, 1, 2)[(y % 2) * 2 + x % 2]]] * scale
             for y in range(RAW_SIZE[1]) for x in range(RAW_SIZE[0])]
    return struct.pack((">" if big_endian else "<") + "%dH" % len(words), *words)


def camera_tags(make, model, orientation):
    return [(271, ASCII, make.encode() + b"\0"), (272, ASCII, model.encode() + b"\0"), (274, SHORT, [orientation])]


def write_orf(photo):
    writer = dng.TIFFWriter()
    samples = mosaic(photo, 16)
    raw = writer.blob(samples)
    exif = exif_ifd(writer, "2023:09:02 18:04:11", "-07:00", [(0xA302, UNDEFINED, [2, 0, 2, 0, 0, 1, 1, 2])])
    gps = gps_ifd(writer, ("N", 37, 48, 3000), ("W", 122, 28, 1250))
    width, height = RAW_SIZE
    ifd0 = writer.ifd([
        (254, LONG, [0]), (256, LONG, [width]), (257, LONG, [height]), (258, SHORT, [16]), (259, SHORT, [1]),
        (262, SHORT, [32803]), (273, LONG, [raw]), (277, SHORT, [1]), (278, LONG, [height]),
        (279, LONG, [len(samples)]), (284, SHORT, [1]),
        *camera_tags("OLYMPUS CORPORATION", "E-M10", 8),
        (0x8769, LONG, [exif]), (0x8825, LONG, [gps]),
    ])
    writer.data[2:4] = b"RO"
    writer.data[4:8] = struct.pack("<I", ifd0)
    return bytes(writer.data)


def write_rw2(photo):
    writer = dng.TIFFWriter()
    samples = mosaic(photo, 1)
    raw = writer.blob(samples)
    exif = exif_ifd(writer, "2022:12:24 09:15:02", "+09:00")
    gps = gps_ifd(writer, ("N", 35, 39, 2900), ("E", 139, 44, 5100))
    width, height = RAW_SIZE
    ifd0 = writer.ifd([
        (0x0001, UNDEFINED, b"0310"),  # PanasonicRawVersion
        (0x0002, SHORT, [width]), (0x0003, SHORT, [height]),  # SensorWidth, SensorHeight
        (0x0004, SHORT, [0]), (0x0005, SHORT, [0]), (0x0006, SHORT, [height]), (0x0007, SHORT, [width]),  # borders
        (0x0009, SHORT, [0]),  # CFAPattern: 0 for RGGB here (LibRaw takes Panasonic's from its default)
        (0x000A, SHORT, [12]),  # BitsPerSample
        (0x002D, SHORT, [0]),  # RawFormat
        (0x0118, LONG, [raw]),  # RawDataOffset
        *camera_tags("Panasonic", "DMC-GX7", 3),
        (0x8769, LONG, [exif]), (0x8825, LONG, [gps]),
    ])
    writer.data[2:4] = b"U\0"
    writer.data[4:8] = struct.pack("<I", ifd0)
    return bytes(writer.data)


def tiff_block(entries):
    """A TIFF block of one IFD, as a CR3's CMT boxes hold."""
    writer = dng.TIFFWriter()
    writer.data[4:8] = struct.pack("<I", writer.ifd(entries))
    return bytes(writer.data)


def box(kind, payload):
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def write_cr3():
    cmt1 = tiff_block(camera_tags("Canon", "Canon EOS R6", 6) + [(0x0132, ASCII, b"2021:06:30 21:40:55\0")])
    cmt2 = tiff_block([
        (0x9003, ASCII, b"2021:06:30 21:40:55\0"), (0x9011, ASCII, b"+01:00\0"), (0x829A, RATIONAL, [(1, 60)]),
    ])
    cmt4 = tiff_block([
        (0x0000, BYTE, [2, 3, 0, 0]),
        (0x0001, ASCII, b"S\0"), (0x0002, RATIONAL, [(33, 1), (51, 1), (3570, 100)]),
        (0x0003, ASCII, b"E\0"), (0x0004, RATIONAL, [(151, 1), (12, 1), (5140, 100)]),
    ])
    canon = bytes.fromhex("85c0b687820f11e08111f4ce462b6a48")
    uuid = box(b"uuid", canon + box(b"CNCV", b"CanonCR3_001/00.10.00/00.00.00")
               + box(b"CMT1", cmt1) + box(b"CMT2", cmt2) + box(b"CMT4", cmt4))
    ftyp = box(b"ftyp", b"crx " + struct.pack(">I", 1) + b"crx isom")
    return ftyp + box(b"moov", uuid)


def write_raf(photo):
    # The preview's EXIF, as a Fujifilm camera writes it in the JPEG's APP1.
    tiff = dng.TIFFWriter()
    exif = exif_ifd(tiff, "2020:04:11 07:33:20", "+02:00")
    gps = gps_ifd(tiff, ("N", 46, 33, 4200), ("E", 7, 58, 2300))
    tiff.data[4:8] = struct.pack("<I", tiff.ifd(
        camera_tags("FUJIFILM", "X-T20", 6) + [(0x8769, LONG, [exif]), (0x8825, LONG, [gps])]))
    out = io.BytesIO()
    photo.resize((320, 240), Image.LANCZOS).save(out, "JPEG", quality=80, exif=b"Exif\0\0" + bytes(tiff.data))
    preview = out.getvalue()
    # The APP1 first, right after SOI, as a camera writes it (Pillow writes a JFIF APP0 before it).
    if preview[2:4] == b"\xff\xe0":
        preview = preview[:2] + preview[4 + struct.unpack(">H", preview[4:6])[0]:]
    samples = mosaic(photo, 1)
    width, height = RAW_SIZE
    # The CFA header: Fujifilm's tag list (big-endian): the raw size, the picture's size, and
    # the layout byte that says the mosaic is not rotated 45 degrees.
    tags = [(0x100, struct.pack(">HH", height, width)), (0x121, struct.pack(">HH", height, width)),
            (0x130, bytes([0, 8, 0, 0]))]
    cfa_header = struct.pack(">I", len(tags)) + b"".join(struct.pack(">HH", t, len(v)) + v for t, v in tags)
    header_size = 160
    preview_offset = header_size
    cfa_header_offset = preview_offset + len(preview)
    cfa_offset = cfa_header_offset + len(cfa_header)
    header = (b"FUJIFILMCCD-RAW 0201FF129502" + b"X-T20".ljust(32, b"\0") + b"0100" + bytes(20)
              + struct.pack(">6I", preview_offset, len(preview), cfa_header_offset, len(cfa_header),
                            cfa_offset, len(samples)))
    return header.ljust(header_size, b"\0") + preview + cfa_header + samples


if __name__ == "__main__":
    photo = Image.open(dng.SOURCE).convert("RGB")
    for name, data in [
        ("raw-orf-olympus-made.orf", write_orf(photo)), ("raw-rw2-panasonic-made.rw2", write_rw2(photo)),
        ("raw-cr3-canon-made.cr3", write_cr3()), ("raw-raf-fujifilm-made.raf", write_raf(photo)),
    ]:
        with open(name, "wb") as out:
            out.write(data)
