#!/usr/bin/env bash
# Regenerates the iPhone-like HDR HEICs of this folder (an HDR gain map as an auxiliary image)
# and exiftool.json beside them. ../make.sh runs it last; see ../../README.md, "heic/gainmap/".
#
#   Tests/Fixtures/heic/gainmap/make.sh
#
# Needs what ../make.sh needs (heif-enc 1.15, imagemagick, exiftool, Python 3).
#
# No iPhone HDR HEIC whose licence allows this repository could be had, so these are laid out
# as an iPhone lays one out, by ../heifcraft.py: the primary image; a hidden gray HEVC image at
# half its size with auxC 'urn:com:apple:photo:2020:aux:hdrgainmap' and an auxl reference to the
# primary; an XMP item on that image (cdsc) saying HDRGainMap:HDRGainMapVersion 65536; and the
# primary's Exif item (Apple's layout) with an iPhone 14 Pro Max's own Apple maker note, whose
# HDRHeadroom (tag 0x0021) is 0.8432090282 and HDRGain (0x0030) is 0.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
corpus="$here/../../corpus"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$here"
craft() { python3 -B "$here/../heifcraft.py" build "$@"; }
encode() {
    local quality=$1 input=$2 output=$3
    shift 3
    heif-enc -q "$quality" "$@" -o "$output" "$input" >/dev/null
}
rm -f ./*.heic hostile/*.heic
mkdir -p hostile

# The photo: an iPhone 5 photo of ../../corpus (drewnoakes/metadata-extractor-images) at 320x240.
convert -quiet "$corpus/gps-north-west-iphone5-orientation3.jpg" -resize '320x240!' "$work/photo.png"
encode 45 "$work/photo.png" "$work/photo.heic"
# The gain map: 160x120 gray, bright where the photo is (as an HDR gain map boosts highlights),
# smooth, from black to white. heif-enc codes a gray PNG as monochrome HEVC.
convert -quiet "$work/photo.png" -colorspace gray -resize '160x120!' -level 35%,95% -blur 0x1.5 \
    -type Grayscale "$work/gain-map.png"
encode 80 "$work/gain-map.png" "$work/gain-map.heic"
# The XMP Apple writes on the gain map item.
cat >"$work/gain-map.xmp" <<'XMP'
<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="XMP Core 6.0.0"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:HDRGainMap="http://ns.apple.com/HDRGainMap/1.0/"><HDRGainMap:HDRGainMapVersion>65536</HDRGainMap:HDRGainMapVersion></rdf:Description></rdf:RDF></x:xmpmeta>
XMP
# The EXIF: the iPhone 14 Pro Max photo's (Pillow's Tests/images/frame_size.mpo), maker note
# and all, with Orientation 1 (the photo has no irot) and a GPS position added.
exiftool -q -q -n -o "$work/exif.jpg" -Orientation=1 -GPSLatitude=37.334606 -GPSLatitudeRef=N \
    -GPSLongitude=122.009102 -GPSLongitudeRef=W "$corpus/offset-minus0400-iphone14promax-p3-mpf.jpg"
exiftool -q -q -n -o "$work/exif-without-maker-note.jpg" -MakerNotes:all= "$work/exif.jpg"

gain_map=(--gain-map "$work/gain-map.heic" --gain-map-xmp "$work/gain-map.xmp")
# iphone-hdr-320x240.heic: the HDR photo. Apple's derivation gives 1.8 stops of headroom.
craft iphone-hdr-320x240.heic --image "$work/photo.heic" --exif-from "$work/exif.jpg" "${gain_map[@]}"
# iphone-hdr-rotated.heic: the same as a portrait photo: irot 3 (and Exif Orientation 6) on the
# primary alone, as an auxiliary image without a turn of its own is shown as its primary is.
exiftool -q -q -n -o "$work/exif-6.jpg" -Orientation=6 "$work/exif.jpg"
craft iphone-hdr-rotated.heic --image "$work/photo.heic" --exif-from "$work/exif-6.jpg" --irot 3 \
    "${gain_map[@]}"
# iphone-hdr-grid.heic: the same with its gain map as a 2x2 grid of 80x64 HEVC tiles cut to
# 160x120 by the grid, as an iPhone codes its full-size gain map in tiles.
convert -quiet "$work/gain-map.png" -background black -extent 160x128 -crop 80x64 +repage \
    -type Grayscale "$work/gain-tile-%d.png"
gain_tiles=()
for index in 0 1 2 3; do
    encode 80 "$work/gain-tile-$index.png" "$work/gain-tile-$index.heic"
    gain_tiles+=(--gain-map-tile "$work/gain-tile-$index.heic")
done
craft iphone-hdr-grid.heic --image "$work/photo.heic" --exif-from "$work/exif.jpg" --gain-map-grid 2x2 \
    "${gain_tiles[@]}" --gain-map-size 160x120 --gain-map-xmp "$work/gain-map.xmp"
# no-maker-note.heic: the same without the Apple maker note: no headroom to derive.
craft no-maker-note.heic --image "$work/photo.heic" --exif-from "$work/exif-without-maker-note.jpg" \
    "${gain_map[@]}"

# iphone-hdr-v2.heic: a version 2 gain map (iOS 18's XMP) that says its headroom itself,
# HDRGainMapHeadroom 4 (2 stops), where the maker note gives 1.8: the XMP's is carried.
cat >"$work/gain-map-v2.xmp" <<'XMP'
<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="XMP Core 6.0.0"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:HDRGainMap="http://ns.apple.com/HDRGainMap/1.0/"><HDRGainMap:HDRGainMapVersion>131072</HDRGainMap:HDRGainMapVersion><HDRGainMap:HDRGainMapHeadroom>4.000000</HDRGainMap:HDRGainMapHeadroom></rdf:Description></rdf:RDF></x:xmpmeta>
XMP
craft iphone-hdr-v2.heic --image "$work/photo.heic" --exif-from "$work/exif.jpg" --gain-map "$work/gain-map.heic" \
    --gain-map-xmp "$work/gain-map-v2.xmp"
# iphone-hdr-tmap.heic: iOS 18's layout: the same with an ISO 21496-1 tmap item over the photo and
# its gain map, which the Exif item describes too. Its metadata (a version byte, then the block:
# versions 0, flags 0, each value over 1000000) says 2.5 stops, where the maker note gives 1.8
# and the XMP nothing: the tmap's is carried. Headrooms 0 and 2.5; minimum 0, maximum 2.5,
# gamma 1, offsets 1/64.
tmap=$(python3 -c 'import struct; values = [0, 2500000, 0, 2500000, 1000000, 15625, 15625]
print((bytes(6) + b"".join(struct.pack(">iI", v, 1000000) for v in values)).hex())')
craft iphone-hdr-tmap.heic --image "$work/photo.heic" --exif-from "$work/exif.jpg" "${gain_map[@]}" --tmap "$tmap"
# iphone-ios26-like.heic: the same with three more auxiliary images as iOS 26 adds (mattes, a
# style delta map, a linear thumbnail), each an auxl of the photo and the tmap, which libheif
# 1.15 refuses ("Too many auxiliary image references"). Their types are Apple's form; the last
# two are of our making.
craft iphone-ios26-like.heic --image "$work/photo.heic" --exif-from "$work/exif.jpg" "${gain_map[@]}" \
    --tmap "$tmap" --aux urn:com:apple:photo:2020:aux:semanticskymatte \
    --aux urn:com:apple:photo:2025:aux:styledeltamap --aux urn:com:apple:photo:2025:aux:linearthumbnail
# cdsc-primary-and-thumbnail.heic, cdsc-primary-twice.heic: an Exif item whose cdsc names the photo
# and its thumbnail, or the photo twice, which libheif 1.15 refuses ("Metadata not correctly
# assigned to image"); the second has no thumbnail whose reference could go instead.
convert -quiet "$work/photo.png" -resize '80x60!' "$work/thumbnail.png"
encode 45 "$work/thumbnail.png" "$work/thumbnail.heic"
craft cdsc-primary-and-thumbnail.heic --image "$work/photo.heic" --thumbnail "$work/thumbnail.heic" \
    --exif-from "$work/exif.jpg" --exif-also-describes thumbnail
craft cdsc-primary-twice.heic --image "$work/photo.heic" --exif-from "$work/exif.jpg" --exif-also-describes primary

# hostile/: gain maps an attacker makes, each left out with a warning, the photo prepared.
craft hostile/aux-ispe-40000x40000.heic --image "$work/photo.heic" --exif-from "$work/exif.jpg" \
    "${gain_map[@]}" --gain-map-size 40000x40000
craft hostile/aux-ispe-0x0.heic --image "$work/photo.heic" --exif-from "$work/exif.jpg" \
    "${gain_map[@]}" --gain-map-size 0x0
craft hostile/aux-sps-30000x30000.heic --image "$work/photo.heic" --exif-from "$work/exif.jpg" \
    "${gain_map[@]}" --gain-map-sps-size 30000x30000
craft hostile/aux-aspect-160x40.heic --image "$work/photo.heic" --exif-from "$work/exif.jpg" \
    "${gain_map[@]}" --gain-map-size 160x40
craft hostile/aux-vvc-codec.heic --image "$work/photo.heic" --exif-from "$work/exif.jpg" \
    "${gain_map[@]}" --gain-map-item-type vvc1
craft hostile/aux-identity-loop.heic --image "$work/photo.heic" --exif-from "$work/exif.jpg" \
    --gain-map-xmp "$work/gain-map.xmp" --gain-map-loop

# The gain map as heif-convert decodes it (quality 100): what the tests hold the carried one to,
# decoded by another program than ImagePrep.
heif-convert -q 100 "$work/gain-map.heic" reference-gain-map-160x120.jpg >/dev/null

# exiftool's reading of each file, as ../../exiftool-readings.sh makes it for the JPEGs.
sh "$here/../../exiftool-readings.sh" heic/gainmap
