#!/bin/sh
# Writes exiftool.json beside the photos (JPEG, HEIC, AVIF; PNG in formats/png) of each folder of Tests/Fixtures: exiftool's own reading
# of the tags that PhotoMetadata holds, as exiftool prints it, for the field-by-field test in
# Tests/ImagePrepTests/Metadata/ExiftoolAgreementTests.swift. Needs exiftool 12.57 (Debian 12:
# libimage-exiftool-perl); tests need neither it nor this script.
#
#   sh Tests/Fixtures/exiftool-readings.sh              # every folder that holds photos
#   sh Tests/Fixtures/exiftool-readings.sh crafted      # one folder (crafted/make.sh does this)
#
# The command is the same for every folder, and the same options as corpus/expected.json
# (-n: numbers, not exiftool's printed forms; -G1:4: each tag's IFD or group, and a copy number
# for a tag found twice; -a: every copy, so that IFD0's DateTimeOriginal and the Exif IFD's are
# told apart). The tags are the ones whose values make PhotoMetadata, the Composite tags in which
# exiftool itself combines them (signed GPS, dates with their sub-seconds and offsets), and the
# raw parts those are made from, so that a difference can be explained from the JSON alone.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tags="-Make -Model -Orientation -ImageWidth -ImageHeight -Comment
  -DateTimeOriginal -CreateDate -ModifyDate -SubSecTimeOriginal -SubSecTimeDigitized -SubSecTime
  -OffsetTimeOriginal -OffsetTimeDigitized -OffsetTime
  -SubSecDateTimeOriginal -SubSecCreateDate -SubSecModifyDate
  -GPSLatitude -GPSLatitudeRef -GPSLongitude -GPSLongitudeRef -GPSAltitude -GPSAltitudeRef
  -GPSDateStamp -GPSTimeStamp -Warning -Error"
[ $# -gt 0 ] || set -- corpus crafted decode decode/references heic phones formats/png
for folder in "$@"; do
    cd "$here/$folder"
    # exiftool exits 1 when a file could not be read at all (decode/empty.jpg): its reading is
    # still in the JSON, with an Error.
    # shellcheck disable=SC2086
    photos=$(ls ./*.jpg ./*.heic ./*.avif 2>/dev/null | sed 's|^\./||')
    # PNGs only where they are the photos read (PNGExiftoolAgreementTests), not corpus/not-a-jpeg.png.
    [ "$folder" != formats/png ] || photos=$(ls ./*.png ./*.apng | sed 's|^\./||')
    exiftool -j -n -G1:4 -a $tags $photos >exiftool.json || [ $? -eq 1 ]
    python3 -c 'import json, sys; json.load(open(sys.argv[1]))' exiftool.json
done
