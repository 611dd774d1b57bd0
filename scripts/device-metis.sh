#!/usr/bin/env bash
# scripts/device-metis.sh: puts METIS (Debian's libmetis5 and libmetis-dev, unpacked with
# dpkg -x) into .device/metis, the ignored folder scripts/gpu-check.sh looks in, so that a GPU
# machine without package access builds the ehyb format: carry .device (or .device/metis)
# with the tree. Needs apt-get download (package access) here.
set -eu
cd "$(dirname "$0")/.."
dest=.device/metis
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download libmetis5 libmetis-dev >/dev/null 2>&1)
mkdir -p "$dest"
for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$dest"; done
ls "$dest"/usr/include/metis.h "$dest"/usr/lib/*/libmetis.so >/dev/null
echo "METIS unpacked into $dest"
