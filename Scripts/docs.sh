#!/usr/bin/env bash
# Builds the DocC documentation of the LogStore module with the toolchain's own tools, offline:
#   1. symbol graphs of the LogStore target from `swift build` (in a build directory of its own,
#      .build/docs, so the usual .build is neither rebuilt nor disturbed);
#   2. Scripts/check_doc_comments.py: fails, listing `file:line symbol`, when a public or open
#      symbol has no doc comment (docc has no such check);
#   3. `docc convert` of Sources/LogStore/LogStore.docc with --warnings-as-errors, so a broken
#      ``Symbol`` or <doc:Article> link fails the script too.
# Usage: Scripts/docs.sh [OUTPUT_DIR]    (default .build/docs/site)
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build/docs
graphs="$scratch/symbol-graphs"         # what swiftc emits: may hold other modules' graphs too
module_graphs="$scratch/module-graphs"  # only LogStore's, what docc and the check read
output="${1:-$scratch/site}"
catalog=Sources/LogStore/LogStore.docc

# The toolchain's docc: beside `swift` (Linux has no xcrun), else whatever PATH finds.
swift_path="$(command -v swift || true)"
if [ -z "$swift_path" ]; then
    echo "docs.sh: swift is not on PATH" >&2
    exit 1
fi
docc="$(dirname "$(readlink -f "$swift_path")")/docc"
if [ ! -x "$docc" ]; then
    docc="$(command -v docc || true)"
fi
if [ -z "$docc" ]; then
    echo "docs.sh: no docc beside $swift_path nor on PATH" >&2
    exit 1
fi

# swiftc writes the graphs only when it compiles the module, so every run starts from a clean
# private build directory (removing only the module's products is not enough: SwiftPM does not
# plan again when nothing changed, and then misses the files it planned). A site from an earlier
# run is kept until the conversion replaces it.
if [ -d "$scratch" ]; then
    find "$scratch" -mindepth 1 -maxdepth 1 ! -name site -exec rm -rf {} +
fi
mkdir -p "$graphs" "$module_graphs"

echo "docs.sh: building symbol graphs of LogStore (in $scratch)"
swift build --scratch-path "$scratch" --target LogStore \
    -Xswiftc -emit-symbol-graph \
    -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs" \
    -Xswiftc -symbol-graph-skip-synthesized-members \
    -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public

shopt -s nullglob
module_files=("$graphs"/LogStore.symbols.json "$graphs"/LogStore@*.symbols.json)
shopt -u nullglob
if [ "${#module_files[@]}" -eq 0 ]; then
    echo "docs.sh: swift build wrote no LogStore symbol graph into $graphs" >&2
    exit 1
fi
cp "${module_files[@]}" "$module_graphs/"

echo "docs.sh: checking doc comments"
python3 Scripts/check_doc_comments.py "$module_graphs" "$PWD"

echo "docs.sh: converting $catalog"
# Replace an earlier site, but never a directory that is something else.
if [ -e "$output" ]; then
    if [ -f "$output/index.html" ] && [ -d "$output/data" ]; then
        rm -rf "$output"
    else
        echo "docs.sh: $output exists and is not a DocC site: give another directory" >&2
        exit 1
    fi
fi
"$docc" convert "$catalog" \
    --additional-symbol-graph-dir "$module_graphs" \
    --output-path "$output" \
    --fallback-display-name LogStore \
    --fallback-bundle-identifier org.logstore.LogStore \
    --warnings-as-errors

echo "docs.sh: the site is in $output (open $output/index.html through a web server,"
echo "         e.g. python3 -m http.server -d $output, then /documentation/logstore)"
