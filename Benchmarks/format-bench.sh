#!/usr/bin/env bash
# The format rows of prep-bench in one command (issues 53 and 54): makes the files once from real
# pixels, then times each beside vipsthumbnail (one photo per process, and a batch of 24 copies)
# and beside the format's own library decoding it alone, and prints the tables and ratios
# (docs/benchmark.md, "Other formats").
#
#   Benchmarks/format-bench.sh [SHARED] [prep-bench options]     e.g. --runs 5 --batch-runs 3
#
# SHARED is the folder holding bench/photos (../shared by default); it is read only here, to make
# the files, which are kept in $FORMAT_BENCH_FILES (.build/format-bench by default). The files:
# - screenshot.png, animated.gif: Tests/Fixtures' phone screenshot PNG and animated GIF;
# - photo.webp: bench/photos/iphone7_IMG_1025.jpg (4032x3024) as lossy WebP (Q 80);
# - strips.tif, tiles.tif, photo.jxl, photo.jp2: bench/photos/ixus125_IMG_2168.jpg scaled to
#   5600x4200 (23.5 MP): TIFF in LZW strips and in Deflate 256 px tiles, JPEG XL by cjxl -d 1,
#   JPEG 2000 by opj_compress (6 levels, 20:1);
# - raw.dng: the same photo as a 4000x3000 16-bit LinearRaw DNG with a 160 px preview, so that
#   LibRaw renders it (Tests/Fixtures/formats/make-dng-fixtures.py).
# Build first: swift build -c release -Xswiftc -enable-testing
set -euo pipefail
shared=../shared
if [[ $# -gt 0 && $1 != -* ]]; then
  shared=$1
  shift
fi
files=${FORMAT_BENCH_FILES:-.build/format-bench}
mkdir -p "$files"
phone=$shared/bench/photos/iphone7_IMG_1025.jpg
camera=$shared/bench/photos/ixus125_IMG_2168.jpg

made() { [[ -s $files/$1 ]]; }
made screenshot.png || cp Tests/Fixtures/formats/png/png-screenshot-macos-exif-iccp-android-samples.png "$files/screenshot.png"
made animated.gif || cp Tests/Fixtures/formats/gif-animated-phone-screen-recording-android-samples.gif "$files/animated.gif"
made photo.webp || vips copy "$phone" "$files/photo.webp[Q=80]"
if ! made strips.tif || ! made tiles.tif || ! made photo.jxl || ! made photo.jp2; then
  vips resize "$camera" "$files/big.v" 1.2152778
  vips copy "$files/big.v" "$files/strips.tif[compression=lzw]"
  vips copy "$files/big.v" "$files/tiles.tif[compression=deflate,tile,tile-width=256,tile-height=256]"
  vips copy "$files/big.v" "$files/big.ppm"
  cjxl "$files/big.ppm" "$files/photo.jxl" -d 1 --quiet
  opj_compress -i "$files/big.ppm" -o "$files/photo.jp2" -n 6 -r 20 > /dev/null
  rm "$files/big.v" "$files/big.ppm"
fi
made raw.dng || /usr/bin/python3 Tests/Fixtures/formats/make-dng-fixtures.py "$camera" "$files/raw.dng" 4000 3000

arguments=()
for file in screenshot.png photo.webp animated.gif strips.tif tiles.tif raw.dng photo.jxl photo.jp2; do
  arguments+=(--format "$files/$file")
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores; $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
nice -n "${NICENESS:-0}" .build/release/prep-bench "${arguments[@]}" "$@"
