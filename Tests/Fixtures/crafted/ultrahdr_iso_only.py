"""Makes `ultrahdr-320x240-iso-only.jpg` from `ultrahdr-320x240-iso.jpg` (standard library only):
the same photo and gain map with every XMP APP1 taken out of both, so that only ISO 21496-1
describes the gain map (the version in the base's APP2, the metadata in the gain map's), as an
ISO-only writer lays a file out; the MPF index is written again for the shorter images.

    python3 -B Tests/Fixtures/crafted/ultrahdr_iso_only.py
"""

import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
XMP = b"http://ns.adobe.com/xap/1.0/\0"


def without_xmp(jpeg):
    """The JPEG with its XMP APP1 segments (before the first scan) left out."""
    out, offset = bytearray(jpeg[:2]), 2
    while jpeg[offset + 1] != 0xDA:
        length = struct.unpack(">H", jpeg[offset + 2:offset + 4])[0]
        segment = jpeg[offset:offset + 2 + length]
        if not (jpeg[offset + 1] == 0xE1 and segment[4:].startswith(XMP)):
            out += segment
        offset += 2 + length
    return bytes(out + jpeg[offset:])


def mpf_segment(jpeg):
    """Where the MPF APP2 segment starts."""
    offset = 2
    while jpeg[offset + 1] != 0xDA:
        length = struct.unpack(">H", jpeg[offset + 2:offset + 4])[0]
        if jpeg[offset + 1] == 0xE2 and jpeg[offset + 4:offset + 8] == b"MPF\0":
            return offset
        offset += 2 + length
    raise ValueError("no MPF index")


with open(os.path.join(HERE, "ultrahdr-320x240-iso.jpg"), "rb") as f:
    original = f.read()
at = mpf_segment(original)
origin = at + 8
entries = origin + 8 + 2 + 3 * 12 + 4
gain_map_start = origin + struct.unpack(">I", original[entries + 16 + 8:entries + 16 + 12])[0]
primary = without_xmp(original[:gain_map_start])
gain_map = without_xmp(original[gain_map_start:])
at = mpf_segment(primary)
origin = at + 8
entries = origin + 8 + 2 + 3 * 12 + 4
primary = bytearray(primary)
primary[entries + 4:entries + 8] = struct.pack(">I", len(primary))
primary[entries + 16 + 4:entries + 16 + 12] = struct.pack(">II", len(gain_map), len(primary) - origin)
with open(os.path.join(HERE, "ultrahdr-320x240-iso-only.jpg"), "wb") as f:
    f.write(bytes(primary) + gain_map)
