"""Makes the crafted Ultra HDR fixtures: an SDR base and a gain map drawn here, each JPEG'd by
Pillow, their XMP written by exiftool 12.57 (`-XMP<=file`, which writes a whole packet), the
base's EXIF GPS by exiftool too, then the MPF index (which exiftool cannot write) and the
gain map appended after the base's EOI, as Google's "Ultra HDR Image Format v1.0" lays them out.

    python3 -B Tests/Fixtures/crafted/ultrahdr.py    # needs Pillow and exiftool; tests need neither

`ultrahdr-320x240-iso.jpg` also carries ISO 21496-1 metadata in APP2 `urn:iso:std:iso:ts:21496:-1`:
the version alone in the base, the whole block (single channel, fractions) in the gain map, laid
out as libultrahdr and Skia write it.
"""

import io
import math
import os
import struct
import subprocess
import tempfile

from PIL import Image, ImageDraw

HERE = os.path.dirname(os.path.abspath(__file__))
ISO_NAMESPACE = b"urn:iso:std:iso:ts:21496:-1\0"

PRIMARY_XMP = """<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about=""
    xmlns:Container="http://ns.google.com/photos/1.0/container/"
    xmlns:Item="http://ns.google.com/photos/1.0/container/item/"
    xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/"
   hdrgm:Version="1.0">
   <Container:Directory>
    <rdf:Seq>
     <rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/></rdf:li>
     <rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="GainMap" Item:Mime="image/jpeg" Item:Length="LENGTH"/></rdf:li>
    </rdf:Seq>
   </Container:Directory>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>"""

GAIN_MAP_XMP = """<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about=""
    xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/"
   hdrgm:Version="1.0" hdrgm:GainMapMin="0" hdrgm:GainMapMax="2.5" hdrgm:Gamma="1"
   hdrgm:OffsetSDR="0.015625" hdrgm:OffsetHDR="0.015625" hdrgm:HDRCapacityMin="0"
   hdrgm:HDRCapacityMax="2.5" hdrgm:BaseRenditionIsHDR="False"/>
 </rdf:RDF>
</x:xmpmeta>"""


def base_image():
    """A sky-to-ground gradient with a bright sun and a few shapes: something with edges."""
    image = Image.new("RGB", (320, 240))
    pixels = image.load()
    for y in range(240):
        for x in range(320):
            pixels[x, y] = (60 + y * 160 // 240, 110 + x * 100 // 320, 220 - y * 150 // 240)
    draw = ImageDraw.Draw(image)
    draw.ellipse((220, 30, 280, 90), fill=(255, 250, 220))
    draw.rectangle((30, 150, 130, 220), fill=(70, 40, 30))
    draw.polygon([(150, 220), (200, 120), (250, 220)], fill=(30, 90, 40))
    return image


def gain_map_image():
    """The boost a display would add: high in the sun, a soft glow around it, none elsewhere."""
    image = Image.new("L", (80, 60))
    pixels = image.load()
    for y in range(60):
        for x in range(80):
            distance = math.hypot(x - 62.5, y - 15)
            pixels[x, y] = max(0, min(255, int(255 - distance * 9))) if distance < 28 else (x * 3 + y) % 24
    return image


def jpeg(image, quality=90):
    out = io.BytesIO()
    image.save(out, "JPEG", quality=quality)
    return out.getvalue()


def exiftool(data, *args):
    """`data` with what exiftool writes with `args`."""
    with tempfile.TemporaryDirectory() as folder:
        source = os.path.join(folder, "in.jpg")
        target = os.path.join(folder, "out.jpg")
        with open(source, "wb") as f:
            f.write(data)
        subprocess.run(["exiftool", "-q", "-q", "-n", "-o", target, *args, source], check=True, cwd=folder)
        with open(target, "rb") as f:
            return f.read()


def with_xmp(data, xmp):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "packet.xmp")
        with open(path, "w") as f:
            f.write(xmp)
        return exiftool(data, "-XMP<=" + path)


def segment(marker, payload):
    return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload


def insert_after_app1s(data, segments):
    """`segments` put after the APP0/APP1 segments at the start, where MPF goes."""
    offset = 2
    while data[offset + 1] in (0xE0, 0xE1):
        offset += 2 + struct.unpack(">H", data[offset + 2 : offset + 4])[0]
    return data[:offset] + b"".join(segments) + data[offset:], offset


def mpf(primary_length, gain_map_offset, gain_map_length):
    """The MPF APP2 payload: big-endian TIFF header, an IFD of version, count and entries."""
    ifd = struct.pack(">H", 3)
    ifd += struct.pack(">HHI4s", 0xB000, 7, 4, b"0100")
    ifd += struct.pack(">HHII", 0xB001, 4, 1, 2)
    ifd += struct.pack(">HHII", 0xB002, 7, 32, 8 + 2 + 3 * 12 + 4)
    ifd += struct.pack(">I", 0)
    entries = struct.pack(">IIIHH", 0x030000, primary_length, 0, 0, 0)
    entries += struct.pack(">IIIHH", 0, gain_map_length, gain_map_offset, 0, 0)
    return b"MPF\0" + b"MM\0\x2a" + struct.pack(">I", 8) + ifd + entries


def iso_gain_map_block():
    """Single channel, not the base's colour space; headrooms 0 and 2.5, as the hdrgm XMP says."""
    block = struct.pack(">HHB", 0, 0, 0)
    block += struct.pack(">IIII", 0, 1, 5, 2)  # base and alternate HDR headroom
    block += struct.pack(">iIiIIIiIiI", 0, 1, 5, 2, 1, 1, 1, 64, 1, 64)  # min, max, gamma, offsets
    return ISO_NAMESPACE + block


def ultra_hdr(name, with_iso):
    gain_map = with_xmp(jpeg(gain_map_image()), GAIN_MAP_XMP)
    if with_iso:
        gain_map, _ = insert_after_app1s(gain_map, [segment(0xE2, iso_gain_map_block())])
    base = exiftool(
        jpeg(base_image()), "-GPSLatitude=35.658611", "-GPSLatitudeRef=N", "-GPSLongitude=139.745556",
        "-GPSLongitudeRef=E", "-DateTimeOriginal=2024:06:01 12:00:00")
    base = with_xmp(base, PRIMARY_XMP.replace("LENGTH", str(len(gain_map))))
    extra = [segment(0xE2, ISO_NAMESPACE + struct.pack(">HH", 0, 0))] if with_iso else []
    placeholder = mpf(0, 0, 0)
    primary, mpf_at = insert_after_app1s(base, extra + [segment(0xE2, placeholder)])
    mpf_at += sum(len(s) for s in extra)
    tiff_header = mpf_at + 4 + 4
    primary = primary.replace(placeholder, mpf(len(primary), len(primary) - tiff_header, len(gain_map)), 1)
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(primary + gain_map)


ultra_hdr("ultrahdr-320x240.jpg", with_iso=False)
ultra_hdr("ultrahdr-320x240-iso.jpg", with_iso=True)
