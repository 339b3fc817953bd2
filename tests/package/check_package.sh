#!/usr/bin/env bash
# The Dockerfile, without a Docker engine: its build stage's command (make package, here on
# the already-built tree), then its runtime stage's RUN lines, as written, in a bare Debian 12
# made by debootstrap (what `FROM debian:12` is), then both binaries' --version there.
# usage: check_package.sh SOURCE_DIR BUILD_DIR WORK_DIR   (as root: debootstrap and chroot)
set -euo pipefail
src=$1 build=$2 work=$3

(cd "$build" && cpack -G DEB >/dev/null)
deb=$(ls "$build"/stampede_*.deb)
echo "package: $(basename "$deb"), Depends: $(dpkg-deb -f "$deb" Depends)"

mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
debootstrap --variant=minbase bookworm "$work/root" "${mirror:-http://deb.debian.org/debian}" \
  >"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log"; exit 1; }

# The runtime stage: from its FROM to the end; COPY --from=build brings the .deb to /tmp.
stage=$(sed -n '/^FROM debian:12$/,$p' "$src/Dockerfile")
grep -q '^COPY --from=build /build/stampede_\*.deb /tmp/$' <<<"$stage"
cp "$deb" "$work/root/tmp/"
# Each RUN instruction with its continuation lines, run by the image's shell.
awk '/^RUN /{cmd=substr($0,5); while (cmd ~ /\\$/ && (getline line) > 0) {sub(/\\$/,"",cmd); cmd=cmd line} print cmd}' \
  <<<"$stage" | while IFS= read -r run; do
  echo "RUN $run"
  DEBIAN_FRONTEND=noninteractive chroot "$work/root" /bin/sh -c "$run"
done
chroot "$work/root" loadgen --version
chroot "$work/root" fakeprovider --version
