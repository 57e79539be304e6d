#!/usr/bin/env bash
# The 10-minute soak of RELIABILITY.md: builds logstore-bench in release and runs its steady soak
# (Sources/LogStoreBench/SteadySoak.swift) for MINUTES: 5,000 messages/s and 500 network tasks/s,
# paced in 10 ms ticks, into a store with a 128 MB size limit and a 2-minute age limit, swept by
# the store itself. Prints a report every 10 s and a verdict; exits non-zero when RSS grew more
# than 20 MB after the 60 s warm-up, the size went past the limit by more than 25 %, or any event
# was dropped or failed to commit.
# Usage: Scripts/soak.sh [MINUTES]    (default 10; on a shared machine: nice -n 5 Scripts/soak.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
minutes="${1:-10}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if ! swift build -c release --product logstore-bench >"$log" 2>&1; then
    grep -E "error" "$log" >&2 || cat "$log" >&2
    echo "soak: the build failed" >&2
    exit 2
fi
grep -E "warning:|Build complete" "$log" || true
"$(swift build -c release --show-bin-path)/logstore-bench" --steady-soak "$minutes"
