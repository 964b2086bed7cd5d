#!/usr/bin/env bash
# Builds the benchmark's HEIC inputs: every photo of PHOTOS_DIR laid out as an iPhone writes its
# HEIC, so that prep-bench's HEIC rows (`--heic OUTDIR`) time what a phone's folder holds.
#
#   Benchmarks/make-heic.sh OUTDIR [PHOTOS_DIR]
#
# For each JPEG: its stored pixels cut into a grid of 512x512 tiles (an iPhone's 4032x3024 is 8x6
# of them, the last row and column cut by the grid's size), each tile coded by heif-enc (x265,
# quality 50: 1.5-2.5 MB for 12 MP, an iPhone's range), put together by
# Tests/Fixtures/heic/heifcraft.py with the JPEG's EXIF (behind Apple's Exif offset), its ICC
# profile (the iPhones' Display P3) and the irot that says its EXIF Orientation (6 for six of the
# eight iPhone photos). Not committed: about 30 MB.
#
# Beside each NAME.heic it writes NAME.hevc, the photo's tiles as one Annex B stream (heifcraft.py
# annexb): what prep-bench's HEVC floor (libde265's dec265 alone) decodes.
#
# Needs heif-enc (apt-get install libheif-examples), ImageMagick's convert and exiftool, and a
# Python 3. Takes about six minutes on 2 cores; photos already made are kept.
set -euo pipefail

usage() { echo "Usage: $0 OUTDIR [PHOTOS_DIR]" >&2; exit 64; }
(($# >= 1 && $# <= 2)) || usage
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
outdir="$1"
photos="${2:-$here/../../shared/bench/photos}"
for exe in heif-enc convert exiftool python3; do
  command -v "$exe" >/dev/null || { echo "make-heic: $exe is missing" >&2; exit 1; }
done
photos="$(cd "$photos" && pwd)"
mkdir -p "$outdir"
outdir="$(cd "$outdir" && pwd)"
case "$outdir/" in
  "$photos"/*) echo "make-heic: OUTDIR '$outdir' is inside the read-only photos folder '$photos'" >&2; exit 64 ;;
esac
craft="$here/../Tests/Fixtures/heic/heifcraft.py"
work="$(mktemp -d "$outdir/.make-heic.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# irot (and imir) for EXIF Orientation 1-8, as Tests/Fixtures/heic/make.sh makes them.
transforms=("" "--imir 1" "--irot 2" "--imir 0" "--irot 1 --imir 0" "--irot 3" "--irot 1 --imir 1" "--irot 1")
for photo in "$photos"/*.jpg "$photos"/*.jpeg; do
  [[ -f "$photo" ]] || continue
  stem="$(basename "${photo%.*}")"
  result="$outdir/$stem.heic"
  if [[ -f "$result" ]]; then
    [[ -f "$outdir/$stem.hevc" ]] || python3 -B "$craft" annexb "$result" "$outdir/$stem.hevc"
    continue
  fi
  read -r width height orientation <<<"$(exiftool -n -s3 -ImageWidth -ImageHeight -Orientation "$photo" | tr '\n' ' ')"
  orientation=${orientation:-1}
  columns=$(((width + 511) / 512))
  rows=$(((height + 511) / 512))
  rm -f "$work"/*
  # The stored pixels (ImageMagick does not turn them), padded to whole tiles.
  convert -quiet "$photo" -background black -extent "$((columns * 512))x$((rows * 512))" \
    -crop 512x512 +repage "$work/tile-%03d.png"
  find "$work" -name 'tile-*.png' -print0 | sort -z |
    xargs -0 -P "$(nproc)" -I{} sh -c 'heif-enc -q 50 -o "${1%.png}.heic" "$1" >/dev/null' _ {}
  tiles=()
  for tile in "$work"/tile-*.heic; do tiles+=(--tile "$tile"); done
  icc=()
  exiftool -q -q -icc_profile -b "$photo" >"$work/profile.icc" && [[ -s "$work/profile.icc" ]] && icc=(--icc-from "$photo")
  # shellcheck disable=SC2086
  python3 -B "$craft" build "$work/out.heic" --grid "${columns}x${rows}" "${tiles[@]}" --size "${width}x${height}" \
    ${transforms[orientation - 1]} "${icc[@]}" --exif-from "$photo" --exif-offset apple
  python3 -B "$craft" annexb "$work/out.heic" "$outdir/$stem.hevc"
  mv "$work/out.heic" "$result"
  echo "$result"
done
