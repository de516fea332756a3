#!/usr/bin/env bash
# Builds the libFuzzer targets (the `fuzz` preset, clang-16) and fuzzes each one for a set time.
#
#   scripts/fuzz.sh [--seconds N] [--jobs J] [--only NAME]... [--no-build]
#
#  --seconds N  fuzzing time per target (default 600)
#  --jobs J     targets fuzzed at the same time (default 1); each uses one core
#  --only NAME  fuzz only this target (e.g. k8s_object); may be repeated
#  --no-build   skip setup and build, use the binaries in build/fuzz as they are
#
# The targets are every attune_fuzz_target() of tests/fuzz/CMakeLists.txt. Each one runs on
# build/fuzz/corpus-work/NAME: its seed corpus (tests/fuzz/corpus/NAME) merged into the inputs
# earlier runs kept there, and new inputs are added there (the seeds are never modified). A
# crash, leak, timeout or out-of-memory stops libFuzzer; its input is kept under
# build/fuzz/artifacts/NAME/ and the target is started again for the rest of its time (at most
# 10 restarts). Logs: build/fuzz/fuzz-logs/NAME.N.log. At the end one row per target is
# printed, and written to build/fuzz/fuzz-report.txt: run time, executions, the coverage of
# libFuzzer's last status line (cov: edges, ft: features), corpus size (seeds, then after the
# run) and the crash files this run left. Exits non-zero when a target left a crash file.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=600
jobs=1
only=()
build=1
while (($#)); do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --only) only+=("$2"); shift 2 ;;
    --no-build) build=0; shift ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "fuzz.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

mapfile -t targets < <(sed -n 's/^attune_fuzz_target(\([a-z0-9_]*\).*/\1/p' tests/fuzz/CMakeLists.txt)
if ((${#only[@]} > 0)); then
  for name in "${only[@]}"; do
    if ! printf '%s\n' "${targets[@]}" | grep -x "$name" > /dev/null; then
      echo "fuzz.sh: no fuzz target $name (have: ${targets[*]})" >&2
      exit 2
    fi
  done
  targets=("${only[@]}")
fi

out=build/fuzz
if ((build)); then
  bash scripts/setup.sh --fuzz
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz -j "${ATTUNE_BUILD_JOBS:-2}" \
    --target "${targets[@]/#/fuzz_}"
fi
mkdir -p "$out/corpus-work" "$out/artifacts" "$out/fuzz-logs"

# fuzz NAME: runs one target for $seconds, restarting after each finding; leaves its summary
# in $out/fuzz-logs/NAME.summary.
fuzz() {
  local name=$1
  local bin work artifacts logs start now left run=0 execs=0 rc n
  bin=$(find "$out/tests/fuzz" -maxdepth 1 -type f -name "fuzz_$name" | head -n 1)
  [[ -x "$bin" ]] || { echo "fuzz.sh: $out/tests/fuzz/fuzz_$name not built" >&2; return 1; }
  work="$out/corpus-work/$name"
  artifacts="$out/artifacts/$name/"
  logs="$out/fuzz-logs/$name"
  mkdir -p "$work" "$artifacts"
  cp -n tests/fuzz/corpus/"$name"/* "$work"/ 2>/dev/null || true
  rm -f "$logs".*.log "$logs.summary"
  touch "$logs.started"  # crash files newer than this are this run's
  start=$(date +%s)
  while :; do
    now=$(date +%s)
    left=$((seconds - (now - start)))
    ((left > 0 && run <= 10)) || break
    run=$((run + 1))
    rc=0
    "$bin" -max_total_time="$left" -print_final_stats=1 -timeout=30 -rss_limit_mb=2048 \
      -artifact_prefix="$artifacts" "$work" >"$logs.$run.log" 2>&1 || rc=$?
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs.$run.log" | tail -n 1)
    execs=$((execs + ${n:-0}))
    ((rc == 0)) && break
    if ((rc == 126 || rc == 127)); then  # the binary is being relinked: not a finding
      run=$((run - 1))
      sleep 5
      continue
    fi
    echo "fuzz.sh: $name: finding in run $run (exit $rc), see $logs.$run.log"
  done
  local cov ft seeds corpus crashes
  # The last status line of the last run that printed one.
  local i=$run stat=""
  while ((i >= 1)) && [[ -z "$stat" ]]; do
    stat=$(grep -hE '^#[0-9]+.*cov: [0-9]+ ft: [0-9]+' "$logs.$i.log" | tail -n 1 || true)
    i=$((i - 1))
  done
  cov=$(sed -n 's/.*cov: \([0-9]*\).*/\1/p' <<<"$stat")
  ft=$(sed -n 's/.*ft: \([0-9]*\).*/\1/p' <<<"$stat")
  seeds=$(find tests/fuzz/corpus/"$name" -type f | wc -l)
  corpus=$(find "$work" -type f | wc -l)
  crashes=$(find "$artifacts" -type f -newer "$logs.started" | wc -l)
  printf '%-20s %7s %12s %7s %7s %6s %7s %8s\n' "$name" "$(($(date +%s) - start))" "$execs" \
    "${cov:--}" "${ft:--}" "$seeds" "$corpus" "$crashes" >"$logs.summary"
}

running=0
for name in "${targets[@]}"; do
  if ((running >= jobs)); then
    wait -n || true
    running=$((running - 1))
  fi
  echo "fuzz.sh: fuzzing $name for ${seconds}s"
  fuzz "$name" &
  running=$((running + 1))
done
wait || true

report="$out/fuzz-report.txt"
{
  printf '%-20s %7s %12s %7s %7s %6s %7s %8s\n' target seconds executions cov ft seeds corpus crashes
  for name in "${targets[@]}"; do
    cat "$out/fuzz-logs/$name.summary" 2>/dev/null || printf '%-20s (did not run)\n' "$name"
  done
} | tee "$report"

status=0
for name in "${targets[@]}"; do
  if [[ -n "$(find "$out/artifacts/$name" -type f -newer "$out/fuzz-logs/$name.started" \
    2>/dev/null)" ]]; then
    echo "fuzz.sh: $name: new crash files in $out/artifacts/$name/"
    status=1
  fi
done
exit $status
