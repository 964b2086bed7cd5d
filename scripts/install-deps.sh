#!/usr/bin/env bash
# Installs the Debian 12 packages ImagePrep builds and tests against, skipping those already there.
# Runs apt-get through sudo when not root.
set -euo pipefail
packages=(
  pkg-config
  libturbojpeg0-dev   # CTurboJPEG: decode, DCT scaling, encode
  libjpeg62-turbo-dev # CJPEG: libjpeg's own API, for every warning of a damaged photo's decode
  libexif-dev         # CExif: EXIF metadata
  liblcms2-dev        # CLCMS2: wide-gamut ICC profiles to sRGB for the stripped copies
  libheif-dev         # heif.h, for LibheifDeclarationTests only; libheif1, loaded at the first HEIF file, brings libde265, dav1d, libaom
  libsqlite3-dev      # CSQLite: the outbox's store
  libssl-dev          # CCrypto: OpenSSL's libcrypto, the outbox's AES-256-GCM, SHA-256 and random bytes
  python3             # the reference engine that the outbox tests send to (standard library only)
  bsdutils            # script(1): the test of outbox drain's progress line on a terminal
  time                # /usr/bin/time -v: the test of prep-photo's peak memory at every edge
  libimage-exiftool-perl # exiftool: GainMapTests reads an Ultra HDR upload's MPF images and hdrgm XMP with it
)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
sudo=()
[[ $(id -u) -eq 0 ]] || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps: installed ${missing[*]}"
