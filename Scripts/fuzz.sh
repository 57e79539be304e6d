#!/usr/bin/env bash
# Builds the libFuzzer targets of Fuzz/ and runs each for SECONDS.
#
#   Scripts/fuzz.sh SECONDS [TARGET...]     (targets: decoders imagesize redaction urlfilter archive cli
#                                            httprequest consolepath)
#
# The library is built with `swift build` into its own build path (.build/fuzz/build), with
# AddressSanitizer, the coverage instrumentation -sanitize=fuzzer adds, and -enable-testing; only
# the targets link libFuzzer (-sanitize=fuzzer,address), since the build also links executables
# (the EmbedViewerAssets plugin's EmbedText) whose `main` would clash with libFuzzer's. The checks are test
# code and do not ship: they live in the test target (Tests/LogStoreTests/Fuzzing/: FuzzEntry*.swift,
# CLIFuzzEntry.swift), which FuzzRegressionTests calls too. swiftc compiles each target file
# (Fuzz/<target>.swift) together with its check files, whose `@testable import` reaches the
# library's internals, and links them against the library's objects. Nothing here is part of
# `swift build` or `swift test`.
#
# Corpora grow in .build/fuzz/corpus/<target> (kept between runs, not committed), seeded from
# Fixtures/ and Fixtures/fuzz/<target>/. A crash, leak, timeout or finding stops that target: the
# reproducer is written under .build/fuzz/artifacts/<target>/, its path printed, and the script
# exits 1 once every target has run. Runs at `nice -n 10` unless FUZZ_NICE says otherwise.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
SECONDS_PER_TARGET="${1:?usage: Scripts/fuzz.sh SECONDS [TARGET...]}"
shift
ALL_TARGETS=(decoders imagesize redaction urlfilter archive cli httprequest consolepath)
TARGETS=("$@")
[ ${#TARGETS[@]} -eq 0 ] && TARGETS=("${ALL_TARGETS[@]}")
NICE="nice -n ${FUZZ_NICE:-10}"
WORK=.build/fuzz
BUILD="$WORK/build"
mkdir -p "$WORK/bin" "$WORK/logs"

for target in "${TARGETS[@]}"; do
    [ -f "Fuzz/$target.swift" ] || { echo "unknown target: $target (have: ${ALL_TARGETS[*]})" >&2; exit 2; }
done

echo "== building the library with -sanitize=address and libFuzzer's coverage"
# What -sanitize=fuzzer instruments, without linking libFuzzer.
COVERAGE=edge,indirect-calls,trace-cmp,inline-8bit-counters,pc-table
# A failed build stops here: the objects of an older build must not be fuzzed in its place.
if ! $NICE swift build --build-path "$BUILD" --target LogStoreCLI -Xswiftc -sanitize=address \
    -Xswiftc -sanitize-coverage="$COVERAGE" -Xswiftc -enable-testing >"$WORK/logs/build.log" 2>&1; then
    grep -E "error" "$WORK/logs/build.log" >&2 || tail -20 "$WORK/logs/build.log" >&2
    echo "library build failed (log: $WORK/logs/build.log)" >&2
    exit 2
fi
# Linking the build's executables with ASan makes gold warn about every ASan helper: not ours.
grep -E "warning:|Build complete" "$WORK/logs/build.log" | grep -v "Cannot export local symbol '__asan" || true
BIN="$($NICE swift build --build-path "$BUILD" --show-bin-path)"

# A module's objects, as its build lists them: a *.o glob would also take the objects of sources
# since moved or deleted (the fuzz entries once lived in the library), which swift build leaves.
module_objects() {
    sed -n 's/^ *"object": "\(.*\)",\{0,1\}$/\1/p' "$BIN/$1.build/output-file-map.json"
}

CHECKS=Tests/LogStoreTests/Fuzzing
build_target() {
    local target=$1 objects checks=("$CHECKS"/FuzzEntry*.swift)
    # The console's objects too: its checks (FuzzEntry+HTTPRequest.swift, …) are among every
    # target's, and the CLI's objects need them.
    mapfile -t objects < <(module_objects LogStore; module_objects LogStoreConsole)
    # Only the CLI target needs the CLI's objects (and links them: they need the library's, the
    # console's and the demo generator's).
    if [ "$target" = cli ]; then
        mapfile -t -O "${#objects[@]}" objects < <(module_objects LogStoreDemo; module_objects LogStoreCLI)
        checks=("$CHECKS"/CLIFuzzEntry.swift)
    fi
    local sources=("Fuzz/$target.swift" "${checks[@]}")
    if [ -f "$WORK/bin/$target" ] && [ -z "$(find "${sources[@]}" "$BIN" \( -name '*.o' -o -name '*.swift' \) -newer "$WORK/bin/$target" -print -quit)" ]; then
        return
    fi
    echo "== compiling $target"
    $NICE swiftc -parse-as-library -sanitize=fuzzer,address -swift-version 6 -module-name "Fuzz_$target" \
        -I "$BIN/Modules" -I Sources/CSQLite -I Sources/CZlib -I Sources/CLZ4 \
        "${sources[@]}" "${objects[@]}" -lsqlite3 -lz -llz4 -use-ld=lld -o "$WORK/bin/$target"
}

# Seeds: the fixtures and small samples of each format, rewritten on every run.
seed() {
    local target=$1 dir="$WORK/seeds/$1"
    rm -rf "$dir"; mkdir -p "$dir"
    local n=0
    put() { n=$((n + 1)); printf '%b' "$1" > "$dir/seed-$n"; }
    case "$target" in
    decoders)
        for manifest in Fixtures/*.logstore/manifest.json; do cp "$manifest" "$dir/$(basename "$(dirname "$manifest")").json"; done
        for archive in Fixtures/archive-v1.lsarchive Fixtures/hostile-archives/valid-*.lsarchive; do
            sqlite3 -readonly "file:$archive?immutable=1" "SELECT json FROM archive_info" > "$dir/info-$(basename "$archive").json" 2>/dev/null || true
        done
        put '{"storeId":"7A5B3C1D-0000-4000-8000-000000000001","version":{"major":1,"minor":0},"creationDate":"2026-01-01T00:00:00.999Z"}'
        put '{"creationDate":"2026-01-01T00:00:00Z","lastSweepDate":"1969-12-31T23:59:59.9995Z"}' ;;
    imagesize)
        put '\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x03\x00\x00\x00\x03\x08\x02\x00\x00\x00'
        put 'GIF89a\x06\x00\x06\x01\x81\x00\x00'
        put 'GIF87a\x05\x01\x05\x00\x81\x00\x00'
        put '\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xdb\x00\x03\x00\xff\xc0\x00\x11\x08\x00\x07\x01\x07\x03\x01\x22\x00\x02\x11\x01\x03\x11\x01\xff\xd9'
        put '\xff\xd8\xff\xc2\x00\x0b\x08\x00\x10\x00\x20\x01\x01\x11\x00'
        put 'RIFF\x1a\x00\x00\x00WEBPVP8 \x0e\x00\x00\x00\x00\x00\x00\x9d\x01\x2a\x08\x01\x05\x00'
        put 'RIFF\x1a\x00\x00\x00WEBPVP8L\x0e\x00\x00\x00\x2f\x07\xc0\x01\x00'
        put 'RIFF\x1a\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x10\x00\x00\x00\x07\x00\x00\x04\x00\x00' ;;
    redaction)
        # First byte: 0 JSON body, 1 sniffed body, 2 form body, 3 headers, 4 URL.
        put '\x00{"user":"ann","password":"hunter2","nested":[{"token":{"a":1}},{"api_key":null}]}'
        put '\x00[{"pass\\u0077ord":"x","Secret":true,"refresh_token":1.5e10}]'
        put '\x01 \n{"a":"\\"quoted\\\\","id_token":["x",{"k":"\\ud83d\\ude00"}],"b":-0.0e-1}'
        put '\x01{"client_secret"  :  "x" , "ok":false,"private_key":{}}'
        put '\x02user=ann&password=hunter2&pass%77ord=x&to+ken=y&token&=&&api_key=1'
        put '\x03Authorization: Bearer x\nCookie: a=b\nX-Other: y\nset-cookie: z'
        put '\x04https://user:secret@example.com:8080/p?token=abc&x=1&Sig=2#frag'
        put '\x04http://a.b/?password=%41%42&api_key&X-Amz-Signature=s' ;;
    urlfilter)
        put 'i*.example.com\neapi-v?.example.com\nIr^https://[^/]+/v[0-9]+/\nE*/health\nhttps://api.example.com/v1/users'
        put 'i*a*b*c*?\nabcabcabcabc'
        put 'Er/health$\nIr(?i)ORDERS\nhttps://x.y/orders'
        put 'e**?*\nE*\xc3\xa9*\nhttps://\xc3\x89t\xc3\xa9.example/'
        put 'i?*\n' ;;
    archive)
        cp Fixtures/hostile-archives/*.lsarchive "$dir/" ;;
    httprequest)
        # First byte: low 5 bits the size of the pieces the head arrives in (0: at once), bit 5
        # the limits (clear: small ones the fuzzer reaches; set: the defaults).
        put '\x00GET / HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n'
        put '\x03GET /api/messages?level=error&q=a%20b HTTP/1.1\r\nHost: a\r\nConnection: close\r\nCookie: k=v\r\n\r\nGET / HTTP/1.1\r\n'
        put '\x21\r\nHEAD /x HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n'
        put '\x01GET / HTTP/1.1\r\nHost: a\r\nX: \xc3\xa9\xff\t v \r\n\r\n'
        put '\x05POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n'
        put '\x02GET / HTTP/1.1\r\nHost: a\r\nX: 1\r\n folded\r\n\r\n' ;;
    consolepath)
        # A request path, still percent-encoded, in FuzzEntry+ConsolePaths.swift's tree.
        put '/'
        put 'sub/deeper/d.json'
        put 'b%20c.txt'
        put 'caf%C3%A9.txt'
        put '%252e%252e'
        put 'sub/up'
        put 'out-dir/secret.txt'
        put '../secret/secret.txt'
        put 'sub/./deeper/../n.txt' ;;
    cli)
        put '2026-03-01T12:30:00.250+05:30\nmessages\n--since\n1h\n--level\nerror...critical\n-n\n20'
        put '15m\n--json\n--\n-x'
        put 'yesterday\n--limit=5\n--label\napp\n--utc\n--no-color'
        put '2026-02-29 23:59:59,999Z\n-h'
        put '9999-12-31T23:59:60-23:59\n--since=now' ;;
    esac
    if [ -d "Fixtures/fuzz/$target" ]; then cp Fixtures/fuzz/"$target"/* "$dir/" 2>/dev/null || true; fi
}

max_len() {
    case "$1" in
    archive) echo 262144 ;;
    imagesize) echo 2048 ;;
    *) echo 4096 ;;
    esac
}

status=0
SUMMARY="${FUZZ_SUMMARY:-$WORK/summary.tsv}"  # two runs side by side each give their own
printf 'target\texecutions\texec/s\tcov\tft\tcorpus\tcrashes\n' > "$SUMMARY"
for target in "${TARGETS[@]}"; do
    build_target "$target"
    seed "$target"
    corpus="$WORK/corpus/$target"; artifacts="$WORK/artifacts/$target"; log="$WORK/logs/$target.log"
    mkdir -p "$corpus" "$artifacts"
    touch "$log.start"
    echo "== fuzzing $target for ${SECONDS_PER_TARGET}s (log: $log)"
    set +e
    # ASan's leak check is off: the library's caches (statement caches, shared encoders) live for
    # the process, which LeakSanitizer reports at exit though nothing leaks per input.
    # Swift's own backtracer is off too: it reads the stack in ways ASan reports as errors.
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 \
    $NICE "$WORK/bin/$target" -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
        -max_len="$(max_len "$target")" -print_final_stats=1 -artifact_prefix="$artifacts/" \
        "$corpus" "$WORK/seeds/$target" > "$log" 2>&1
    rc=$?
    set -e
    executions=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
    last=$(grep -E '^#[0-9]+' "$log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' <<<"$last" | grep -o '[0-9]*' || true)
    ft=$(grep -o 'ft: [0-9]*' <<<"$last" | grep -o '[0-9]*' || true)
    files=$(find "$corpus" -type f | wc -l)
    crashes=$(find "$artifacts" -type f -newer "$log.start" | wc -l)
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$target" "${executions:-?}" "${speed:-?}" "${cov:-?}" "${ft:-?}" "$files" "$crashes" >> "$SUMMARY"
    echo "   $target: ${executions:-?} executions, ${speed:-?} exec/s, cov ${cov:-?} ft ${ft:-?}, corpus $files, crashes $crashes"
    if [ "$rc" -ne 0 ] || [ "$crashes" -gt 0 ]; then
        status=1
        grep -E 'fuzz finding|ERROR: |SUMMARY: |Fatal error|Test unit written' "$log" | head -8 | sed 's/^/   /'
        find "$artifacts" -type f -newer "$log.start" | sed 's/^/   reproducer: /'
        echo "   replay: $WORK/bin/$target <reproducer>; minimise: $WORK/bin/$target -minimize_crash=1 -runs=10000 <reproducer>"
    fi
done
echo "== summary ($SUMMARY)"
column -t -s "$(printf '\t')" "$SUMMARY"
exit $status
