#!/bin/sh
# Regenerates every crafted fixture in this folder, and expected.json beside them, from
# ../corpus/no-exif.jpg (MikeKovarik/exifr, MIT; a JFIF with no EXIF, so each crafted file holds
# exactly the tags written here). Needs exiftool 12.57 and python3. See ../README.md, "crafted/".
#
#   sh Tests/Fixtures/crafted/make.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
base="$here/../corpus/no-exif.jpg"

# craft NAME ARG...: NAME is base plus what exiftool writes with ARGs. -n writes the raw values
# (N/S, 0/1, decimal degrees) rather than exiftool's printed forms.
craft() {
    name=$1
    shift
    rm -f "$here/$name"
    exiftool -q -q -n -o "$here/$name" "$@" "$base"
}

# zero_denominator NAME TAG INDEX: sets the denominator of the INDEX-th (0-based) rational of GPS
# tag TAG to 0. exiftool cannot write such a rational (it rejects 'inf' and 'undef' for GPS
# coordinates), so this walks the TIFF structure and patches the one 4-byte field in place.
zero_denominator() {
    python3 - "$here/$1" "$2" "$3" <<'PY'
import struct, sys
path, tag, index = sys.argv[1], int(sys.argv[2], 0), int(sys.argv[3])
data = bytearray(open(path, "rb").read())
tiff = data.index(b"Exif\0\0") + 6
order = ">" if data[tiff:tiff + 2] == b"MM" else "<"
def u16(at): return struct.unpack_from(order + "H", data, tiff + at)[0]
def u32(at): return struct.unpack_from(order + "I", data, tiff + at)[0]
def entries(ifd):
    return [(u16(ifd + 2 + 12 * i), ifd + 2 + 12 * i) for i in range(u16(ifd))]
gps = next(u32(at + 8) for t, at in entries(u32(4)) if t == 0x8825)
value = next(u32(at + 8) for t, at in entries(gps) if t == tag)
struct.pack_into(order + "I", data, tiff + value + 8 * index + 4, 0)
open(path, "wb").write(data)
PY
}

# All four hemisphere combinations; the north-west one is below sea level (AltitudeRef 1), like
# the GPL-only Exiv2 sample the shared corpus has and this repository must not carry.
craft gps-north-east.jpg -GPSLatitude=35.658611 -GPSLatitudeRef=N -GPSLongitude=139.745556 \
    -GPSLongitudeRef=E -GPSAltitude=150 -GPSAltitudeRef=0
craft gps-north-west-below-sea-level.jpg -GPSLatitude=36.448333 -GPSLatitudeRef=N \
    -GPSLongitude=116.855 -GPSLongitudeRef=W -GPSAltitude=14.28 -GPSAltitudeRef=1 \
    '-DateTimeOriginal=2008:05:08 09:54:28'
craft gps-south-east.jpg -GPSLatitude=33.856778 -GPSLatitudeRef=S -GPSLongitude=151.215361 \
    -GPSLongitudeRef=E
craft gps-south-west.jpg -GPSLatitude=34.603694 -GPSLatitudeRef=S -GPSLongitude=58.381611 \
    -GPSLongitudeRef=W -GPSAltitude=25 -GPSAltitudeRef=0

# What must give no location (or no altitude), with a warning.
craft gps-missing-latitude-ref.jpg -GPSLatitude=48.8584 -GPSLongitude=2.2945 -GPSLongitudeRef=E
craft gps-zero-denominator.jpg -GPSLatitude=48.8584 -GPSLatitudeRef=N -GPSLongitude=2.2945 \
    -GPSLongitudeRef=E
zero_denominator gps-zero-denominator.jpg 0x0002 2
craft gps-latitude-out-of-range.jpg -GPSLatitude=95 -GPSLatitudeRef=N -GPSLongitude=2.2945 \
    -GPSLongitudeRef=E
craft gps-latitude-ref-invalid.jpg -GPSLatitude=48.8584 -GPSLatitudeRef=X -GPSLongitude=2.2945 \
    -GPSLongitudeRef=E
craft gps-altitude-zero-denominator.jpg -GPSLatitude=46.5 -GPSLatitudeRef=N -GPSLongitude=7.5 \
    -GPSLongitudeRef=E -GPSAltitude=4158 -GPSAltitudeRef=0
zero_denominator gps-altitude-zero-denominator.jpg 0x0006 0

# Offsets that are not whole hours, with sub-seconds; each date pairs with its own offset tag.
craft offset-plus0545-subsec.jpg '-DateTimeOriginal=2024:11:02 06:15:30' -SubSecTimeOriginal=25 \
    -OffsetTimeOriginal=+05:45
craft offset-minus0330.jpg '-DateTimeOriginal=2024:01:20 23:45:00' -OffsetTimeOriginal=-03:30 \
    '-ModifyDate=2024:01:21 10:00:00' -OffsetTime=+00:00
