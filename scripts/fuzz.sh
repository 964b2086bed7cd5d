#!/usr/bin/env bash
# The suite's fuzz test for longer: N structure-aware mutations of the fixtures (default 50000),
# from the seed SEED (default: the time, printed), each prepared by prep-photo in a batch (under a
# memory cap and a time limit) and alone, and compared. FORMAT keeps some seed files: heif,
# jpeg, png (its chunks, IHDR, palettes, zlib streams and APNG chunks mutated), ultrahdr (the Ultra HDR seeds, their MPF index, gain map and Extended XMP mutated too),
# gainmap (the HDR seeds of every form, their gain map, tmap, auxiliary types, XMP and maker note
# mutated too) or phones (the four real phone photos of Tests/Fixtures/phones).
# A failure names the mutation's number; the same N, SEED and FORMAT make it again.
#
#   scripts/fuzz.sh [N] [SEED] [FORMAT]
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-50000}
seed=${2:-$(date +%s)}
format=${3:-}
echo "fuzz: $count mutations, seed $seed${format:+, $format seeds only}"
PREP_FUZZ_MUTATIONS=$count PREP_FUZZ_SEED=$seed PREP_FUZZ_ONLY=$format swift test -c release -Xswiftc -enable-testing --filter FuzzTests
echo "fuzz: $count mutations from seed $seed${format:+ ($format)} passed"
