#!/usr/bin/env bash
# The suite's fuzz test for longer: N structure-aware mutations of the fixtures (default 50000),
# from the seed SEED (default: the time, printed), each prepared by prep-photo in a batch and
# alone and compared. A failure names the mutation's number; the same N and SEED make it again.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-50000}
seed=${2:-$(date +%s)}
echo "fuzz: $count mutations, seed $seed"
PREP_FUZZ_MUTATIONS=$count PREP_FUZZ_SEED=$seed swift test -c release -Xswiftc -enable-testing --filter FuzzTests
echo "fuzz: $count mutations from seed $seed passed"
