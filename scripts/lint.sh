#!/usr/bin/env bash
# Runs clang-tidy (the short check list in .clang-tidy) over every source file under src/, using
# the compile commands of a configured build (default: build/dev). Fails on any finding.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/dev}"
tidy=$(command -v clang-tidy-16 || command -v clang-tidy)
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  echo "lint: $build/CMakeCache.txt missing; configure that build first" >&2
  exit 2
fi
# A unity build's compile commands name its batches, not the files in them: clang-tidy reads the
# commands of a configuration of the same build with every file on its own (configured only,
# never built; its directory sits beside the build's).
commands="$build-files"
cached() { sed -n "s/^$1:[A-Z]*=//p" "$build/CMakeCache.txt"; }
cmake -S . -B "$commands" -G Ninja -DCMAKE_CXX_COMPILER="$(cached CMAKE_CXX_COMPILER)" \
  -DCMAKE_BUILD_TYPE="$(cached CMAKE_BUILD_TYPE)" -DATTUNE_UNITY_BATCH=1 >"$commands.log" 2>&1 || {
  cat "$commands.log" >&2
  exit 2
}
# clang < 19 hides libstdc++'s <expected> unless told that concepts are complete (see
# cmake/AttuneTargets.cmake); -std=c++2b is clang-16's spelling of C++23.
mapfile -t files < <(git ls-files --cached --others --exclude-standard 'src/*.cc' 2>/dev/null || find src -name '*.cc')
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
printf '%s\n' "${files[@]}" | xargs -P2 -n4 "$tidy" -p "$commands" --quiet \
  --extra-arg=-std=c++2b --extra-arg=-U__cpp_concepts --extra-arg=-D__cpp_concepts=202002L \
  --extra-arg=-Wno-builtin-macro-redefined --extra-arg=-Wno-unknown-warning-option \
  >"$out" 2>&1 || status=$?
grep -v -E '^[0-9]+ warnings? generated|^Suppressed [0-9]+ warnings|^Use -header-filter' "$out" || true
if ((status != 0)); then
  echo "lint: clang-tidy reported problems" >&2
  exit 1
fi
echo "lint: clang-tidy clean over ${#files[@]} files"
