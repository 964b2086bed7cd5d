#!/usr/bin/env bash
# Regenerates every HEIF fixture in this folder, heif-convert's decode of each one that prepares
# (references/), and exiftool.json beside them. See ../README.md, "heic/".
#
#   Tests/Fixtures/heic/make.sh
#
# Needs, from Debian 12: libheif-examples 1.15.1 (heif-enc with x265 and libaom, heif-convert
# with libde265 and dav1d), imagemagick 6.9.11 (to cut and scale the pictures), exiftool 12.57,
# x265 3.5 (the command, for 4:0:0 at 10 bits, which heif-enc cannot code) and a Python 3
# (standard library only, for heifcraft.py). Tests need none of them.
#
# Every picture and every EXIF block comes from a permissively licensed file of ../corpus (see
# its MANIFEST.tsv) or from ../decode; no GPL file is used.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
corpus="$here/../corpus"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$here"
craft() { python3 -B "$here/heifcraft.py" build "$@"; }
# heif-enc QUALITY IN OUT [OPTIONS]: x265 (or libaom for .avif) at a low quality keeps files small.
encode() {
    local quality=$1 input=$2 output=$3
    shift 3
    heif-enc -q "$quality" "$@" -o "$output" "$input" >/dev/null
}
rm -f ./*.heic ./*.avif references/*.jpg
mkdir -p references

# --- iphone-like-grid-p3-rotated.heic: what an iPhone writes, at a quarter of its size.
# An iPhone stores its 4032x3024 sensor picture as a grid of 512x512 HEVC tiles (8x6, the last
# row and column cut by the grid's size), turned by irot (a portrait photo: angle 3, 270 degrees
# anticlockwise) with the same turn in the Exif Orientation (6), a Display P3 ICC profile in
# colr 'prof', the Exif item behind a 4-byte offset of 6 and "Exif\0\0", a 320x240 thumbnail
# item, and Apple's brands. Here: 4x3 tiles of 256 for a 1000x750 picture from an iPhone 5 photo
# (drewnoakes/metadata-extractor-images), with the EXIF and ICC profile of an iPhone 14 Pro Max
# photo (Pillow's Tests/images/frame_size.mpo: OffsetTimeOriginal -04:00, SubSecTimeOriginal),
# its Orientation set to 6 and a GPS position added by exiftool.
convert -quiet "$corpus/gps-north-west-iphone5-orientation3.jpg" -resize '1000x750!' "$work/stored.png"
convert -quiet "$work/stored.png" -background black -extent 1024x768 \
    -define distort:viewport=1024x768 -virtual-pixel edge -distort SRT 0 "$work/padded.png"
convert -quiet "$work/padded.png" -crop 256x256 +repage "$work/tile-%02d.png"
tiles=()
for index in $(seq -w 0 11); do
    encode 50 "$work/tile-$index.png" "$work/tile-$index.heic"
    tiles+=(--tile "$work/tile-$index.heic")
done
convert -quiet "$work/stored.png" -resize 320x240 "$work/thumb.png"
encode 50 "$work/thumb.png" "$work/thumb.heic"
exiftool -q -q -n -o "$work/iphone-exif.jpg" -Orientation=6 -GPSLatitude=37.334606 -GPSLatitudeRef=N \
    -GPSLongitude=122.009102 -GPSLongitudeRef=W -GPSAltitude=32.5 -GPSAltitudeRef=0 \
    "$corpus/offset-minus0400-iphone14promax-p3-mpf.jpg"
craft iphone-like-grid-p3-rotated.heic --grid 4x3 "${tiles[@]}" --size 1000x750 --irot 3 \
    --icc-from "$corpus/offset-minus0400-iphone14promax-p3-mpf.jpg" --thumbnail "$work/thumb.heic" \
    --exif-from "$work/iphone-exif.jpg" --exif-offset apple

# --- heif-enc from corpus JPEGs: heif-enc copies the JPEG's EXIF (behind an offset of 0) and
# its ICC profile (colr 'prof'), and writes no irot.
# display-p3-gps.heic: kean/Nuke's image-p3.jpg (MIT): Display P3, GPS north-west, XMP.
encode 40 "$corpus/gps-north-west-display-p3-nikon.jpg" display-p3-gps.heic
# no-exif.heic: MikeKovarik/exifr's noexif.jpg (MIT): no Exif item, no profile.
encode 50 "$corpus/no-exif.jpg" no-exif.heic
# time-offset-gps-exiftool.heic: the same, then exiftool writes an Exif item (Apple's layout,
# offset 6): a quarter-hour offset with sub-seconds, and a south-east position below sea level.
encode 50 "$corpus/no-exif.jpg" time-offset-gps-exiftool.heic
exiftool -q -q -n -overwrite_original -Make=ExampleCam '-Model=HEIF 1' \
    '-DateTimeOriginal=2024:11:02 06:15:30' -SubSecTimeOriginal=25 -OffsetTimeOriginal=+05:45 \
    -GPSLatitude=33.856778 -GPSLatitudeRef=S -GPSLongitude=151.215361 -GPSLongitudeRef=E \
    -GPSAltitude=14.5 -GPSAltitudeRef=1 time-offset-gps-exiftool.heic

# --- orientation-N.heic, N = 1..8: recurser/exif-orientation-examples' Landscape_N.jpg (MIT),
# the stored pixels at an eighth of their size, with the irot and imir that show them upright
# (libheif 1.15: irot turns anticlockwise; imir axis 0 flips top to bottom, 1 left to right) and
# their own EXIF, whose Orientation N says the same turn. Shown upright, all eight are
# orientation-1's picture.
transforms=("" "--imir 1" "--irot 2" "--imir 0" "--irot 1 --imir 0" "--irot 3" "--irot 1 --imir 1" "--irot 1")
for n in 1 2 3 4 5 6 7 8; do
    size=224x150
    ((n >= 5)) && size=150x224
    convert -quiet "$corpus/orientation-landscape-$n.jpg" -resize "$size!" "$work/orientation-$n.png"
    encode 70 "$work/orientation-$n.png" "$work/orientation-$n.heic"
    # shellcheck disable=SC2086
    craft "orientation-$n.heic" --image "$work/orientation-$n.heic" ${transforms[n - 1]} \
        --exif-from "$corpus/orientation-landscape-$n.jpg"
done
# exif-orientation-6-without-irot.heic: heif-enc's own output for Landscape_6.jpg: EXIF
# Orientation 6 and no irot, which libheif shows as stored.
encode 70 "$work/orientation-6.png" "$work/plain-6.heic"
craft exif-orientation-6-without-irot.heic --image "$work/plain-6.heic" \
    --exif-from "$corpus/orientation-landscape-6.jpg" --exif-offset zero

# --- AVIF: AV1 in HEIF, decoded by dav1d.
# av1-orientation-6.avif: as orientation-6.heic, coded by libaom.
encode 70 "$work/orientation-6.png" "$work/av1-orientation-6.avif" -A
craft av1-orientation-6.avif --image "$work/av1-orientation-6.avif" --irot 3 \
    --exif-from "$corpus/orientation-landscape-6.jpg"
# av1-nclx-display-p3.avif: image-p3.jpg's pixels (Display P3 numbers) with the ICC profile left
# out, and an nclx colour box instead (primaries 12, Display P3; transfer 13, sRGB's; matrix 6,
# full range), as AVIF files say their colours. heif-enc 1.15 does not write the nclx it is given
# (--colour_primaries and the rest come out as 2, unspecified), so heifcraft.py writes the box.
convert -quiet "$corpus/gps-north-west-display-p3-nikon.jpg" +profile '*' "$work/p3-numbers.png"
encode 50 "$work/p3-numbers.png" "$work/p3-numbers.avif" -A
craft av1-nclx-display-p3.avif --image "$work/p3-numbers.avif" --nclx 12,13,6,1

# --- Samples that are not 8-bit JPEG YCbCr.
convert -quiet "$corpus/orientation-landscape-1.jpg" -resize '224x150!' "$work/landscape.png"
# bt709-limited-range.heic: the BT.709 matrix in limited (video) range, which ImagePrep has
# libheif convert to RGB. heif-enc 1.15 ignores its --matrix_coefficients and --full_range_flag,
# so the samples are computed by heifcraft.py, coded from a Y4M, and the colr nclx box (1, 1, 1,
# limited) written by heifcraft.py.
convert -quiet "$work/landscape.png" "$work/landscape.ppm"
python3 -B "$here/heifcraft.py" bt709-limited "$work/landscape.ppm" "$work/landscape-709.y4m"
encode 60 "$work/landscape-709.y4m" "$work/landscape-709.heic"
craft bt709-limited-range.heic --image "$work/landscape-709.heic" --nclx 1,1,1,0
# ten-bit.heic: 10-bit samples (HEVC Main 10), from a 16-bit PNG.
convert -quiet "$work/landscape.png" -depth 16 "$work/landscape16.png"
encode 60 "$work/landscape16.png" ten-bit.heic -b 10
# gray.heic: ../decode/gray-224x150.jpg, a one-component picture: monochrome HEVC.
encode 60 "$here/../decode/gray-224x150.jpg" gray.heic

# --- Metadata that cannot be carried as it is.
# exif-larger-than-app1.heic: no-exif.heic with the iPhone EXIF block followed by 70000 bytes
# that no offset reaches: 70 KB is more than a JPEG APP1 segment holds.
craft exif-larger-than-app1.heic --image no-exif.heic --exif-from "$work/iphone-exif.jpg" \
    --exif-padding 70000
# exif-185k-with-thumbnail.heic: no-exif.heic with the iPhone EXIF (Apple maker note, GPS, offset
# -04:00, Orientation 6) and a 640x480 thumbnail of a real photo in IFD1, as exiftool writes it
# into an EXIF file: a 185 KB block, like a Xiaomi HEIC's 192 KB, carried without its thumbnail.
convert -quiet "$corpus/gps-north-west-iphone5-orientation3.jpg" -resize 640x480 -quality 97 "$work/thumb.jpg"
exiftool -q -q -tagsfromfile "$work/iphone-exif.jpg" -exif:all -gps:all -o "$work/large.exif"
exiftool -q -q -overwrite_original "-ThumbnailImage<=$work/thumb.jpg" "$work/large.exif"
craft exif-185k-with-thumbnail.heic --image no-exif.heic --exif-from "$work/large.exif"
# exif-offset-past-end.heic: an Exif item whose offset points past its own end.
craft exif-offset-past-end.heic --image no-exif.heic --exif-from "$work/iphone-exif.jpg" \
    --exif-offset 4000000000

# --- What must be refused, each with its own error.
encode 50 "$work/tile-00.png" "$work/small.heic"
craft bad-no-primary-item.heic --image "$work/small.heic" --no-primary
# A grid over the pixel limit, as its ispe and its grid data both say.
craft bad-grid-40000x40000.heic --grid 1x1 --tile "$work/small.heic" --size 40000x40000
# A grid whose data declares 30000x30000 behind an ispe of 256x256: libheif allocates the former.
craft bad-grid-30000x30000-behind-small-ispe.heic --grid 1x1 --tile "$work/small.heic" \
    --size 256x256 --grid-size 30000x30000
# A grid whose data declares 512x512 behind an ispe of 256x256, within the limit: libheif decodes
# 512x512, which is not the size the file says.
craft bad-grid-512x512-behind-256-ispe.heic --grid 1x1 --tile "$work/small.heic" --size 256x256 \
    --grid-size 512x512
# An HEVC image whose SPS declares 30000x30000 behind an ispe of 256x256: libde265 allocates the
# former (heif-convert took 4.7 GB and crashed on it).
craft bad-sps-30000x30000-behind-small-ispe.heic --image "$work/small.heic" --sps-size 30000x30000
# An identity-derived primary image that names itself as its source (heif-info 1.15 crashes).
craft bad-identity-loop.heic --image "$work/small.heic" --identity-loop
# An image coded as VVC, which libheif 1.15 does not decode.
craft bad-vvc-codec.heic --image "$work/small.heic" --item-type vvc1

# heif-convert's own decode of every file that prepares, at its default JPEG quality (90): what
# the copies are held to (Tests/ImagePrepTests/HEIF/HEIFOrientationTests.swift). The three exif-*
# files' pixels are no-exif.heic's, and heif-convert 1.15 mishandles their Exif items: it
# crashes (SIGSEGV) on the offset past the end, and writes the 70 KB block into an APP1 segment,
# whose length field cannot hold it.
for file in ./*.heic ./*.avif; do
    name=$(basename "$file")
    case $name in bad-* | exif-offset-past-end.heic | exif-larger-than-app1.heic | exif-185k-with-thumbnail.heic) continue ;; esac
    heif-convert -q 90 "$file" "references/${name%.*}.jpg" >/dev/null
done

# exif/NAME.tiff: the TIFF block of each file's Exif item, taken out by heifcraft.py rather than
# by ImagePrep, which the upload's APP1 is held to byte for byte.
mkdir -p exif
rm -f exif/*.tiff
for file in ./*.heic ./*.avif; do
    name=$(basename "$file")
    case $name in bad-* | exif-offset-past-end.heic | exif-larger-than-app1.heic | exif-185k-with-thumbnail.heic) continue ;; esac
    python3 -B "$here/heifcraft.py" exif "$file" "exif/${name%.*}.tiff"
done

# exiftool's reading of each file, as ../exiftool-readings.sh makes it for the JPEGs.
sh "$here/../exiftool-readings.sh" heic

# --- hostile/: files an attacker makes, each refused (or prepared without what is damaged) on
# its own terms and never crashing, looping or taking the machine. Not in references/ nor in
# exiftool.json: none is a photo anyone took. Each is one of issue 28's findings.
# Sizes of 0xFFFFFFFF, in the ispe and in a grid description's 32-bit form.
craft hostile/ispe-4294967295x4294967295.heic --image no-exif.heic --size 4294967295x4294967295
craft hostile/grid-4294967295x4294967295.heic --grid 1x1 --tile no-exif.heic --size 250x188 \
    --grid-size 4294967295x4294967295
# An identity image that is the primary's alpha (auxC, auxl) and derives from the primary (dimg):
# libheif 1.15 recurses until it crashes (a coded primary) or grows past 20 GB (a grid).
craft hostile/alpha-identity-loop.heic --image no-exif.heic --size 250x188 --alpha-identity-loop
craft hostile/grid-alpha-identity-loop.heic --grid 1x1 --tile no-exif.heic --size 250x188 \
    --alpha-identity-loop
# An overlay of 50 layers that are all one 250x188 image: 50 decodes for one small canvas.
craft hostile/overlay-50-layers.heic --overlay-layers 50 --tile no-exif.heic --size 250x188
# An Exif item whose iloc length is 0xFFFFFFF0, which libheif refuses the whole file for.
craft hostile/exif-length-fffffff0.heic --image no-exif.heic --exif-from "$work/iphone-exif.jpg" \
    --exif-length 0xFFFFFFF0
# An XMP item whose infe says content_encoding deflate, 16 KB that inflate to 16 MB, which
# libheif 1.15 inflates as it opens the file, with no limit (1.15.1-1+deb12u1) or up to 512 MB
# (deb12u2); and the same item listed twice, the first infe with the encoding, the second without.
craft hostile/xmp-deflated-to-16mb.heic --image no-exif.heic --xmp-deflate 16777216
craft hostile/xmp-deflated-listed-twice.heic --image no-exif.heic --xmp-deflate 16777216 --listed-twice
# A coded picture of 40000x100 behind a 250x188 ispe: within --max-pixels, beyond the 32768 a side
# that libheif 1.15.1-1+deb12u2 allows a coded size (its "Coded image size ... exceeds").
craft hostile/sps-40000x100.heic --image no-exif.heic --sps-size 40000x100
# no-exif.heic whose hvcC says 10 bits where its stream codes 8: libheif 1.15.1-1+deb12u2 refuses
# a decoded bit depth that is not the declared one, deb12u1 decodes it.
python3 - no-exif.heic hostile/hvcc-says-10-bits.heic <<'PYTHON'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
hvcc = data.find(b"hvcC") + 4
data[hvcc + 17] = data[hvcc + 18] = 0xFA  # bitDepthLumaMinus8 and bitDepthChromaMinus8: 2
open(sys.argv[2], "wb").write(data)
PYTHON
# Issue 42's direct HEVC decode, which libheif's checks do not watch, holds to them before it
# decodes (each is also what libheif 1.15.1-1+deb12u2 refuses):
# no-exif.jpg coded at 10 bits, its hvcC and pixi saying 8 (the reverse of hvcc-says-10-bits).
convert -quiet "$corpus/no-exif.jpg" -resize '250x188!' -depth 16 -define png:bit-depth=16 "$work/no-exif16.png"
encode 50 "$work/no-exif16.png" "$work/ten-bits.heic" -b 10
python3 - "$work/ten-bits.heic" hostile/stream-10-bits-hvcc-says-8.heic <<'PYTHON'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
hvcc = data.find(b"hvcC") + 4
data[hvcc + 17] = data[hvcc + 18] = 0xF8  # bitDepthLumaMinus8 and bitDepthChromaMinus8: 0
pixi = data.find(b"pixi") + 4  # version and flags, the channel count, a depth per channel
for channel in range(data[pixi + 4]):
    data[pixi + 5 + channel] = 8
open(sys.argv[2], "wb").write(data)
PYTHON
# One 64x64 tile named by a grid 2000 times (40x50), the fewest deb12u2 refuses ("Too many
# derived-image decode operations"), and 1998 times (54x37), which it decodes (1999 tiles make no
# grid: a grid has at most 256 columns).
convert -quiet "$corpus/no-exif.jpg" -resize '64x64!' "$work/tile64.png"
encode 20 "$work/tile64.png" "$work/tile64.heic"
python3 -B "$here/heifcraft.py" mosaic "$work/tile64.heic" hostile/grid-2000-tiles.heic 40x50 2560x3200
python3 -B "$here/heifcraft.py" mosaic "$work/tile64.heic" hostile/grid-1998-tiles.heic 54x37 3456x2368
# A grid of two tiles whose dimg references are split over two iref boxes: libheif 1.15 reads the
# first box only and refuses the grid ("Missing grid images"), so the direct decode must too.
craft hostile/grid-references-in-two-iref.heic --grid 2x1 --tile no-exif.heic --tile no-exif.heic \
    --size 500x188 --split-references
# no-exif.heic turned twice (two irot boxes): libheif 1.15.1-1+deb12u3 refuses an item with two
# rotations, mirrors or crops of one kind (the earlier build composed them), so ImagePrep does too.
craft hostile/two-rotations.heic --image no-exif.heic --irot 1 --second-irot 1
# An image of 40000x100, ispe and SPS alike: beyond the 32768 a side libheif reads.
craft hostile/ispe-40000x100.heic --image no-exif.heic --size 40000x100 --sps-size 40000x100
# av1-orientation-6.avif with three bytes of its AV1 data changed, which dav1d decodes past with
# two warnings (libheif 1.15 writes every warning whatever room it is given).
python3 - av1-orientation-6.avif hostile/av1-two-decoding-warnings.avif <<'PYTHON'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
for offset, value in ((328, 0x0D), (590, 0xCA), (619, 0xDD)):
    data[offset] = value
open(sys.argv[2], "wb").write(data)
PYTHON
# no-exif.heic with three bytes of its hvcC changed: libde265 prints "SPS error: CB alignment" on
# stderr as it refuses the stream, which prep-photo must not let through.
python3 - no-exif.heic hostile/hevc-sps-error.heic <<'PYTHON'
import sys
data = bytearray(open(sys.argv[1], "rb").read())
for offset, value in ((210, 0xD3), (257, 0xC0), (271, 0xE4)):
    data[offset] = value
open(sys.argv[2], "wb").write(data)
PYTHON

# --- large/: what tests put together into full-size pictures at run time (CancellationTests).
# tile-512x512.heic: a 512x512 crop of ../corpus/gps-north-east-pixel-4048x3036-gps-offset-only.jpg,
# heif-enc, its coded image alone; a test makes an iPhone's 12 MP grid of 8x6 of it with
# heifcraft.py (860 KB, so it is not kept here).
mkdir -p large
rm -f large/*.heic
convert -quiet "$corpus/gps-north-east-pixel-4048x3036-gps-offset-only.jpg" -gravity center \
    -crop 512x512+0+0 +repage "$work/large-tile.png"
encode 50 "$work/large-tile.png" "$work/large-tile.heic"
craft large/tile-512x512.heic --image "$work/large-tile.heic"
sh "$here/../exiftool-readings.sh" heic/large

# --- monochrome/: gray HEVC that is not 8-bit full range, each prepared as gray (one component).
# gray-10-bit.heic: ../decode/gray-224x150.jpg at 10 bits, 4:0:0, coded by the x265 command
# (Debian 12's x265 3.5; heif-enc cannot code 4:0:0) and wrapped by heifcraft.py.
# gray-video-range.heic: gray.heic with colr nclx 1/1/1/limited: its samples read as 16-235.
mkdir -p monochrome
convert -quiet "$here/../decode/gray-224x150.jpg" -depth 16 "$work/gray16.pgm"
python3 - "$work/gray16.pgm" "$work/gray10.y4m" <<'PYTHON'
import sys
data = open(sys.argv[1], "rb").read()
magic, width, height, maximum, pixels = data.split(maxsplit=4)
assert magic == b"P5" and maximum == b"65535"
width, height = int(width), int(height)
samples = bytearray()
for index in range(width * height):
    value = (pixels[2 * index] << 8 | pixels[2 * index + 1]) >> 6
    samples += bytes([value & 0xFF, value >> 8])
header = b"YUV4MPEG2 W%d H%d F25:1 Ip A1:1 Cmono10\nFRAME\n" % (width, height)
open(sys.argv[2], "wb").write(header + samples)
PYTHON
x265 --input "$work/gray10.y4m" --output-depth 10 --crf 20 --log-level error -o "$work/gray10.hevc"
python3 -B "$here/heifcraft.py" wrap-hevc "$work/gray10.hevc" monochrome/gray-10-bit.heic 224x150
craft monochrome/gray-video-range.heic --image gray.heic --nclx 1,1,1,0
# gray-grid.heic: ../decode/gray-224x150.jpg as a 2x2 grid of 112x80 monochrome tiles cut to
# 224x150 by the grid, which libheif 1.15 gives as YCbCr 4:2:0 but not as monochrome.
convert -quiet "$here/../decode/gray-224x150.jpg" -background black -extent 224x160 -crop 112x80 +repage \
    -type Grayscale "$work/gray-tile-%d.png"
gray_tiles=()
for index in 0 1 2 3; do
    encode 60 "$work/gray-tile-$index.png" "$work/gray-tile-$index.heic"
    gray_tiles+=(--tile "$work/gray-tile-$index.heic")
done
craft monochrome/gray-grid.heic --grid 2x2 "${gray_tiles[@]}" --size 224x150
sh "$here/../exiftool-readings.sh" heic/monochrome

# --- large/mosaic-16320x12240.heic: a 200 MP photo (a 200 MP phone sensor's size) in a 10 KB
# file, for the memory tests: a 32x24 grid of 512x512 tiles that names one coded tile, the iPhone
# 5 photo scaled to 512x512 without its metadata, 768 times (heifcraft.py mosaic). Its decode is
# a real one, tile after tile; its canvas alone would be 300 MB as YCbCr 4:2:0.
mkdir -p large
convert -quiet "$corpus/gps-north-west-iphone5-orientation3.jpg" -strip -resize '512x512!' "$work/mosaic-tile.png"
encode 20 "$work/mosaic-tile.png" "$work/mosaic-tile.heic"
python3 -B "$here/heifcraft.py" mosaic "$work/mosaic-tile.heic" large/mosaic-16320x12240.heic 32x24 16320x12240
sh "$here/../exiftool-readings.sh" heic/large

# --- alpha/: a picture with transparency as HEIC (x265) and AVIF (libaom), each with its alpha
# image: ../formats/png/png-interlaced-adam7-rgba-pillow.png (Pillow's pil123rgba.png, HPND), its
# transparent part composited over the configured background as the PNG's is (HEIFAlphaTests).
mkdir -p alpha
rm -f alpha/*.heic alpha/*.avif
convert -quiet "$here/../formats/png/png-interlaced-adam7-rgba-pillow.png" PNG32:"$work/toucan.png"
encode 60 "$work/toucan.png" alpha/rgba-toucan.heic
encode 60 "$work/toucan.png" alpha/rgba-toucan.avif -A
# references/rgba-toucan-*-on-white.jpg: heif-convert's decode of each, RGBA, flattened over white.
for kind in heic avif; do
    heif-convert "alpha/rgba-toucan.$kind" "$work/toucan-decoded.png" >/dev/null
    convert -quiet "$work/toucan-decoded.png" -background white -flatten -quality 90 \
        "references/rgba-toucan-$kind-on-white.jpg"
done
sh "$here/../exiftool-readings.sh" heic/alpha

# --- ten-bit/: single coded images that libheif decodes whole at 10 bits (issue 55), converted a
# row at a time from libheif's own planes; heif-convert's decode of each goes into references/.
# heic-10-bit.heic and avif-10-bit.avif: the 16-bit landscape PNG above, at 448x300, by x265 (Main 10)
# and libaom (4:2:2), with heif-enc's nclx (BT.601, full range); the -bt709-limited ones the same samples
# described as BT.709 in video range (heifcraft.py --nclx 1,1,1,0), which libheif converts by.
mkdir -p ten-bit
rm -f ten-bit/*.heic ten-bit/*.avif
convert -quiet "$corpus/orientation-landscape-1.jpg" -resize '448x300!' PNG48:"$work/landscape448-16.png"
encode 60 "$work/landscape448-16.png" ten-bit/heic-10-bit.heic -b 10
# libaom 3.6 through heif-enc 1.15 codes 10 bits only in 4:2:2 (4:2:0 and 4:4:4 fail an assertion).
encode 50 "$work/landscape448-16.png" ten-bit/avif-10-bit.avif -b 10 -A -p chroma=422
craft ten-bit/heic-10-bit-bt709-limited.heic --image ten-bit/heic-10-bit.heic --nclx 1,1,1,0
craft ten-bit/avif-10-bit-bt709-limited.avif --image ten-bit/avif-10-bit.avif --nclx 1,1,1,0
# heic-10-bit-4000x3000.heic: the same picture scaled to 12 MP (ImageMagick's -sample, so that x265
# codes it in few bytes), for the memory test (SingleImageMemoryTests): one 10-bit coded picture,
# with SAO on as cameras code it (x265's ultrafast preset turns it off), for libde265's SAO copy.
convert -quiet "$corpus/orientation-landscape-1.jpg" -sample '4000x3000!' -define png:compression-level=1 \
    PNG48:"$work/landscape12mp-16.png"
encode 30 "$work/landscape12mp-16.png" ten-bit/heic-10-bit-4000x3000.heic -b 10 -p preset=ultrafast -p x265:sao=1
# large/heic-10-bit-8640x5760.heic: the same at 50 MP, the size of a Sony camera's 10-bit HEIF, at
# the lowest quality (197 KB): prepared within 400 MB where libheif's copies would need 427 MB.
convert -quiet "$corpus/orientation-landscape-1.jpg" -sample '8640x5760!' -define png:compression-level=1 \
    PNG48:"$work/landscape50mp-16.png"
encode 5 "$work/landscape50mp-16.png" large/heic-10-bit-8640x5760.heic -b 10 -p preset=ultrafast -p x265:sao=1
# avif-10-bit-4000x3000.avif: the same 12 MP picture by libaom (4:2:2, its fastest speed), for the
# memory test of the direct AV1 decode (SingleImageMemoryTests): one 10-bit coded AV1 picture.
encode 30 "$work/landscape12mp-16.png" ten-bit/avif-10-bit-4000x3000.avif -b 10 -A -p chroma=422 -p speed=9
for file in ten-bit/*.heic ten-bit/*.avif; do
    name=$(basename "$file")
    [ "${name%.*}" = heic-10-bit-4000x3000 ] || [ "${name%.*}" = avif-10-bit-4000x3000 ] && continue
    heif-convert -q 90 "$file" "references/${name%.*}.jpg" >/dev/null
done
sh "$here/../exiftool-readings.sh" heic/ten-bit
sh "$here/../exiftool-readings.sh" heic/large
# hostile/single-16320x12240-declared.heic: no-exif.heic whose ispe and SPS declare a 200 MP
# single coded image (a 200 MP sensor's size, one coded picture rather than a grid), which
# libde265 would hold whole: refused from its header, before a byte is decoded.
craft hostile/single-16320x12240-declared.heic --image no-exif.heic --size 16320x12240 --sps-size 16320x12240

# --- gainmap/: iPhone-like HDR HEICs, their gain map an auxiliary image (issue 34).
bash "$here/gainmap/make.sh"
