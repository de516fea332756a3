#!/usr/bin/env bash
# Builds Attune's container image, with no container daemon, from a built `attune` binary. The
# image holds the binary, the shared libraries it loads (as `ldd` resolves them, with the
# dynamic loader), the CA bundle of the build machine (for HTTPS to Prometheus), its tz database
# (for schedule time zones) and a passwd and group entry for the non-root user it runs as (65532). It has no shell and no package
# manager. The image is made with umoci (docs/image.md says why), and the output is an OCI
# archive: a tar of the OCI image layout, tagged with the binary's version.
#
#   scripts/build-image.sh [--binary PATH] [--output DIR]
#
# Defaults: build/release/attune (built when missing), output build/image/. Writes
# DIR/attune-<version>.oci.tar and prints its path on the last line.
set -euo pipefail
cd "$(dirname "$0")/.."

binary=build/release/attune
output=build/image
while (($#)); do
  case "$1" in
    --binary) binary=$2; shift 2 ;;
    --output) output=$2; shift 2 ;;
    *) echo "build-image: unknown argument $1" >&2; exit 2 ;;
  esac
done

if ! command -v umoci >/dev/null 2>&1; then
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get install -y -q --no-install-recommends umoci
fi
if [[ ! -x "$binary" ]]; then
  cmake --preset release && cmake --build --preset release --target attune
fi

version=$("$binary" version | awk 'NR == 1 {print $2}')
[[ -n "$version" ]] || { echo "build-image: $binary version printed no version" >&2; exit 1; }
mkdir -p "$output"
output=$(realpath "$output")
work=$(mktemp -d "$output/.work.XXXXXX")
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

# The root filesystem: the binary, then every library it loads at the path it is loaded from.
rootfs=$work/rootfs
install -D -m 0755 "$binary" "$rootfs/attune"
ldd "$binary" | awk '/=> \// {print $3} /^[ \t]*\/[^ ]+ \(/ {print $1}' | sort -u | while read -r lib; do
  real=$(realpath "$lib")
  install -D -m 0644 "$real" "$rootfs$real"
  if [[ "$lib" != "$real" ]]; then
    mkdir -p "$rootfs$(dirname "$lib")"
    ln -sf "$real" "$rootfs$lib"
  fi
done
# /lib64 and /lib are symlinks into /usr on Debian; the loader's path must resolve in the image.
interp=$(ldd "$binary" | awk '/^[ \t]*\/[^ ]+ \(/ {print $1}')
if [[ -n "$interp" && ! -e "$rootfs$interp" ]]; then
  mkdir -p "$rootfs$(dirname "$interp")"
  ln -sf "$(realpath "$interp")" "$rootfs$interp"
fi
chmod 0755 "$rootfs"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.* 2>/dev/null || true
if [[ -f /etc/ssl/certs/ca-certificates.crt ]]; then
  install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$rootfs/etc/ssl/certs/ca-certificates.crt"
fi
# The tz database, for the time zones of updateStrategy.schedule (docs/schedule.md); the
# "right/" (leap-second) variants are left out.
if [[ -d /usr/share/zoneinfo ]]; then
  mkdir -p "$rootfs/usr/share"
  cp -a /usr/share/zoneinfo "$rootfs/usr/share/zoneinfo"
  rm -rf "$rootfs/usr/share/zoneinfo/right"
fi
install -d -m 0755 "$rootfs/etc" "$rootfs/tmp"
printf 'root:x:0:0:root:/:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/:/sbin/nologin\n' \
  >"$rootfs/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$rootfs/etc/group"
chmod 0644 "$rootfs/etc/passwd" "$rootfs/etc/group"

# The image: an empty one, unpacked without root, filled with the root filesystem, repacked as
# one layer, then configured.
layout=$work/layout
umoci init --layout "$layout"
umoci new --image "$layout:$version"
umoci unpack --rootless --image "$layout:$version" "$work/bundle" >/dev/null
cp -a "$rootfs/." "$work/bundle/rootfs/"
umoci repack --image "$layout:$version" --history.created_by "scripts/build-image.sh" "$work/bundle"
umoci config --image "$layout:$version" \
  --config.user 65532:65532 \
  --config.entrypoint /attune \
  --config.cmd controller \
  --config.workingdir / \
  --config.env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
  --config.label "org.opencontainers.image.title=attune" \
  --config.label "org.opencontainers.image.version=$version" \
  --config.label "org.opencontainers.image.description=Attune: in-place right-sizing of pod CPU and memory" \
  --architecture amd64 --os linux \
  --history.created_by "scripts/build-image.sh config"
umoci gc --layout "$layout"

archive=$output/attune-$version.oci.tar
tar --sort=name --owner=0 --group=0 --numeric-owner -C "$layout" -cf "$archive.tmp" .
mv "$archive.tmp" "$archive"
size=$(du -h "$archive" | cut -f1)
echo "build-image: attune $version, $(find "$rootfs" -type f | wc -l) files, $size"
echo "$archive"
