#!/usr/bin/env bash
# Builds the `dev` preset and runs every test: source checks, then all ctest suites
# (unit, integration, fuzz-corpus replays). Prints ctest's summary.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/check-source.sh
cmake --preset dev
cmake --build --preset dev
bash scripts/lint.sh build/dev
ctest --preset dev -j2
