#!/usr/bin/env bash
# Installs or upgrades the Debian 12 packages ImagePrep builds and tests against, so that a machine
# that already has them runs at the versions a fresh machine gets today (a security update of a C
# library, libheif 1.15.1-1+deb12u2 of 2026-12-01 for one, changes what the tests meet).
# The runtime libraries are listed beside their -dev packages: apt-get upgrades only what it is
# named or what a named package's version requires. Runs apt-get through sudo when not root.
set -euo pipefail
packages=(
  pkg-config
  libturbojpeg0-dev libturbojpeg0 # CTurboJPEG: decode, DCT scaling, encode
  libjpeg62-turbo-dev libjpeg62-turbo # CJPEG: libjpeg's own API, for every warning of a damaged photo's decode
  libexif-dev libexif12 # CExif: EXIF metadata
  liblcms2-dev liblcms2-2 # CLCMS2: wide-gamut ICC profiles to sRGB for the stripped copies
  libtiff-dev libtiff6 # CTIFF: TIFF and BigTIFF input
  libjxl-dev libjxl0.7 # CJXL: JPEG XL input
  libopenjp2-7-dev libopenjp2-7 # COpenJPEG: JPEG 2000 input (jp2, j2k)
  libraw-dev libraw20 # CRaw: camera raw and DNG input
  libjxl-tools libopenjp2-tools # cjxl, opj_compress: Benchmarks/format-bench.sh makes its JPEG XL and JPEG 2000 with them
  libheif-dev libheif1 # heif.h, for LibheifDeclarationTests only; libheif1 is loaded at the first HEIF file
  libde265-0 libdav1d6 libaom3 # the decoders libheif1 brings: HEVC (which ImagePrep also drives itself), then AV1
  libde265-dev # de265.h, for Libde265DeclarationTests only
  libdav1d-dev # dav1d's headers: CHeif's direct AV1 decode reads dav1d's structures (without them libheif decodes every AVIF)
  libde265-examples # dec265: the direct HEVC decode's reference in the tests, and the benchmark's HEVC floor
  libsqlite3-dev libsqlite3-0 # CSQLite: the outbox's store
  libssl-dev libssl3 # CCrypto: OpenSSL's libcrypto, the outbox's AES-256-GCM, SHA-256 and random bytes
  python3 # the reference engine that the outbox tests send to (standard library only)
  bsdutils # script(1): the test of outbox drain's progress line on a terminal
  time # /usr/bin/time -v: the test of prep-photo's peak memory at every edge
  libimage-exiftool-perl # exiftool: the gain map tests read an Ultra HDR upload's MPF images and hdrgm XMP with it
  slurm-wlm munge # slurmctld, slurmd, sbatch and munged: the Slurm recipe of docs/sharding runs on a one-node cluster
  parallel # GNU parallel: the recipe of docs/sharding for a few machines reached by ssh
  python3-yaml # reads docs/sharding's Kubernetes Job, which stays on paper, to check its YAML and command
  imagemagick # convert: GainMapBudgetTests re-encodes a real gain map as a progressive one as large as the photo
  libspng-dev libspng0 # CSPNG: PNG and APNG input, a row at a time (libspng reports errors by return code, no longjmp)
  libgif-dev libgif7 # CGIF: giflib, GIF input a line at a time
  libwebp-dev libwebp7 libwebpdemux2 # CWebP: libwebp (decoded at the upload's size) and its demuxer (chunks, frames)
)
sudo=()
[[ $(id -u) -eq 0 ]] || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${packages[@]}"
dpkg-query -W -f='install-deps: ${Package} ${Version}\n' libheif1 libde265-0 libturbojpeg0 libsqlite3-0 libssl3
