#!/usr/bin/env bash
# Regenerates the crafted decode fixtures in this folder.
#
#   Tests/Fixtures/decode/make.sh
#
# Needs libjpeg-turbo's cjpeg and djpeg (Debian 12: libjpeg-turbo-progs, 2.1.5) and a Python 3
# (standard library only, for jpegcraft.py). Idempotent: every step is deterministic, so a run
# on an unchanged tree rewrites the same bytes (check with `git status`). The reference-resize
# goldens are made by make-references.py, not here.
#
# Every picture comes from one permissively licensed corpus file, orientation-landscape-1.jpg
# (recurser/exif-orientation-examples, MIT), read from ../corpus. No GPL file is used.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
source_jpeg="$here/../corpus/orientation-landscape-1.jpg"
craft() { python3 -B "$here/jpegcraft.py" "$@"; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$here"

# The small photo every fixture starts from: the 1800x1200 corpus photo decoded at 1/8 scale
# (225x150), then cut to an even 224x150 and an odd 223x149 (top-left corner).
djpeg -scale 1/8 -ppm "$source_jpeg" >"$work/eighth.ppm"
craft crop "$work/eighth.ppm" 0 0 224 150 "$work/even.ppm"
craft crop "$work/eighth.ppm" 0 0 223 149 "$work/odd.ppm"

# ycc{444,422,420,440}-224x150.jpg and ycc{...}-odd-223x149.jpg: the same photo, baseline,
# quality 90, in each chroma subsampling (cjpeg -sample 1x1, 2x1, 2x2, 1x2). The odd ones make
# TurboJPEG pad the chroma planes.
for pair in 444:1x1 422:2x1 420:2x2 440:1x2; do
    name=${pair%%:*}
    sample=${pair#*:}
    cjpeg -quality 90 -sample "$sample" "$work/even.ppm" >"ycc$name-224x150.jpg"
    cjpeg -quality 90 -sample "$sample" "$work/odd.ppm" >"ycc$name-odd-223x149.jpg"
done

# gray-224x150.jpg: one-component baseline JPEG (cjpeg -grayscale), no ICC profile.
cjpeg -quality 90 -grayscale "$work/even.ppm" >gray-224x150.jpg

# progressive-444-224x150.jpg: progressive (SOF2) with cjpeg's default scan script, 4:4:4.
cjpeg -quality 90 -progressive -sample 1x1 "$work/even.ppm" >progressive-444-224x150.jpg

# restart-every-row-224x150.jpg: 4:2:0 baseline with a restart marker after every MCU row
# (cjpeg -restart 1: DRI plus RST0..RST7 in the scan).
cjpeg -quality 90 -restart 1 "$work/even.ppm" >restart-every-row-224x150.jpg

# The photos that one photo's decode cuts in two at a restart marker (RestartSplit), and those
# it must not cut. restart-every-row-224x300.jpg: 4:2:0 with a marker after each of its 19 MCU
# rows, from the corpus photo at 1/4 scale (450x300) cut to 224x300; its -corrupt-bottom twin
# has 64 bytes XOR FF at the middle of the scan, below the cut at MCU row 8.
# restart-every-row-422-odd-223x149.jpg: 4:2:2 at an odd size. restart-every-2-rows-gray-224x150.jpg:
# one component, a marker every second MCU row. restart-7-mcus-224x150.jpg: intervals of 7 MCUs,
# half a row, where no cut can be made.
djpeg -scale 1/4 -ppm "$source_jpeg" >"$work/quarter.ppm"
craft crop "$work/quarter.ppm" 0 0 224 300 "$work/tall.ppm"
cjpeg -quality 90 -restart 1 "$work/tall.ppm" >restart-every-row-224x300.jpg
craft xor-mid-scan restart-every-row-224x300.jpg 64 0xFF restart-every-row-corrupt-bottom-224x300.jpg
cjpeg -quality 90 -restart 1 -sample 2x1 "$work/odd.ppm" >restart-every-row-422-odd-223x149.jpg
cjpeg -quality 90 -restart 2 -grayscale "$work/even.ppm" >restart-every-2-rows-gray-224x150.jpg
cjpeg -quality 90 -restart 7B "$work/even.ppm" >restart-7-mcus-224x150.jpg
# restart-every-row-flat-top-224x300.jpg: the tall picture with its top 200 rows flat grey, so
# that most of its entropy-coded bytes lie in the bottom third: the cut that halves the bytes
# (MCU row 16) is not the one that halves the rows (MCU row 8).
craft flatten-top "$work/tall.ppm" 200 "$work/flat-top.ppm"
cjpeg -quality 90 -restart 1 "$work/flat-top.ppm" >restart-every-row-flat-top-224x300.jpg

# extraneous-bytes-before-dqt.jpg: ycc420-224x150.jpg with the bytes 00 11 22 put between APP0
# and the first DQT. libjpeg warns "Corrupt JPEG data: 3 extraneous bytes before marker 0xdb"
# and decodes every pixel.
craft insert-after-app0 ycc420-224x150.jpg 001122 extraneous-bytes-before-dqt.jpg

# corrupt-data-segment.jpg: ycc420-224x150.jpg with FF D3 (an RST3 marker where none belongs)
# written over two bytes at the middle of the scan. libjpeg warns "Corrupt JPEG data: premature
# end of data segment" and fills the rest of the image in.
craft overwrite-mid-scan ycc420-224x150.jpg ffd3 corrupt-data-segment.jpg

# corrupt-data-extraneous-before-eoi.jpg: ycc420-224x150.jpg with 64 bytes at the middle of the
# scan inverted (XOR FF). The bottom 60% decodes as garbage, yet libjpeg's only warning is
# "Corrupt JPEG data: 47 extraneous bytes before marker 0xd9": the entropy decoder lost step and
# stopped short of the end of the scan.
craft xor-mid-scan ycc420-224x150.jpg 64 0xFF corrupt-data-extraneous-before-eoi.jpg

# bomb-60000x60000.jpg: an 8x8 gray baseline JPEG whose SOF is rewritten to claim 60000x60000
# (3.6 billion pixels) while the file stays a few hundred bytes: a decompression bomb.
craft crop "$work/even.ppm" 0 0 8 8 "$work/eight.ppm"
cjpeg -quality 90 -grayscale "$work/eight.ppm" >"$work/eight.jpg"
craft set-frame-size "$work/eight.jpg" 60000 60000 bomb-60000x60000.jpg

# progressive-568-scans.jpg: a valid progressive gray 16x16 JPEG with 568 scans, more than the
# 500 that TJFLAG_LIMITSCANS (and djpeg -maxscans 500) allow. Every AC coefficient k = 1..63 gets
# its own spectral-selection scan at Al=8 and then eight refinement scans down to Al=0, after one
# DC scan: 1 + 63 * 9 = 568 scans, a progression without a single libjpeg warning that decodes to
# the same pixels as a baseline encode. cjpeg reads at most 100 scans from a script, so six
# encodes cover 11 coefficients each (with the same DC scan) and their AC scans are spliced.
craft crop "$work/even.ppm" 100 60 16 16 "$work/sixteen.ppm"
craft gray "$work/sixteen.ppm" "$work/sixteen.pgm"
parts=()
for first in 1 12 23 34 45 56; do
    script="$work/scans-$first.txt"
    echo "0: 0 0 0 0;" >"$script"
    for ((k = first; k < first + 11 && k <= 63; k++)); do
        echo "0: $k $k 0 8;" >>"$script"
        for ((al = 7; al >= 0; al--)); do echo "0: $k $k $((al + 1)) $al;" >>"$script"; done
    done
    cjpeg -quality 90 -grayscale -scans "$script" "$work/sixteen.pgm" >"$work/part-$first.jpg"
    parts+=("$work/part-$first.jpg")
done
craft splice-scans progressive-568-scans.jpg "${parts[@]}"

# progressive-500-scans.jpg: the first 500 scans of the above (coefficients 57..63 and the last
# refinements of 56 left out, still a valid progression): exactly at the limit, so it decodes.
craft keep-scans progressive-568-scans.jpg 500 progressive-500-scans.jpg

# progressive-repeated-refinement.jpg: cjpeg's default progressive gray 8x8 with its last scan
# (an AC refinement) repeated until there are 600 scans. Each repeat makes libjpeg warn
# "Inconsistent progression sequence", and scan 501 hits the scan limit.
cjpeg -quality 90 -grayscale -progressive "$work/eight.ppm" >"$work/eight-progressive.jpg"
craft repeat-last-scan "$work/eight-progressive.jpg" 600 progressive-repeated-refinement.jpg

# lossless-sof3-header-only.jpg: hand-made SOI, SOF3 (lossless, 8-bit, 16x16, one component),
# DHT, SOS and EOI; libjpeg-turbo 2.x cannot decode lossless JPEG.
craft lossless-header lossless-sof3-header-only.jpg

# not-a-jpeg-heic.heic: the first 36 bytes of a HEIC file (ftyp box, brand heic).
craft heic not-a-jpeg-heic.heic

# not-a-jpeg.txt: plain text.
printf 'This is a plain text file, not a photo.\n' >not-a-jpeg.txt

# empty.jpg: zero bytes.
: >empty.jpg
