#!/usr/bin/env bash
# Builds the tests with a sanitizer and runs the whole suite under it, then prints the wall time
# and the suite's summary line. The sanitized build has a scratch directory of its own
# (.build/tsan, .build/asan), so it neither rebuilds nor disturbs the usual .build.
#
#   Scripts/sanitize.sh thread     ThreadSanitizer, with Scripts/tsan-suppressions.txt
#   Scripts/sanitize.sh address    AddressSanitizer and LeakSanitizer, with Scripts/asan-suppressions.txt
#                                  and Scripts/lsan-suppressions.txt
#
# The children the tests start (LogStoreTestHelper, the logstore binary) come from the same
# sanitized build and inherit the options below. LOGSTORE_SANITIZER tells the few tests that
# cannot mean anything under a sanitizer to skip, saying why; LOGSTORE_TIME_SCALE stretches every
# time bound of the tests (Tests/LogStoreTests/Support/TimeScale.swift) by the sanitizer's slowdown,
# 4 for address and 8 for thread, unless already set. LeakSanitizer checks each process that exits
# normally (the test process and every child that returns or calls exit); children killed with
# SIGKILL by design (crash trials) never run it, as SIGKILL cannot be caught.
# It runs at nice 5: the machine is shared. Extra arguments go to `swift test` (e.g. --filter).
set -euo pipefail
cd "$(dirname "$0")/.."

sanitizer="${1:-}"
case "$sanitizer" in
    thread) scratch=.build/tsan scale=8 ;;
    address) scratch=.build/asan scale=4 ;;
    *)
        echo "usage: Scripts/sanitize.sh thread|address [swift test arguments]" >&2
        exit 2
        ;;
esac
shift

export LOGSTORE_SANITIZER="$sanitizer"
export LOGSTORE_TIME_SCALE="${LOGSTORE_TIME_SCALE:-$scale}"
if [ "$sanitizer" = thread ]; then
    # Swift Testing starts every test at once; under TSan the ~300 store writer threads that makes
    # hang the whole run in the Swift runtime's swift_once (Reliability/sanitizers.md, finding 2).
    # At most 8 test cases at a time keeps it to a few dozen threads.
    export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH:-8}"
fi
# TSan goes on after a report, so one run lists them all; a process that printed one exits 66,
# which fails the run. ASan stops at its first report (it cannot recover) with a non-zero exit.
export TSAN_OPTIONS="suppressions=$PWD/Scripts/tsan-suppressions.txt:second_deadlock_stack=1${TSAN_OPTIONS:+:$TSAN_OPTIONS}"
export ASAN_OPTIONS="suppressions=$PWD/Scripts/asan-suppressions.txt${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export LSAN_OPTIONS="suppressions=$PWD/Scripts/lsan-suppressions.txt${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

start=$(date +%s)
log="$scratch/sanitize-test.log"
mkdir -p "$scratch"
nice -n 5 swift build --build-tests --sanitize="$sanitizer" --scratch-path "$scratch" 2>&1 \
    | grep -E "error|warning:|Build complete" | grep -v "Cannot export local symbol '__asan" | tail -30
built=$(date +%s)

status=0
nice -n 5 swift test --skip-build --sanitize="$sanitizer" --scratch-path "$scratch" "$@" >"$log" 2>&1 || status=$?
end=$(date +%s)

# Every sanitizer report, and the failures, from the full log (kept in $log).
grep -E "WARNING: ThreadSanitizer|ERROR: AddressSanitizer|ERROR: LeakSanitizer|SUMMARY: (Thread|Address|Leak)Sanitizer|✘ Test .* failed|recorded an issue" "$log" \
    | sort | uniq -c | sort -rn | head -40 || true
grep -E "Test run with [0-9]+ tests" "$log" | tail -1 || tail -5 "$log"
printf 'sanitize=%s (time scale %s): build %d s, tests %d s, wall %d min %d s, exit %d (log: %s)\n' \
    "$sanitizer" "$LOGSTORE_TIME_SCALE" $((built - start)) $((end - built)) $(((end - start) / 60)) $(((end - start) % 60)) "$status" "$log"
exit "$status"