# The fallbacks: DateTimeDigitized, then DateTime, each with its own sub-second and offset tags.
craft subsec-digitized-fallback.jpg '-CreateDate=2020:02:29 12:00:00' -SubSecTimeDigitized=007 \
    -OffsetTimeDigitized=+09:00
craft datetime-fallback.jpg '-ModifyDate=2021:06:01 08:00:00' -SubSecTime=5 -OffsetTime=-07:00
# No offset tag: local minus GPS UTC is +05:47:07 across midnight, which rounds to +05:45.
craft offset-inferred-from-gps.jpg '-DateTimeOriginal=2023:03:16 01:52:10' \
    -GPSDateStamp=2023:03:15 -GPSTimeStamp=20:05:03 -GPSLatitude=27.7172 -GPSLatitudeRef=N \
    -GPSLongitude=85.324 -GPSLongitudeRef=E

# Dates that must give no capture time (or fall through to the next tag).
craft zero-date.jpg '-DateTimeOriginal=0000:00:00 00:00:00' -OffsetTimeOriginal=+01:00 \
    '-CreateDate=    :  :     :  :  ' '-ModifyDate=0000:00:00 00:00:00'
craft impossible-date.jpg '-DateTimeOriginal=2023:02:29 12:00:00' \
    '-CreateDate=2023:02:28 23:59:59' -OffsetTimeDigitized=+01:00

# Orientation outside 1-8, and a Latin-1 comment on two lines with the NUL terminators that some
# writers add.
craft orientation-invalid.jpg -Orientation=9
printf 'Caf\351 au lait\nsecond line\000\000' >"$here/comment.tmp"
craft comment-latin1-nul.jpg "-Comment<=$here/comment.tmp"
rm -f "$here/comment.tmp"

# What exiftool reads from each crafted file, under the field names of ../corpus/expected.json.
cd "$here"
exiftool -q -j -n -G1:4 -a *.jpg | python3 -c '
import datetime, json, re, sys

def offset_from_gps(local, date, time):
    """local - GPS UTC, rounded to 15 minutes, as ../corpus/expected.json derives it."""
    if not (local and date and time):
        return None
    utc = datetime.datetime.strptime(date + " " + time.split(".")[0], "%Y:%m:%d %H:%M:%S")
    minutes = round((datetime.datetime.strptime(local, "%Y:%m:%d %H:%M:%S") - utc).total_seconds() / 900) * 15
    sign = "-" if minutes < 0 else "+"
    return "%s%02d:%02d" % (sign, abs(minutes) // 60, abs(minutes) % 60)

text = lambda value: None if value is None else str(value)
files = {}
for tags in json.load(sys.stdin):
    get = tags.get
    files[tags["SourceFile"]] = {
        "DateTimeOriginal": text(get("ExifIFD:DateTimeOriginal")),
        "CreateDate": text(get("ExifIFD:CreateDate")),
        "ModifyDate": text(get("IFD0:ModifyDate")),
        "SubSecTimeOriginal": text(get("ExifIFD:SubSecTimeOriginal")),
        "SubSecTimeDigitized": text(get("ExifIFD:SubSecTimeDigitized")),
        "SubSecTime": text(get("ExifIFD:SubSecTime")),
        "OffsetTimeOriginal": text(get("ExifIFD:OffsetTimeOriginal")),
        "OffsetTimeDigitized": text(get("ExifIFD:OffsetTimeDigitized")),
        "OffsetTime": text(get("ExifIFD:OffsetTime")),
        "GPSLatitude": get("Composite:GPSLatitude"),
        "GPSLongitude": get("Composite:GPSLongitude"),
        "GPSAltitude": get("Composite:GPSAltitude"),
        "GPSLatitude_unsigned": get("GPS:GPSLatitude"),
        "GPSLongitude_unsigned": get("GPS:GPSLongitude"),
        "GPSAltitude_unsigned": get("GPS:GPSAltitude"),
        "GPSDateStamp": text(get("GPS:GPSDateStamp")),
        "GPSTimeStamp": text(get("GPS:GPSTimeStamp")),
        "inferred_offset_from_gps": offset_from_gps(
            get("ExifIFD:DateTimeOriginal"), get("GPS:GPSDateStamp"), text(get("GPS:GPSTimeStamp"))),
        "orientation": get("IFD0:Orientation"),
        "Make": text(get("IFD0:Make")),
        "Model": text(get("IFD0:Model")),
        "Comment": text(get("File:Comment")),
        "width": get("File:ImageWidth"),
        "height": get("File:ImageHeight"),
        "exiftool_warnings": [value for key, value in tags.items() if key.endswith(":Warning")],
    }
meta = {"generated_by": "make.sh", "exiftool": "exiftool -j -n -G1:4 -a, fields renamed as in ../corpus/expected.json"}
json.dump({"_meta": meta, "files": files}, sys.stdout, indent=1, sort_keys=True)
print()
' >expected.json
