#!/usr/bin/env bash
# Builds the `asan` preset (Debug + AddressSanitizer + UndefinedBehaviorSanitizer) and runs every
# test under it: source checks, clang-tidy, then all ctest suites (unit, fuzz-corpus replays,
# integration). Prints each ctest run's summary.
#
# The integration tests spend most of their time waiting in real time on the processes they
# drive (`attune sim serve`, the controller, Prometheus, kubectl: an end-to-end test uses about
# a tenth of a core), so they run in the background, several at once, while lint and the unit
# tests use the CPU at a lower priority. Their output is printed when they end.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/check-source.sh

# A fresh asan tree takes about 11 GiB; a full disk otherwise shows up only as a linker crash
# ("No space left on device", "Bus error") in the middle of the build, so say it first.
read -r free_kib mount < <(df -Pk . | awk 'NR == 2 { print $4, $6 }')
if [[ ! -d build/asan ]] && ((free_kib < 12 * 1024 * 1024)); then
  echo "test.sh: only $((free_kib / 1024 / 1024)) GiB free on $mount," \
    "and a fresh asan build needs about 11 GiB: the build may fail for want of space" >&2
fi
cmake --preset asan
cmake --build --preset asan

log=build/asan/integration-tests.log
ctest --preset asan -L integration -j4 >"$log" 2>&1 &
integration=$!
trap 'kill "$integration" 2>/dev/null || true' INT TERM

status=0
nice -n 10 bash scripts/lint.sh build/asan || status=1
nice -n 10 ctest --preset asan -L 'unit|fuzz' -j2 || status=1
echo "test.sh: waiting for the integration tests (log: $log)"
wait "$integration" || status=1
cat "$log"
if ((status != 0)); then
  echo "test.sh: FAILED (see the output above)" >&2
fi
exit "$status"
