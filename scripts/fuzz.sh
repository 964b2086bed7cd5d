#!/usr/bin/env bash
# The suite's fuzz test for longer: N structure-aware mutations of the fixtures (default 50000),
# from the seed SEED (default: the time, printed), each prepared by prep-photo in a batch (under a
# memory cap and a time limit) and alone, and compared. FORMAT (heif, jpeg, ultrahdr for the
# Ultra HDR seed alone, its MPF index and gain map mutated too, or gainmap for the iPhone HDR HEIC
# alone, its gain map and maker note mutated too) keeps the seed files of one format.
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
