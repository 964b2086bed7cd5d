#!/usr/bin/env bash
# Builds the benchmark's 200 MP inputs, at the size a 200 MP phone sensor's photo has
# (16320x12240), for prep-bench --huge:
#
#   Benchmarks/make-200mp.sh OUTDIR HEIC_DIR [PHOTOS_DIR]
#
# - sx260-4x4-16320x12240.jpg: the four Canon SX260 photos of PHOTOS_DIR (4000x3000, 4:2:2),
#   each four times, in a 4x4 mosaic of their DCT blocks on a 16320x12240 canvas, as
#   make-48mp.sh makes its 8000x6000 one (`jpegtran -crop` to widen the first, `-drop` for the
#   rest; no pixel re-encoded); the canvas's last 320 columns and 240 rows are jpegtran's fill.
# - iphone7-4x4-16320x12240.heic: the 8x6 tiles of HEIC_DIR/iphone7_IMG_1025.heic
#   (Benchmarks/make-heic.sh) named 4x4 times over by one 32x24 grid cut to 16320x12240
#   (Tests/Fixtures/heic/heifcraft.py mosaic): 768 tiles decoded, 48 of them stored.
#
# OUTDIR must be outside PHOTOS_DIR (default: ../shared/bench/photos next to the repository),
# which is read-only. Prints the paths of the two files.
set -euo pipefail

usage() { echo "Usage: $0 OUTDIR HEIC_DIR [PHOTOS_DIR]" >&2; exit 64; }
(($# >= 2 && $# <= 3)) || usage
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
outdir="$1"
heic="$2/iphone7_IMG_1025.heic"
photos="${3:-$here/../../shared/bench/photos}"
for exe in jpegtran python3; do
  command -v "$exe" >/dev/null || { echo "make-200mp: $exe is missing" >&2; exit 1; }
done
[[ -f "$heic" ]] || { echo "make-200mp: '$heic' is missing (Benchmarks/make-heic.sh makes it)" >&2; exit 1; }
photos="$(cd "$photos" && pwd)"
mkdir -p "$outdir"
outdir="$(cd "$outdir" && pwd)"
case "$outdir/" in
  "$photos"/*) echo "make-200mp: OUTDIR '$outdir' is inside the read-only photos folder '$photos'" >&2; exit 64 ;;
esac
tiles=(sx260_IMG_9360.jpg sx260_IMG_9411.jpg sx260_IMG_9414.jpg sx260_IMG_9426.jpg)
for tile in "${tiles[@]}"; do
  [[ -f "$photos/$tile" ]] || { echo "make-200mp: '$photos/$tile' is missing" >&2; exit 1; }
done
work="$(mktemp -d "$outdir/.make-200mp.XXXXXX")"
trap 'rm -rf "$work"' EXIT

jpeg="$outdir/sx260-4x4-16320x12240.jpg"
jpegtran -copy all -crop 16320x12240+0+0 "$photos/${tiles[0]}" >"$work/canvas.jpg"
for row in 0 1 2 3; do
  for column in 0 1 2 3; do
    ((row == 0 && column == 0)) && continue
    # Offsets are multiples of the 16x8 4:2:2 MCU; each photo lands on a diagonal of its own.
    tile="${tiles[$(((row + column) % 4))]}"
    jpegtran -copy all -drop "+$((column * 4000))+$((row * 3000))" "$photos/$tile" "$work/canvas.jpg" >"$work/next.jpg"
    mv "$work/next.jpg" "$work/canvas.jpg"
  done
done
mv "$work/canvas.jpg" "$jpeg"
echo "$jpeg"

mosaic="$outdir/iphone7-4x4-16320x12240.heic"
python3 -B "$here/../Tests/Fixtures/heic/heifcraft.py" mosaic "$heic" "$mosaic" 4x4 16320x12240
echo "$mosaic"
