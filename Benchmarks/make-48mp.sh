#!/usr/bin/env bash
# Builds the benchmark's 48 MP input from four real 12 MP photos without re-encoding a pixel.
#
#   Benchmarks/make-48mp.sh OUTDIR [PHOTOS_DIR]
#
# `jpegtran -crop 8000x6000+0+0` widens the first Canon SX260 photo's canvas (4000x3000) to
# 8000x6000, then `jpegtran -drop` copies the DCT blocks of the three others into the empty
# quadrants. -drop only copies blocks when both files have the same sampling and quantisation
# tables: the four SX260 photos are all 4:2:2 at the same ~Q96 tables (the iPhones are 4:2:0 and
# the IXUS has other tables, so the groups do not mix). Each tile is then cropped back out and
# decoded to prove that it is bit for bit the photo it came from.
#
# OUTDIR must be outside PHOTOS_DIR (default: ../shared/bench/photos next to the repository),
# which is read-only. Prints the path of the 48 MP JPEG.
set -euo pipefail

usage() { echo "Usage: $0 OUTDIR [PHOTOS_DIR]" >&2; exit 64; }
(($# >= 1 && $# <= 2)) || usage
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
outdir="$1"
photos="${2:-$here/../../shared/bench/photos}"
for exe in jpegtran djpeg cmp; do
  command -v "$exe" >/dev/null || { echo "make-48mp: $exe is missing (apt-get install libjpeg-turbo-progs)" >&2; exit 1; }
done
photos="$(cd "$photos" && pwd)"
mkdir -p "$outdir"
outdir="$(cd "$outdir" && pwd)"
case "$outdir/" in
  "$photos"/*) echo "make-48mp: OUTDIR '$outdir' is inside the read-only photos folder '$photos'" >&2; exit 64 ;;
esac

tiles=(sx260_IMG_9360.jpg sx260_IMG_9411.jpg sx260_IMG_9414.jpg sx260_IMG_9426.jpg)
offsets=(+0+0 +4000+0 +0+3000 +4000+3000)  # multiples of the 16x8 4:2:2 MCU
for tile in "${tiles[@]}"; do
  [[ -f "$photos/$tile" ]] || { echo "make-48mp: '$photos/$tile' is missing" >&2; exit 1; }
done

result="$outdir/sx260-2x2-8000x6000.jpg"
work="$(mktemp -d "$outdir/.make-48mp.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# -copy all keeps the first photo's EXIF (jpegtran rewrites its pixel dimensions to 8000x6000).
jpegtran -copy all -crop 8000x6000+0+0 "$photos/${tiles[0]}" >"$work/canvas0.jpg"
for i in 1 2 3; do
  jpegtran -copy all -drop "${offsets[$i]}" "$photos/${tiles[$i]}" "$work/canvas$((i - 1)).jpg" >"$work/canvas$i.jpg"
done

# Proof that no pixel was re-encoded: each quadrant cut back out decodes exactly like its source.
for i in 0 1 2 3; do
  jpegtran -crop "4000x3000${offsets[$i]}" "$work/canvas3.jpg" >"$work/tile.jpg"
  if ! cmp -s <(djpeg -ppm "$work/tile.jpg") <(djpeg -ppm "$photos/${tiles[$i]}"); then
    echo "make-48mp: the quadrant at ${offsets[$i]} does not decode like ${tiles[$i]}" >&2
    exit 1
  fi
done

mv "$work/canvas3.jpg" "$result"
echo "$result"
