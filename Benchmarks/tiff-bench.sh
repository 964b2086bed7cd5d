#!/usr/bin/env bash
# A 24 MP TIFF beside vipsthumbnail and beside libtiff's decode alone, in the same run: until
# prep-bench has TIFF rows (its quality check decodes JPEG only), this times the three on one
# file. The TIFF is a real bench photo scaled by 1.25 (5760x4320), saved by vips as LZW strips
# and as Deflate 256 px tiles. Each command runs RUNS times (default 5) after a warm-up; the
# median wall and CPU time and peak RSS are printed, with prep-photo's ratios to the others.
#
#   Benchmarks/tiff-bench.sh PHOTO.jpg [PREP_PHOTO] [RUNS]
set -euo pipefail
photo=${1:?a bench photo (JPEG)}
prep=${2:-.build/release/prep-photo}
runs=${3:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
vips resize "$photo" "$work/big.v" 1.25
vips copy "$work/big.v" "$work/strips.tif[compression=lzw]"
vips copy "$work/big.v" "$work/tiles.tif[compression=deflate,tile,tile-width=256,tile-height=256]"
rm "$work/big.v"
cat > "$work/decode.c" <<'C'
#include <stdlib.h>
#include <tiffio.h>
/* libtiff's decode alone: every scanline (strips) or tile of the first page, nothing else. */
int main(int argc, char **argv) {
    TIFF *tif = TIFFOpen(argv[1], "r");
    if (!tif) return 1;
    uint32_t height = 0;
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &height);
    int tiled = TIFFIsTiled(tif);
    tmsize_t size = tiled ? TIFFTileSize(tif) : TIFFScanlineSize(tif);
    unsigned char *buffer = malloc(size);
    uint32_t count = tiled ? TIFFNumberOfTiles(tif) : height;
    for (uint32_t i = 0; i < count; i++) {
        if ((tiled ? TIFFReadEncodedTile(tif, i, buffer, size) : TIFFReadScanline(tif, buffer, i, 0)) < 0) return 1;
    }
    free(buffer);
    TIFFClose(tif);
    return 0;
}
C
cc -O2 -o "$work/decode" "$work/decode.c" -ltiff
# median of RUNS runs: wall seconds, user+system seconds, peak RSS in MB
measure() {
  "$@" > /dev/null 2>&1
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S %M" "$@" 2>&1 > /dev/null | tail -1
  done | awk '{print $1, $2 + $3, $4 / 1024}' | sort -n | awk -v n="$runs" 'NR == int((n + 1) / 2)'
}
for file in strips tiles; do
  rm -rf "$work/out"
  ours=$(measure "$prep" --overwrite --jobs 1 --out "$work/out" "$work/$file.tif")
  vips=$(measure vipsthumbnail "$work/$file.tif" --size 2048 -o "$work/vips.jpg")
  floor=$(measure "$work/decode" "$work/$file.tif")
  echo "$file ($(du -m "$work/$file.tif" | cut -f1) MB):"
  printf '  %-16s wall %6.2f s  cpu %6.2f s  rss %6.0f MB\n' prep-photo $ours vipsthumbnail $vips libtiff-alone $floor
  read -r ow oc _ <<< "$ours"; read -r vw vc _ <<< "$vips"; read -r fw fc _ <<< "$floor"
  awk -v ow="$ow" -v oc="$oc" -v vw="$vw" -v vc="$vc" -v fw="$fw" -v fc="$fc" 'BEGIN {
    printf "  prep-photo / vipsthumbnail: wall %.2fx, cpu %.2fx; prep-photo / libtiff alone: wall %.2fx, cpu %.2fx\n",
      ow / vw, oc / vc, ow / fw, oc / fc }'
done
