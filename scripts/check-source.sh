#!/usr/bin/env bash
# Source checks that CI enforces:
#  1. formatting: every C++ file matches .clang-format (prints the files that drift);
#  2. time: no direct clock reads or sleeps outside src/core/clock*;
#  3. purity: the pure modules (stats, recommend, safety, rollout, webhook, hpa) include no I/O interface
#     (api/cluster_api.h, metrics/metrics_source.h).
set -uo pipefail
cd "$(dirname "$0")/.."

status=0
mapfile -t files < <(git ls-files --cached --others --exclude-standard '*.cc' '*.h' 2>/dev/null || find src tests bench -name '*.cc' -o -name '*.h')
drift=()
for f in "${files[@]}"; do
  [[ -f "$f" ]] || continue
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then drift+=("$f"); fi
done
if ((${#drift[@]} > 0)); then
  echo "check-source: formatting drift (run clang-format -i):"
  printf '  %s\n' "${drift[@]}"
  status=1
fi

pattern='system_clock::now|steady_clock::now|high_resolution_clock::now|sleep_for|sleep_until|[^_a-zA-Z.>:]time\(|[^_a-zA-Z]usleep\(|[^_a-zA-Z.]sleep\(|gettimeofday|clock_gettime'
hits=$(grep -rnE "$pattern" src tests bench --include='*.cc' --include='*.h' | grep -v '^src/core/clock' || true)
if [[ -n "$hits" ]]; then
  echo "check-source: direct clock reads or sleeps outside src/core/clock* (inject a Clock):"
  echo "$hits"
  status=1
fi

io=$(grep -rnE '#include "(api/cluster_api|metrics/metrics_source)\.h"' \
  src/stats src/recommend src/safety src/rollout src/webhook src/hpa --include='*.cc' --include='*.h' || true)
if [[ -n "$io" ]]; then
  echo "check-source: pure modules include an I/O interface (move the type they need to api/):"
  echo "$io"
  status=1
fi

if ((status == 0)); then echo "check-source: ${#files[@]} files formatted; no direct clock use"; fi
exit $status
