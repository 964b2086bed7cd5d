#!/usr/bin/env bash
# One photo of each new format timed three ways, in the same run: prep-photo (upload, display and
# thumbnail), vipsthumbnail (one 2048 thumbnail) and the format's decoder alone (djxl,
# opj_decompress whole and halved, LibRaw's dcraw_emu at half size), median wall
# time of RUNS runs and the peak resident memory of the last. A stand-in until prep-bench has
# rows for these formats (docs/formats-jxl-j2k-psd-raw.md).
#
#   scripts/bench-formats.sh PREP_PHOTO FILE... (RUNS=5 by default)
set -euo pipefail
prep=$1
shift
runs=${RUNS:-5}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

measure() {  # label command...
  local label=$1
  shift
  local times=()
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %M" -o "$out/time" "$@" >/dev/null 2>&1 || true
    times+=("$(cut -d' ' -f1 "$out/time")")
  done
  local median
  median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
  printf '%-48s %8s s %8s MB\n' "$label" "$median" "$(($(cut -d' ' -f2 "$out/time") / 1024))"
}

for file in "$@"; do
  name=$(basename "$file")
  measure "$name prep-photo" "$prep" --overwrite -o "$out/prep" "$file"
  # Not '2048x2048>': libvips 8.14 then takes a JPEG 2000's smallest level (a 175 px thumbnail).
  measure "$name vipsthumbnail" vipsthumbnail "$file" --size 2048 -o "$out/vips.jpg"
  case "$file" in
    *.jxl) measure "$name djxl" djxl "$file" "$out/d.ppm" ;;
    *.jp2 | *.j2k | *.j2c)
      measure "$name opj_decompress -r 0" opj_decompress -i "$file" -o "$out/d.ppm" -r 0
      measure "$name opj_decompress -r 1" opj_decompress -i "$file" -o "$out/d.ppm" -r 1
      ;;
    *.dng) command -v dcraw_emu >/dev/null && measure "$name dcraw_emu -h" dcraw_emu -h -Z "$out/d.ppm" "$file" ;;
  esac
done
