#!/usr/bin/env bash
# Runs clang-tidy (the short check list in .clang-tidy) over every source file under src/, using
# the compile commands of a configured build (default: build/dev). Fails on any finding.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/dev}"
tidy=$(command -v clang-tidy-16 || command -v clang-tidy)
if [[ ! -f "$build/compile_commands.json" ]]; then
  echo "lint: $build/compile_commands.json missing; configure that build first" >&2
  exit 2
fi
# clang-tidy reads what the compiler compiles: in a unity build, each batch of src/ files (which
# includes its sources by path, so that .clang-tidy's HeaderFilterRegex reports what is found in
# them) and the files compiled alone. The headers every file includes are then parsed once per
# batch, as the compiler does. Every file under src/ must be in one of them: a source that no
# target builds is reported rather than skipped.
mapfile -t units < <(python3 - "$build" <<'PY'
import json, os, re, subprocess, sys
build = os.path.realpath(sys.argv[1])
root = os.path.realpath(".")
src = os.path.join(root, "src") + os.sep
units, covered = [], set()
for entry in json.load(open(os.path.join(build, "compile_commands.json"))):
    path = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
    if path.startswith(os.path.join(build, "src") + os.sep):
        included = re.findall(r'^#include "([^"]+)"', open(path).read(), re.M)
        mine = [os.path.realpath(f) for f in included if os.path.realpath(f).startswith(src)]
        if not mine:
            continue
        covered.update(mine)
    elif path.startswith(src):
        covered.add(path)
    else:
        continue
    if path not in units:
        units.append(path)
listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard",
                         "src/*.cc"], capture_output=True, text=True).stdout.split()
missing = sorted(f for f in listed if os.path.realpath(f) not in covered)
for f in missing:
    print("MISSING " + f)
for u in units:
    print(u)
PY
)
status=0
for u in "${units[@]}"; do
  if [[ "$u" == MISSING\ * ]]; then
    echo "lint: ${u#MISSING } is compiled by no target of $build" >&2
    status=1
  fi
done
((status == 0)) || exit 2
files=$(git ls-files --cached --others --exclude-standard 'src/*.cc' | wc -l)
# clang < 19 hides libstdc++'s <expected> unless told that concepts are complete (see
# cmake/AttuneTargets.cmake); -std=c++2b is clang-16's spelling of C++23.
out=$(mktemp)
trap 'rm -f "$out"' EXIT
printf '%s\n' "${units[@]}" | xargs -P2 -n1 "$tidy" -p "$build" --quiet \
  --extra-arg=-std=c++2b --extra-arg=-U__cpp_concepts --extra-arg=-D__cpp_concepts=202002L \
  --extra-arg=-Wno-builtin-macro-redefined --extra-arg=-Wno-unknown-warning-option \
  >"$out" 2>&1 || status=$?
grep -v -E '^[0-9]+ warnings? generated|^Suppressed [0-9]+ warnings|^Use -header-filter' "$out" || true
if ((status != 0)); then
  echo "lint: clang-tidy reported problems" >&2
  exit 1
fi
echo "lint: clang-tidy clean over ${files} files (${#units[@]} translation units)"
