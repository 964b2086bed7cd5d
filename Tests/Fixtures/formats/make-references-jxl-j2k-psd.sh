#!/usr/bin/env bash
# Makes references/NAME.jpg for each JPEG XL, JPEG 2000 and Photoshop fixture: the picture as an
# independent decoder gives it (libvips: libjxl, OpenJPEG, ImageMagick's PSD reader; ImageMagick
# for the tile-parts JP2 libvips refuses; Pillow and LittleCMS for the CMYK PSD), flattened over white and resized to the upload's size
# (long edge 2048, or the picture's own), quality 90. FormatSourceTests holds ImagePrep's
# uploads to these by PSNR. Run from this folder; needs vips and ImageMagick's convert.
set -euo pipefail
mkdir -p references
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for file in jxl-* j2k-* jp2-* psd-*; do
  name=${file%.*}
  if [[ $file == jp2-tileparts-* ]]; then
    convert "$file" "$tmp/$name.png"
  elif [[ $file == psd-cmyk-* ]]; then
    # Through the file's own CMYK profile (LittleCMS by Pillow, perceptual with black point
    # compensation); libvips's PSD reader (ImageMagick's) gives the CMYK samples inverted.
    /usr/bin/python3 - "$file" "$tmp/$name.png" <<'PY'
import io, sys
from PIL import Image, ImageCms
image = Image.open(sys.argv[1])
profile = ImageCms.ImageCmsProfile(io.BytesIO(image.info["icc_profile"]))
ImageCms.profileToProfile(
    image, profile, ImageCms.createProfile("sRGB"), renderingIntent=0, outputMode="RGB", flags=0x2000
).save(sys.argv[2])
PY
  else
    vips copy "$file" "$tmp/$name.png"
  fi
  convert "$tmp/$name.png" -background white -alpha remove -alpha off -colorspace sRGB -resize '2048x2048>' \
    -quality 90 "references/$name.jpg"
done
