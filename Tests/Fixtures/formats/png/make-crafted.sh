#!/usr/bin/env bash
# Makes the PNGs of this folder whose names start with "im-" or "crafted-" from photos in
# Tests/Fixtures/corpus, with Debian 12's ImageMagick 6.9.11 and Python's standard library.
# Run from this folder: ./make-crafted.sh
set -euo pipefail
corpus=../../corpus
# ImageMagick 6.9.11 writes the EXIF as an eXIf chunk after the image data, the XMP as a
# "Raw profile type xmp" zTXt.
convert "$corpus/offset-plus0300-nokia-8.3-5g.jpg" -resize 480x480 im-exif-after-idat-gps-offset-nokia.png
convert "$corpus/gps-south-east-australia.jpg" -resize 320x320 -define png:color-type=6 im-rgba-gps-south-east.png
# Older ImageMagick wrote the EXIF as hexadecimal text, a "Raw profile type exif" zTXt: the
# same file with its eXIf chunk rewritten so.
python3 - <<'PY'
import struct, zlib
def chunks(data):
    offset = 8
    while offset < len(data):
        length = struct.unpack(">I", data[offset:offset + 4])[0]
        yield data[offset + 4:offset + 8], data[offset + 8:offset + 8 + length]
        offset += 12 + length
def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
source = open("im-exif-after-idat-gps-offset-nokia.png", "rb").read()
out = source[:8]
for kind, body in chunks(source):
    if kind == b"eXIf":
        payload = b"Exif\0\0" + body
        digits = payload.hex()
        text = "\nexif\n%8d\n" % len(payload) + "\n".join(digits[i:i + 72] for i in range(0, len(digits), 72)) + "\n"
        out += chunk(b"zTXt", b"Raw profile type exif\0\0" + zlib.compress(text.encode()))
    else:
        out += chunk(kind, body)
open("crafted-raw-profile-exif-zTXt.png", "wb").write(out)
PY
