#!/usr/bin/env bash
# The container image, built by scripts/build-image.sh from the `attune` binary under test, is
# unpacked from its OCI archive and run from its own root filesystem (chroot as root, or inside
# a user namespace otherwise): `attune version` prints the version the image is tagged with.
# Also checked: the configuration (non-root user 65532, entrypoint /attune), and that the root
# filesystem holds no shell and no package manager. Exit 77 (skipped) when umoci is missing.
#   image_test.sh SOURCE_DIR ATTUNE_BINARY
set -euo pipefail
source_dir=$1
binary=$2
if ! command -v umoci >/dev/null 2>&1; then
  echo "SKIPPED: umoci is not installed (bash scripts/setup.sh installs it)"
  exit 77
fi
work=$(mktemp -d /tmp/attune-image-test.XXXXXX)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
fail() { echo "FAILED: $*"; exit 1; }

archive=$(bash "$source_dir/scripts/build-image.sh" --binary "$binary" --output "$work/out" | tail -n 1)
version=$("$binary" version | awk 'NR == 1 {print $2}')
[[ "$archive" == "$work/out/attune-$version.oci.tar" ]] || fail "archive $archive, want attune-$version.oci.tar"

mkdir "$work/layout"
tar -C "$work/layout" -xf "$archive"
[[ -f "$work/layout/oci-layout" && -f "$work/layout/index.json" ]] || fail "not an OCI image layout"
grep -q "\"org.opencontainers.image.ref.name\":\"$version\"" "$work/layout/index.json" ||
  fail "index.json has no tag $version: $(cat "$work/layout/index.json")"
umoci unpack --rootless --image "$work/layout:$version" "$work/bundle" >/dev/null
rootfs=$work/bundle/rootfs

python3 - "$work/bundle/config.json" <<'PY' || fail "image configuration"
import json, sys
process = json.load(open(sys.argv[1]))["process"]
assert process["user"]["uid"] == 65532 and process["user"]["gid"] == 65532, process["user"]
assert process["args"][0] == "/attune", process["args"]
PY
for forbidden in bin/sh bin/bash usr/bin/sh usr/bin/bash bin/busybox usr/bin/apt usr/bin/dpkg \
  usr/bin/apt-get; do
  [[ ! -e "$rootfs/$forbidden" ]] || fail "the image holds /$forbidden"
done
others=$(cd "$rootfs" && find . -type f ! -path './attune' ! -path './usr/lib/*' ! -path './lib/*' \
  ! -path './etc/passwd' ! -path './etc/group' ! -path './etc/ssl/certs/ca-certificates.crt' \
  ! -path './usr/share/zoneinfo/*' | sort)
[[ -z "$others" ]] || fail "files besides the binary, its libraries, passwd, group, CA bundle and tz database: $others"

# A sanitized binary (the `asan` preset's, which scripts/test.sh builds) reads its options and
# looks for leaks through /proc, which the image's root does not have: it runs with a proc of its
# own mounted there, in new mount and PID namespaces (the unpacked copy gains an empty /proc; the
# image is unchanged).
run=(chroot)
# Not `ldd | grep -q`: grep would stop at the first match, ldd could then die of SIGPIPE, and
# under pipefail the test would run the sanitized binary without a proc of its own.
if [[ $(ldd "$binary") == *libasan* ]]; then
  mkdir -p "$rootfs/proc"
  run=(unshare --mount --fork --pid --mount-proc="$rootfs/proc" chroot)
fi
if [[ $(id -u) -eq 0 ]]; then
  out=$("${run[@]}" --userspec=65532:65532 "$rootfs" /attune version)
elif unshare -r true 2>/dev/null; then
  out=$(unshare -r "${run[@]}" "$rootfs" /attune version)
elif sudo -n true 2>/dev/null; then
  out=$(sudo -n "${run[@]}" --userspec=65532:65532 "$rootfs" /attune version)
else
  echo "SKIPPED: running from the image needs root, sudo or unprivileged user namespaces"
  exit 77
fi
[[ "$(head -n 1 <<<"$out")" == "attune $version" ]] || fail "attune version in the image printed: $out"
echo "image attune-$version.oci.tar: $(find "$rootfs" -type f | wc -l) files; in the image: $(head -n 1 <<<"$out")"
echo "1 passed, 0 failed"
