#!/bin/sh
# Regenerates every crafted fixture in this folder, and exiftool.json beside them, from
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

# edit NAME COMMAND ARG...: a byte edit that exiftool will not make (see exifedit.py).
edit() {
    name=$1
    shift
    python3 -B "$here/exifedit.py" "$here/$name" "$@"
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
edit gps-zero-denominator.jpg zero-denominator GPS 0x0002 2
craft gps-latitude-out-of-range.jpg -GPSLatitude=95 -GPSLatitudeRef=N -GPSLongitude=2.2945 \
    -GPSLongitudeRef=E
craft gps-latitude-ref-invalid.jpg -GPSLatitude=48.8584 -GPSLatitudeRef=X -GPSLongitude=2.2945 \
    -GPSLongitudeRef=E
craft gps-altitude-zero-denominator.jpg -GPSLatitude=46.5 -GPSLatitudeRef=N -GPSLongitude=7.5 \
    -GPSLongitudeRef=E -GPSAltitude=4158 -GPSAltitudeRef=0
edit gps-altitude-zero-denominator.jpg zero-denominator GPS 0x0006 0

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


# Dates that carry their own fraction of a second or time zone, as some cameras and tools write
# them (issue 13). exiftool's Composite SubSecDateTimeOriginal keeps what the date itself carries
# and adds SubSecTimeOriginal and OffsetTimeOriginal only where it carries none; so do we.
craft datetimeoriginal-fraction.jpg '-DateTimeOriginal=2018:06:26 17:46:33.847' \
    '-CreateDate=2011:05:01 10:00:00'
craft datetimeoriginal-fraction-zone.jpg '-DateTimeOriginal=2018:06:26 17:46:33.847+02:00'
craft datetimeoriginal-own-parts-win.jpg '-DateTimeOriginal=2018:06:26 17:46:33.847-05:00' \
    -SubSecTimeOriginal=5 -OffsetTimeOriginal=+01:00
# ISO 8601's layout, with Z for UTC.
craft datetimeoriginal-iso8601.jpg '-DateTimeOriginal=2004-07-13T21:23:44Z'
# Z and an OffsetTimeOriginal: exiftool appends the offset after the Z ("...Z+02:00").
craft datetimeoriginal-utc-z-and-offset-tag.jpg '-DateTimeOriginal=2004:07:13 21:23:44Z' \
    -OffsetTimeOriginal=+02:00
# DateTimeOriginal or DateTimeDigitized in IFD0, where TIFF/EP puts them, and no Exif IFD; the
# later ModifyDate must not be taken instead.
craft datetimeoriginal-in-ifd0.jpg '-IFD0:DateTimeOriginal=2009:10:11 12:13:14' \
    '-ModifyDate=2010:01:01 00:00:00'
craft createdate-in-ifd0.jpg '-IFD0:CreateDate=2009:10:11 12:13:14' '-ModifyDate=2010:01:01 00:00:00'

# A JPEGInterchangeFormatLength (0x0202) in IFD0 that points 16 MB past the end of the block,
# sorted before the Exif and GPS IFD pointers: libexif 0.6.24 stops reading IFD0 there.
craft ifd0-bad-thumbnail-length.jpg -Make=ExampleCam '-Model=X 100' -Orientation=6 \
    '-ModifyDate=2015:08:01 09:00:00' '-DateTimeOriginal=2015:07:31 18:20:05' \
    -OffsetTimeOriginal=+02:00 -GPSLatitude=45.4371 -GPSLatitudeRef=N -GPSLongitude=12.3326 \
    -GPSLongitudeRef=E -GPSAltitude=2 -GPSAltitudeRef=0
edit ifd0-bad-thumbnail-length.jpg add-long IFD0 0x0202 0x00FFFFFF

# The marker stream: FF 00 between two segments, which libjpeg's next_marker skips as fill, before
# the EXIF APP1 and the comment; and a COM whose length is 1, where exiftool stops reading (and
# libjpeg reads on).
craft marker-ff00-before-exif.jpg '-DateTimeOriginal=2019:04:05 06:07:08' -Comment=after
edit marker-ff00-before-exif.jpg insert-after 0xE0 FF00
craft marker-walk-stops-at-bad-length.jpg '-DateTimeOriginal=2019:04:05 06:07:08' -Comment=after
edit marker-walk-stops-at-bad-length.jpg insert-after 0xE0 FFFE0001

# GPSAltitudeRef with count 0, as the Pixel 7 writes it: exiftool reads "above sea level".
craft gps-altitude-ref-count-zero.jpg -GPSLatitude=37.4220 -GPSLatitudeRef=N \
    -GPSLongitude=122.0841 -GPSLongitudeRef=W -GPSAltitude=31.5 -GPSAltitudeRef=0
edit gps-altitude-ref-count-zero.jpg set-count GPS 0x0005 0
# Orientation stored as SLONG, as some Fuji cameras and Pillow write it.
craft orientation-slong.jpg -Orientation=6
edit orientation-slong.jpg set-integer IFD0 0x0112 SLONG 6

# Orientation stored as text, which exiftool reads as the number and we ignore.
craft orientation-text.jpg -Orientation=6
edit orientation-text.jpg set-text IFD0 0x0112 6

# What is stored as ASCII that should be a number: the Exif IFD pointer (its four bytes still the
# offset, so that libexif follows it and exiftool does not), and GPS coordinates written as text
# with decimal commas (52°50'34.0118" N, 4°53'26.4822" E), which exiftool misreads as 52.0139 N.
craft exif-pointer-ascii.jpg '-DateTimeOriginal=2016:02:03 04:05:06' '-ModifyDate=2016:02:04 00:00:00'
edit exif-pointer-ascii.jpg retype IFD0 0x8769 ASCII 4
craft gps-coordinates-text-comma-decimals.jpg -GPSLatitude=52.842781 -GPSLatitudeRef=N \
    -GPSLongitude=4.890689 -GPSLongitudeRef=E
edit gps-coordinates-text-comma-decimals.jpg set-text GPS 0x0002 52,00000,50,00000,34,01180
edit gps-coordinates-text-comma-decimals.jpg set-text GPS 0x0004 4,00000,53,00000,26,48220

# What exiftool takes from outside EXIF: an altitude from XMP (the EXIF GPS IFD has none), and a
# PhotoStudio comment in APP10 ("UNICODE\0", then UCS-2 big-endian) with no COM segment.
craft gps-altitude-in-xmp.jpg -GPSLatitude=46.5584 -GPSLatitudeRef=N -GPSLongitude=7.9853 \
    -GPSLongitudeRef=E -XMP-exif:GPSAltitude=3454 -XMP-exif:GPSAltitudeRef=0
craft comment-app10-photostudio.jpg '-DateTimeOriginal=2003:03:03 03:03:03'
edit comment-app10-photostudio.jpg insert-after 0xE1 \
    FFEA0016554E49434F44450000480065006C006C006F0021

# Values that EXIF does not allow and exiftool prints anyway.
craft gps-longitude-out-of-range.jpg -GPSLatitude=48.8584 -GPSLatitudeRef=N -GPSLongitude=190 \
    -GPSLongitudeRef=E
craft gps-latitude-negative.jpg -GPSLatitude=36.45 -GPSLatitudeRef=N -GPSLongitude=116.855 \
    -GPSLongitudeRef=W
edit gps-latitude-negative.jpg retype GPS 0x0002 SRATIONAL 3
edit gps-latitude-negative.jpg set-rational GPS 0x0002 0 -36 1
# An altitude with no position: PhotoMetadata holds an altitude only as part of a location.
craft gps-altitude-without-position.jpg -GPSAltitude=1200 -GPSAltitudeRef=0
craft gps-altitude-ref-2.jpg -GPSLatitude=35.3606 -GPSLatitudeRef=N -GPSLongitude=138.7274 \
    -GPSLongitudeRef=E -GPSAltitude=3776 -GPSAltitudeRef=2

# Ultra HDR: a base and a gain map drawn by the script, XMP by exiftool, MPF by the script.
/usr/bin/python3 -B "$here/ultrahdr.py"
# The ISO 21496-1 one with every XMP taken out: only ISO describes its gain map.
/usr/bin/python3 -B "$here/ultrahdr_iso_only.py"

# An iPhone JPEG whose gain map's XMP is at version 2, from ../phones' version 1.
/usr/bin/python3 -B "$here/apple_gainmap_v2.py"

# exiftool's own reading of every file here, beside them.
sh "$here/../exiftool-readings.sh" crafted
