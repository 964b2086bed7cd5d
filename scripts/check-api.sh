#!/usr/bin/env bash
# Fails when the public API of the library products (ImagePrep, Outbox, PhotoCapture) breaks
# something of the previous release that CHANGELOG.md does not list: a public API change is
# either listed under Breaking, or it is a bug.
#
#   scripts/check-api.sh          the check (CI runs it after the tests)
#   scripts/check-api.sh --plan   print the baseline and the listed breakages; build nothing
#
# - The baseline is the newest release in CHANGELOG.md whose section has a line
#   `Commit: <40 hexadecimal digits>`.
# - A breakage is listed when the toolchain's exact line (`API breakage: ...`) is in a fenced
#   block whose info string is `api-breakage`, in a section above the baseline's (a newer release,
#   or Unreleased). Those lines are the tool's --breakage-allowlist-path.
# - It builds with the README's settings (-c release -Xswiftc -enable-testing), so that after the
#   test command only the baseline is built (0.1.0: 100 s of CPU). The baseline's API is kept in
#   .build/api-baselines/, per toolchain, so that the next run builds nothing old and takes
#   seconds. (Swift 6.3.1's SwiftPM compiles the package again at the next build after it built a
#   baseline: that happens once per toolchain and baseline.)
# - A clone without the baseline's commit (a shallow checkout) fetches it from origin, or says how.
# - What the toolchain does not see: a declaration turned from `public` to `package` (Swift
#   6.3.1's digester keeps it in the API, marked internal). Review such a change by hand.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
  echo "check-api: $*" >&2
  exit 1
}

[[ -f CHANGELOG.md ]] || fail "no CHANGELOG.md here, so no baseline to compare with"

# Lines "baseline COMMIT VERSION" and "listed TEXT", from the top of the CHANGELOG down to the
# first release that names its commit (that release's own blocks are not read).
plan=$(awk '
  /^## \[/ {
    for (i = 1; i <= count; i++) print "listed " held[i]
    count = 0
    version = $2; gsub(/[][]/, "", version)
    next
  }
  /^```api-breakage[ \t]*$/ { inBlock = 1; next }
  inBlock && /^```/ { inBlock = 0; next }
  inBlock { if (length($0) > 0) held[++count] = $0; next }
  /^Commit: [0-9a-f]+[ \t]*$/ && version != "" && version != "Unreleased" && length($2) == 40 {
    print "baseline " $2 " " version
    exit
  }
' CHANGELOG.md)

baseline=$(awk '$1 == "baseline" { print $2 }' <<<"$plan")
release=$(awk '$1 == "baseline" { print $3 }' <<<"$plan")
listed=$(sed -n 's/^listed //p' <<<"$plan")
[[ -n $baseline ]] || fail "CHANGELOG.md names no release's commit (a line 'Commit: <40 hexadecimal digits>' in a release's section), so there is no baseline to compare with."

if [[ ${1:-} == --plan ]]; then
  echo "baseline $baseline $release"
  [[ -z $listed ]] || sed 's/^/listed /' <<<"$listed"
  exit 0
fi
[[ $# -eq 0 ]] || fail "usage: scripts/check-api.sh [--plan]"

# CI may check out main alone, shallow and without tags: fetch the one commit, or the history.
problem=$(git rev-parse --git-dir 2>&1 >/dev/null) ||
  fail "git cannot read this folder as a clone (${problem//$'\n'/ }), and the check compares with commit $baseline (release $release)."
if ! git cat-file -e "$baseline^{commit}" 2>/dev/null; then
  echo "check-api: fetching $baseline (release $release), which this clone does not have" >&2
  git fetch --quiet --no-tags origin "$baseline" 2>/dev/null ||
    { [[ $(git rev-parse --is-shallow-repository) == true ]] && git fetch --quiet --no-tags --unshallow origin 2>/dev/null; } ||
    true
  git cat-file -e "$baseline^{commit}" 2>/dev/null ||
    fail "commit $baseline (release $release in CHANGELOG.md) is not in this clone, and fetching it from 'origin' failed. Fetch the history (git fetch --unshallow origin) and run again."
fi
# SwiftPM checks the baseline out of a `git clone --shared` of this clone. From a shallow clone
# that copies only what branches and tags reach, so a fetched commit needs a tag to be copied.
if [[ $(git rev-parse --is-shallow-repository) == true ]]; then
  git update-ref refs/tags/check-api-baseline "$baseline"
fi

# Only the products the baseline has: for one it lacks (PhotoCapture before 0.2.0) the tool would
# build the baseline again at every run to find it missing. Each product's target is Sources/NAME.
products=()
for product in ImagePrep Outbox PhotoCapture; do
  if git cat-file -e "$baseline:Sources/$product" 2>/dev/null; then
    products+=("$product")
  else
    echo "check-api: $product is new since release $release: nothing to compare it with"
  fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%s\n' "$listed" >"$work/allowlist"
toolchain=$(swift --version 2>/dev/null | head -n 1 | tr -c 'A-Za-z0-9.\n' '-')
baselines=.build/api-baselines/$toolchain

echo "check-api: the public API of ${products[*]} against release $release ($baseline)"
# The build's progress lines are left out of the log; its warnings and errors are not.
{
  swift package -c release -Xswiftc -enable-testing diagnose-api-breaking-changes "$baseline" \
    --products "${products[@]}" --breakage-allowlist-path "$work/allowlist" \
    --baseline-dir "$baselines" 2>&1
  echo $? >"$work/status"
} | tee "$work/output" | grep -v '^\[[0-9]*/[0-9]*\] ' || true
status=$(cat "$work/status")
if ((status == 0)); then
  echo "check-api: no breakage that CHANGELOG.md does not list ($(grep -c . "$work/allowlist") listed since $release)"
  exit 0
fi
unlisted=$(grep -o 'API breakage: .*' "$work/output" || true)
if [[ -n $unlisted ]]; then
  echo >&2
  echo "check-api: these public API breakages since release $release are not listed in CHANGELOG.md:" >&2
  sed 's/^/  /' <<<"$unlisted" >&2
  echo "If the break is meant, say it under Breaking in the newest section of CHANGELOG.md, with what a user does about it, and add the lines above to that section's api-breakage block. If it is not, it is a bug: keep the API." >&2
else
  echo "check-api: diagnose-api-breaking-changes failed (exit status $status), see above" >&2
fi
exit 1
