#!/usr/bin/env bash
# Builds the DocC reference of the library products (ImagePrep, Outbox, PhotoCapture) with the
# toolchain's own tools, and fails unless every public symbol is documented.
#
#   scripts/build-docs.sh            after the tests' build (CI runs it after them)
#   scripts/build-docs.sh --build    build first (swift build -c release -Xswiftc -enable-testing)
#
# - Symbol graphs come from `swift symbolgraph-extract` on the modules of the release build the
#   tests use (the README's `-c release -Xswiftc -enable-testing`), so that after the test command
#   nothing is compiled again: no package plugin, nothing downloaded.
# - Each module's catalogue (Sources/<Module>/<Module>.docc: a landing page whose topic groups list
#   every public type, and extension pages for members the compiler writes), with the guides of
#   docs/ copied in as articles, and its symbol graph go through `docc convert
#   --warnings-as-errors` (a broken link, an undocumented parameter, a symbol in no topic group
#   that a group was meant to hold all fail it) with `--experimental-documentation-coverage`.
# - The check: every public symbol of the three modules has an abstract (a doc comment). The
#   ones that do not are listed by module and name, and the script fails.
# - The archives are .build/docs/<Module>.doccarchive; docs/library.md, "The reference", says how
#   to open them.
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(ImagePrep Outbox PhotoCapture)
build=.build/release
out=.build/docs
triple=$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')

fail() {
  echo "build-docs: $*" >&2
  exit 1
}

if [[ ${1:-} == --build ]]; then
  swift build -c release -Xswiftc -enable-testing
fi
for module in "${modules[@]}"; do
  [[ -f $build/Modules/$module.swiftmodule ]] ||
    fail "no $build/Modules/$module.swiftmodule: build first (swift build -c release -Xswiftc -enable-testing, or --build)"
done

# The C modules the Swift modules import internally, as the build found them.
clang_maps=()
for map in Sources/C*/module.modulemap "$build"/*.build/module.modulemap; do
  [[ -f $map ]] && clang_maps+=(-Xcc "-fmodule-map-file=$PWD/$map")
done
for folder in Sources/C*/include; do
  clang_maps+=(-Xcc "-I$PWD/$folder")
done
# And the header folders of the system libraries whose headers are not in /usr/include itself
# (openjpeg.h is in /usr/include/openjpeg-2.5, libraw's in /usr/include/libraw), as pkg-config
# gives them to the build.
for package in $(sed -n 's/.*pkgConfig: "\([^"]*\)".*/\1/p' Package.swift) libraw; do
  for flag in $(pkg-config --cflags-only-I "$package" 2>/dev/null); do
    clang_maps+=(-Xcc "$flag")
  done
done

# The guides of docs/ that each module's reference carries as articles. A link from one to another
# carried in the same archive becomes a DocC link; to any other file, the file's path in words.
# A guide's part that belongs to some modules only starts with a line `<!-- archive: MODULE ... -->`
# and runs to the next such line (`all` for every module): docs/library.md's photo preparation goes
# to ImagePrep's archive, its outbox to Outbox's and PhotoCapture's.
guides() {
  case $1 in
    ImagePrep) echo library metadata heif ;;
    Outbox) echo library engine-protocol encryption apple ;;
    PhotoCapture) echo library ;;
  esac
}

# stage MODULE: its catalogue, with the guides copied in as articles, in $out/catalogues.
stage() {
  local module=$1 catalogue="$out/catalogues/$1.docc"
  mkdir -p "$out/catalogues"
  cp -R "Sources/$module/$module.docc" "$catalogue"
  python3 - "$catalogue" "$module" $(guides "$module") <<'PYTHON'
import re, sys
catalogue, module, carried = sys.argv[1], sys.argv[2], set(sys.argv[3:])
archive = re.compile(r"^<!-- archive: ([A-Za-z ]+) -->$")
link = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")

def rewritten(match):
    label, target = match.group(1), match.group(2)
    if re.match(r"[a-z]+:", target):
        return match.group(0)  # a web address
    path = target.partition("#")[0]
    if not path:
        return label  # a heading of the same guide
    if "/" not in path and path.endswith(".md") and path[:-3] in carried:
        return f"[{label}](<doc:{path[:-3]}>)"
    return f"{label} (`docs/{path}`)" if "/" not in path else f"{label} (`{path}`)"

for name in sorted(carried):
    lines, fenced, belongs = [], False, True
    for line in open(f"docs/{name}.md", encoding="utf-8"):
        marker = None if fenced else archive.match(line.rstrip("\n"))
        if marker:
            modules = marker.group(1).split()
            belongs = "all" in modules or module in modules
            continue
        if not belongs:
            continue
        if line.lstrip().startswith("```"):
            fenced = not fenced
        lines.append(line if fenced else link.sub(rewritten, line))
    with open(f"{catalogue}/{name}.md", "w", encoding="utf-8") as article:
        article.writelines(lines)
PYTHON
}

