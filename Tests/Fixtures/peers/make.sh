#!/bin/sh
# Makes the JPEGs of this folder from the real photos of ../corpus: files that vips, ImageMagick
# and Pillow prepare and that ImagePrep refused (issue 53, item 4). Needs ImageMagick 6.9
# (Debian 12's `convert`) and Python 3; tests need neither. Then run
# `sh ../exiftool-readings.sh peers peers/references` for exiftool.json.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
corpus="$here/../corpus"
cd "$here"
mkdir -p references

# A CMYK JPEG sampled 2x1, 1x2, 1x1, 1x1 (written as YCCK, Adobe transform 2): TurboJPEG 2.1's
# header call has no TJSAMP_ value for it ("Could not determine subsampling type").
convert "$corpus/gps-south-east-australia.jpg" -colorspace CMYK -sampling-factor 2x1,1x2,1x1,1x1 -strip \
    cmyk-sampling-2x1-1x2-1x1-1x1.jpg

# A four-channel JPEG without an Adobe APP14 segment: TwelveMonkeys' Adobe CMYK sample with its
# APP14 taken out (its samples stay Adobe-inverted, as every such file's are).
python3 - "$corpus/cmyk-adobe-no-icc.jpg" cmyk-without-adobe-segment.jpg <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
out, at = bytearray(data[:2]), 2
while True:
    marker, length = data[at + 1], data[at + 2] << 8 | data[at + 3]
    if marker == 0xDA:
        out += data[at:]
        break
    if marker != 0xEE:
        out += data[at:at + 2 + length]
    at += 2 + length
open(sys.argv[2], "wb").write(out)
PY

# An iPhone 8's HEIC whose ispe says 100x74 while its coded picture is 100x76: a picture of a
# real photo coded at 100x76 by heif-enc (libheif 1.15 with x265), its ispe set to 100x74 by
# heifcraft.py, with the photo's own EXIF behind Apple's offset. The picture is the declared
# 100x74 at the top left, as heif-convert's decode cut to it (heif-convert 1.15 and ImageMagick
# write all 100x76; vips refuses it).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
convert -quiet "$corpus/gps-north-west-iphone5-orientation3.jpg" -resize '100x76!' "$work/picture.png"
heif-enc -q 50 -o "$work/picture.heic" "$work/picture.png" >/dev/null
python3 -B ../heic/heifcraft.py build iphone8-like-ispe-100x74-coded-100x76.heic --image "$work/picture.heic" \
    --size 100x74 --exif-from "$corpus/gps-north-west-iphone5-orientation3.jpg" --exif-offset apple
heif-convert -q 90 iphone8-like-ispe-100x74-coded-100x76.heic "$work/decoded.jpg" >/dev/null
convert "$work/decoded.jpg" -crop 100x74+0+0 +repage -quality 90 references/iphone8-like-ispe-100x74-coded-100x76.jpg

# An AVIF whose colour grid names four tiles with one and the same data, as libavif's writer
# dedups identical tiles (its test vector color_grid_alpha_grid_gainmap_nogrid.avif: colour and
# alpha as grids beside a gain map that is not one), beside a gain map that is not a grid: a
# 64x48 cut of a real photo coded by heif-enc (libaom), a quarter-size gray gain map.
convert -quiet "$corpus/gps-north-west-iphone5-orientation3.jpg" -resize '128x96!' -crop 64x48+32+24 +repage \
    "$work/tile.png"
heif-enc -A -q 60 -o "$work/tile.avif" "$work/tile.png" >/dev/null
convert "$work/tile.png" -colorspace Gray -resize 50% "$work/gain.png"
heif-enc -A -q 60 -o "$work/gain.avif" "$work/gain.png" >/dev/null
python3 -B ../heic/heifcraft.py build av1-grid-shared-tile-data-gainmap-nongrid.avif --grid 2x2 \
    --tile "$work/tile.avif" --tile "$work/tile.avif" --tile "$work/tile.avif" --tile "$work/tile.avif" \
    --size 128x96 --share-data --gain-map "$work/gain.avif"
heif-convert -q 90 av1-grid-shared-tile-data-gainmap-nongrid.avif references/av1-grid-shared-tile-data-gainmap-nongrid.jpg \
    >/dev/null
