#!/usr/bin/env bash
# The project's own checks, in the order a change should pass them: a debug build and a release
# build with no warnings, the whole test suite (the README's command), and swift-format's lint.
set -euo pipefail
cd "$(dirname "$0")/.."

for configuration in debug release; do
  echo "== swift build -c $configuration"
  log=$(swift build -c "$configuration" 2>&1) || { echo "$log"; exit 1; }
  if grep -q "warning:" <<<"$log"; then
    grep "warning:" <<<"$log" | sort -u
    echo "check: the $configuration build has warnings" >&2
    exit 1
  fi
done

echo "== swift test -c release -Xswiftc -enable-testing"
swift test -c release -Xswiftc -enable-testing

echo "== swift format lint --strict"
swift format lint --strict --recursive --parallel Package.swift Sources Tests
echo "check: all passed"
