#!/usr/bin/env python3
"""Writes the two DNG fixtures from a real photo's pixels (corpus/gps-north-east-pixel-4048x3036-gps-offset-only.jpg, MIT):

- dng-preview-2048.dng: a 2048x1536 JPEG preview in IFD0 (what a camera or Lightroom embeds), a
  small LinearRaw image in its SubIFD. ImagePrep prepares the preview.
- dng-linear-raw-400x300.dng: a 160x120 JPEG preview in IFD0 and a 400x300 16-bit LinearRaw image
  (linear sRGB primaries, ColorMatrix1 = XYZ to linear sRGB) in its SubIFD: ImagePrep renders
  the raw data through LibRaw.
- dng-cfa-bayer-480x360.dng: the same 160x120 preview and a 480x360 Bayer mosaic (RGGB, 14-bit
  samples over a black level of 512 in 16-bit words, the photo's linear sRGB values each
  photosite keeps one of), as a camera's sensor data is: LibRaw demosaics it, at half size
  when that is large enough. references/dng-cfa-bayer-480x360.jpg is the photo it was made
  from at that size.

Both carry Orientation 6 in IFD0, an Exif IFD (DateTimeOriginal with OffsetTimeOriginal, Make
and Model) and a GPS IFD, as a camera's DNG does. A minimal DNG 1.4 written by hand: no maker
note, no opcode lists. Run from Tests/Fixtures/formats with Debian's python3 (Pillow).
"""
import io
import struct
import sys

from PIL import Image

SOURCE = "../corpus/gps-north-east-pixel-4048x3036-gps-offset-only.jpg"
BYTE, ASCII, SHORT, LONG, RATIONAL, SRATIONAL = 1, 2, 3, 4, 5, 10


def jpeg(image, size, quality):
    out = io.BytesIO()
    image.resize(size, Image.LANCZOS).save(out, "JPEG", quality=quality)
    return out.getvalue()


class TIFFWriter:
    """Little-endian TIFF: each IFD written with its out-of-line values right after it."""

    def __init__(self):
        self.data = bytearray(b"II*\0\0\0\0\0")

    def align(self):
        if len(self.data) % 2:
            self.data += b"\0"

    def blob(self, payload):
        self.align()
        offset = len(self.data)
        self.data += payload
        return offset

    def ifd(self, entries):
        """entries: (tag, type, values) with values bytes for ASCII/BYTE/UNDEFINED, else a list."""
        self.align()
        start = len(self.data)
        entries = sorted(entries)
        table = bytearray(struct.pack("<H", len(entries)))
        extra = bytearray()
        extra_start = start + 2 + 12 * len(entries) + 4
        for tag, kind, values in entries:
            if kind in (BYTE, ASCII, 7):
                payload, count = bytes(values), len(values)
            elif kind == SHORT:
                payload, count = struct.pack("<%dH" % len(values), *values), len(values)
            elif kind == LONG:
                payload, count = struct.pack("<%dI" % len(values), *values), len(values)
            else:
                fmt = "<%di" if kind == SRATIONAL else "<%dI"
                flat = [n for pair in values for n in pair]
                payload, count = struct.pack(fmt % len(flat), *flat), len(values)
            if len(payload) <= 4:
                field = payload.ljust(4, b"\0")
            else:
                if len(extra) % 2:
                    extra += b"\0"
                field = struct.pack("<I", extra_start + len(extra))
                extra += payload
            table += struct.pack("<HHI", tag, kind, count) + field
        table += struct.pack("<I", 0)
        self.data += table + extra
        return start


BLACK, WHITE = 512, 16383  # a 14-bit sensor's levels


def linear_table(low, high):
    """sRGB's 8-bit code values to linear light between `low` and `high`."""
    return [round(low + (high - low) * ((v / 255) / 12.92 if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4))
            for v in range(256)]


def mosaic(linear):
    """One sample a photosite, RGGB: the red, green or blue value the cell's filter passes."""
    table = linear_table(BLACK, WHITE)
    width, height = linear.size
    pixels = linear.load()
    samples = bytearray()
    for y in range(height):
        for x in range(width):
            channel = (0, 1, 1, 2)[(y % 2) * 2 + x % 2]
            samples += struct.pack("<H", table[pixels[x, y][channel]])
    return bytes(samples)


