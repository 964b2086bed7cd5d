#!/usr/bin/env bash
# Puts the commands prep-photo and outbox on the PATH: builds the package in release mode with
# the README's flags (the build the tests reuse; only what changed is compiled again) and copies
# the two commands into PREFIX/bin, ~/.local/bin by default.
#
#   scripts/install.sh [--prefix DIR] [--no-build]
#
# --no-build installs what .build/release holds, building nothing (a test run, which is that
# build, installs so). Each command is copied beside its place and renamed into it, so that a
# prep-photo running from there is never overwritten midway. The commands load the Debian
# packages of scripts/install-deps.sh and the Swift runtime of the toolchain that built them, from
# where it is installed.
set -euo pipefail

usage="usage: scripts/install.sh [--prefix DIR] [--no-build]"
prefix="$HOME/.local"
build=1
while (($#)); do
  case $1 in
    --prefix)
      (($# >= 2)) && [[ -n $2 ]] || { echo "install: --prefix needs a folder" >&2; echo "$usage" >&2; exit 2; }
      prefix=$2
      shift 2
      ;;
    --prefix=?*) prefix=${1#--prefix=}; shift ;;
    --no-build) build=0; shift ;;
    -h | --help) echo "$usage"; exit 0 ;;
    *) echo "install: unknown argument '$1'" >&2; echo "$usage" >&2; exit 2 ;;
  esac
done
[[ $prefix == "~" || $prefix == "~/"* ]] && prefix="$HOME${prefix#\~}"
[[ $prefix == /* ]] || prefix="$PWD/$prefix"
bin="$prefix/bin"

cd "$(dirname "$0")/.."
commands=(prep-photo outbox)
((build)) && swift build -c release -Xswiftc -enable-testing
for command in "${commands[@]}"; do
  [[ -x .build/release/$command ]] || {
    echo "install: .build/release/$command is not built; run scripts/install.sh without --no-build" >&2
    exit 1
  }
done

mkdir -p "$bin"
staged=
trap '[[ -z $staged ]] || rm -f "$staged"' EXIT
for command in "${commands[@]}"; do
  staged=$(mktemp "$bin/.$command.install-XXXXXX")
  cp .build/release/"$command" "$staged"
  chmod 755 "$staged"
  mv -f "$staged" "$bin/$command"
  staged=
  echo "install: $bin/$command"
done
case ":$PATH:" in
  *":$bin:"*) ;;
  *) echo "install: $bin is not on your PATH; add it, for this shell and in ~/.profile: export PATH=\"$bin:\$PATH\"" >&2 ;;
esac
