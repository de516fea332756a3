#!/usr/bin/env bash
# Installs every Debian package Attune needs to build and test. Idempotent: when everything is
# present it changes nothing; otherwise it runs `apt-get update` once and installs what is missing.
#   scripts/setup.sh          build + test dependencies
#   scripts/setup.sh --fuzz   also clang-16 and libFuzzer (for the `fuzz` preset)
set -euo pipefail

packages=(
  # toolchain
  g++ cmake ninja-build ccache pkg-config git lld
  # formatting and static analysis
  clang-format clang-tidy-16
  # libraries (see docs/dependencies in README)
  libsimdjson-dev nlohmann-json3-dev libyaml-cpp-dev libcli11-dev libspdlog-dev libfmt-dev
  zlib1g-dev libssl-dev libcurl4-openssl-dev openssl
  # tests and benchmarks
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  # real peers in integration tests: Prometheus server and promtool; libcrypt's bcrypt hashes
  # the basic-auth password of a Prometheus web config (tests/support/prometheus)
  prometheus libcrypt-dev
  # the container image (scripts/build-image.sh) and its test
  umoci
)
if [[ "${1:-}" == "--fuzz" ]]; then
  packages+=(clang-16 libclang-rt-16-dev)
fi

# kubectl for the tests against `attune sim serve`: Debian's kubernetes-client, only when no
# kubectl is on PATH (a newer one installed otherwise is kept; the resize test needs 1.32+).
if ! command -v kubectl >/dev/null 2>&1; then
  packages+=(kubernetes-client)
fi

missing=()
# grep without -q reads all of its input: with -q it may stop first, and under pipefail the
# writer's SIGPIPE would then count as "not installed".
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" > /dev/null; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q
$sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
