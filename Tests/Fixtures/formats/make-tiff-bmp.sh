#!/bin/sh
# Makes the TIFF and BMP fixtures of this folder that are not copies (README-tiff-bmp.md), from the
# real files beside them, then vipsthumbnail's copies (references-tiff-bmp/) and exiftool's reading
# of the TIFFs (exiftool-tiff.json). Needs ImageMagick 6, exiftool 12.57 and vipsthumbnail 8.14.
set -eu
cd "$(dirname "$0")"
galaxy=tiff-lzw-rgb-galaxy-twelvemonkeys.tif
strips=tiff-strips-uncompressed-rgb-pillow.tif
convert $galaxy -colors 200 -type Palette -compress lzw tiff-palette-lzw-galaxy.tif
convert $strips $galaxy -compress lzw tiff-multipage-two-pages.tif
convert $strips -compress lzw tiff-orientation-6.tif
exiftool -q -overwrite_original -IFD0:Orientation#=6 -DateTimeOriginal="2021:05:04 10:20:30" \
  -OffsetTimeOriginal="+02:00" tiff-orientation-6.tif
convert $strips -resize 32x32 -compress none tiff-dngversion-marked.tif
exiftool -q -overwrite_original -IFD0:DNGVersion="1 4 0 0" tiff-dngversion-marked.tif
blue=bmp-24bit-twelvemonkeys.bmp
convert $blue -resize 160x -type bilevel bmp3:bmp-1bit-made.bmp
convert $blue -resize 160x -colors 16 -type palette bmp3:bmp-4bit-made.bmp
convert $blue -resize 160x -define bmp:subtype=RGB565 bmp-16bit-rgb565-made.bmp
mkdir -p references-tiff-bmp
for file in tiff-*.tif tiff-*.tiff bmp-*.bmp; do
  case $file in tiff-dngversion-marked.tif) continue ;; esac
  vipsthumbnail "$file" --size '2048x2048>' -o "$PWD/references-tiff-bmp/${file%.*}.jpg[Q=95]"
done
exiftool -j -n -G1 -a -Make -Model -Orientation -DateTimeOriginal -CreateDate -ModifyDate \
  -SubSecTimeOriginal -OffsetTimeOriginal -SubSecDateTimeOriginal -GPSLatitude -GPSLongitude -GPSAltitude \
  tiff-*.tif tiff-*.tiff > exiftool-tiff.json