def write_dng(path, photo, preview_size, raw_size, cfa=False):
    writer = TIFFWriter()
    preview = jpeg(photo, preview_size, 80)
    preview_offset = writer.blob(preview)
    linear = photo.resize(raw_size, Image.LANCZOS)
    if cfa:
        samples = mosaic(linear)
    else:
        samples = bytearray()
        table = linear_table(0, 65535)
        for r, g, b in linear.getdata():
            samples += struct.pack("<3H", table[r], table[g], table[b])
    raw_offset = writer.blob(bytes(samples))
    exif = writer.ifd([
        (0x9003, ASCII, b"2024:05:17 10:21:33\0"),  # DateTimeOriginal
        (0x9011, ASCII, b"+02:00\0"),  # OffsetTimeOriginal
        (0x829A, RATIONAL, [(1, 250)]),  # ExposureTime
        (0x8827, SHORT, [100]),  # ISO
    ])
    gps = writer.ifd([
        (0x0000, BYTE, [2, 3, 0, 0]),
        (0x0001, ASCII, b"N\0"), (0x0002, RATIONAL, [(48, 1), (51, 1), (2964, 100)]),
        (0x0003, ASCII, b"E\0"), (0x0004, RATIONAL, [(2, 1), (17, 1), (4020, 100)]),
    ])
    width, height = raw_size
    if cfa:
        sub = writer.ifd([
            (254, LONG, [0]), (256, LONG, [width]), (257, LONG, [height]), (258, SHORT, [16]),
            (259, SHORT, [1]), (262, SHORT, [32803]), (273, LONG, [raw_offset]), (277, SHORT, [1]),
            (278, LONG, [height]), (279, LONG, [len(samples)]), (284, SHORT, [1]),
            (33421, SHORT, [2, 2]),  # CFARepeatPatternDim
            (33422, BYTE, [0, 1, 1, 2]),  # CFAPattern: RGGB
            (50710, BYTE, [0, 1, 2]),  # CFAPlaneColor
            (50711, SHORT, [1]),  # CFALayout: rectangular
            (50714, LONG, [BLACK]),  # BlackLevel
            (50717, LONG, [WHITE]),  # WhiteLevel
        ])
    else:
        sub = writer.ifd([
            (254, LONG, [0]), (256, LONG, [width]), (257, LONG, [height]), (258, SHORT, [16, 16, 16]),
            (259, SHORT, [1]), (262, SHORT, [34892]), (273, LONG, [raw_offset]), (277, SHORT, [3]),
            (278, LONG, [height]), (279, LONG, [len(samples)]), (284, SHORT, [1]),
            (50714, LONG, [0]),  # BlackLevel
            (50717, LONG, [65535]),  # WhiteLevel
        ])
    xyz_to_srgb = [3.2406, -1.5372, -0.4986, -0.9689, 1.8758, 0.0415, 0.0557, -0.2040, 1.0570]
    ifd0 = writer.ifd([
        (254, LONG, [1]), (256, LONG, [preview_size[0]]), (257, LONG, [preview_size[1]]),
        (258, SHORT, [8, 8, 8]), (259, SHORT, [7]), (262, SHORT, [6]), (271, ASCII, b"ImagePrep\0"),
        (272, ASCII, b"Fixture DNG\0"), (273, LONG, [preview_offset]), (274, SHORT, [6]), (277, SHORT, [3]),
        (278, LONG, [preview_size[1]]), (279, LONG, [len(preview)]), (284, SHORT, [1]),
        (305, ASCII, b"make-dng-fixtures.py\0"), (330, LONG, [sub]),
        (0x8769, LONG, [exif]), (0x8825, LONG, [gps]),
        (50706, BYTE, [1, 4, 0, 0]), (50707, BYTE, [1, 1, 0, 0]), (50708, ASCII, b"ImagePrep Fixture DNG\0"),
        (50721, SRATIONAL, [(round(v * 10000), 10000) for v in xyz_to_srgb]),  # ColorMatrix1
        (50728, RATIONAL, [(1, 1), (1, 1), (1, 1)]),  # AsShotNeutral
        (50778, SHORT, [21]),  # CalibrationIlluminant1: D65
    ])
    writer.data[4:8] = struct.pack("<I", ifd0)
    with open(path, "wb") as out:
        out.write(writer.data)


if __name__ == "__main__" and len(sys.argv) == 5:
    # PHOTO OUT WIDTH HEIGHT: a raw DNG of another photo at another size, with a 160x120 preview
    # (Benchmarks/format-bench.sh's DNG, which LibRaw renders).
    write_dng(sys.argv[2], Image.open(sys.argv[1]).convert("RGB"), (160, 120), (int(sys.argv[3]), int(sys.argv[4])))
elif __name__ == "__main__":
    photo = Image.open(SOURCE).convert("RGB")
    write_dng("dng-preview-2048.dng", photo, (2048, 1536), (64, 48))
    write_dng("dng-linear-raw-400x300.dng", photo, (160, 120), (400, 300))
    write_dng("dng-cfa-bayer-480x360.dng", photo, (160, 120), (480, 360), cfa=True)
    # What the mosaic was made from, as stored (the DNG's Orientation not applied), for the
    # test that holds LibRaw's rendering of it to the photo's colours.
    photo.resize((480, 360), Image.LANCZOS).save("references/dng-cfa-bayer-480x360.jpg", "JPEG", quality=90)