rm -rf "$out"
mkdir -p "$out"
failed=()
start=$(date +%s.%N)
for module in "${modules[@]}"; do
  stage "$module"
  graphs="$out/symbol-graphs/$module"
  mkdir -p "$graphs"
  swift symbolgraph-extract -module-name "$module" -target "$triple" -I "$build/Modules" \
    "${clang_maps[@]}" -minimum-access-level public -skip-synthesized-members -emit-extension-block-symbols \
    -output-dir "$graphs" -module-cache-path "$out/module-cache"
  # The folder holds the module's graph and, as <Module>@<Other>, what it adds to another module's
  # types (PhotoCapture's commit on Outbox), which its reference documents too: with extension
  # block symbols, DocC gives those pages of their own (under "Extended Modules"); without them it
  # gives none, and the page check below fails.
  convert=(docc convert "$out/catalogues/$module.docc" --additional-symbol-graph-dir "$graphs"
    --output-dir "$out/$module.doccarchive" --fallback-display-name "$module"
    --fallback-bundle-identifier "imageprep.$module" --experimental-documentation-coverage
    --coverage-summary-level brief)
  if ! "${convert[@]}" --warnings-as-errors >"$out/$module.log" 2>&1; then
    failed+=("$module")
    # Each problem on one line with where it is; the whole output stays in the log.
    echo "build-docs: docc convert --warnings-as-errors failed for $module (all of it in $out/$module.log):" >&2
    awk '/^(warning|error): / { message = $0; sub(/^(warning|error): /, "", message); next }
      message != "" && /-->/ { sub(/^ *--> */, ""); print "  " message " at " $0; message = "" }' \
      "$out/$module.log" >&2
    grep -E '^error: ' "$out/$module.log" | grep -v -- '-->' | tail -1 >&2 || true
    # Again without failing on warnings, for the coverage of what is undocumented.
    "${convert[@]}" >/dev/null 2>&1 || true
  fi
done
seconds=$(python3 -c "import time; print(f'{time.time() - $start:.1f}')")

# Coverage: every public symbol of the three modules' graphs (their own and what they add to
# another module's types) must have a page in its archive, and every symbol docc counts an abstract.
python3 - "$out" "${modules[@]}" <<'PYTHON'
import glob, json, os, sys
out, modules = sys.argv[1], sys.argv[2:]
missing, total = [], 0
for module in modules:
    pages = set()
    for path in glob.glob(f"{out}/{module}.doccarchive/data/documentation/**/*.json", recursive=True):
        with open(path) as handle:
            external = json.load(handle).get("metadata", {}).get("externalID")
        if external:
            pages.add(external)
    for graph in sorted(glob.glob(f"{out}/symbol-graphs/{module}/*.symbols.json")):
        with open(graph) as handle:
            symbols = json.load(handle).get("symbols", [])
        for symbol in symbols:
            if symbol["kind"]["identifier"] == "swift.extension":
                continue  # an extension block: its members are what get pages
            if symbol["identifier"]["precise"] not in pages:
                where = os.path.basename(graph).removesuffix(".symbols.json")
                missing.append(f"{'.'.join(symbol['pathComponents'])} in {where} has no page in {module}'s archive")
    try:
        with open(f"{out}/{module}.doccarchive/documentation-coverage.json") as handle:
            entries = json.load(handle)
    except OSError:
        missing.append(f"{module}: no coverage, docc made no archive (see {out}/{module}.log)")
        continue
    for entry in entries:
        kind = entry.get("kind", {}).get("name", "?")
        if kind == "Module" or not entry.get("kind", {}).get("isSymbol", False):
            continue  # the landing page, and the articles (the guides), are not symbols
        total += 1
        if not entry.get("hasAbstract", False):
            path = entry.get("referencePath", "").partition("/documentation/")[2]
            missing.append(f"{path} ({kind})")
if missing:
    print(f"build-docs: {len(missing)} public types and members (of {total} docc counts) have no page or no doc comment:",
          file=sys.stderr)
    for line in sorted(missing):
        print(f"  {line}", file=sys.stderr)
    print("build-docs: give each a doc comment (a summary line that says what and why; parameters,"
          " returns and throws where they apply), and a place in its module's .docc topic groups.",
          file=sys.stderr)
    sys.exit(1)
print(f"build-docs: coverage 100 % ({total} of {total} public types and members have a doc comment)")
PYTHON
[[ ${#failed[@]} -eq 0 ]] || fail "DocC warnings in ${failed[*]} (above): a parameter without its '- Parameter' line, a broken link"
echo "build-docs: $out/{$(IFS=,; echo "${modules[*]}")}.doccarchive in $seconds s"
