#!/usr/bin/env bash
# bench/peers/fetch.sh DEST: clones the public peers of bench/peers/peers.txt into DEST/<source>
# (dasp, speck, opsparse, nsparse), each at the commit our patches were made against; a folder
# already there is only checked out at that commit. Needs git and the network; DEST stays outside
# the repository, or in an ignored folder (.device/peers-src for scripts/gpu-check.sh's peers stage).
set -euo pipefail
dest=${1:?usage: bench/peers/fetch.sh DEST}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dest"
grep -v '^#' "$here/peers.txt" | awk 'NF { print $2, $3, $4, $5 }' | sort -u |
  while read -r src repo branch commit; do
    if [ ! -d "$dest/$src/.git" ]; then
      git clone --quiet --branch "$branch" "https://github.com/$repo.git" "$dest/$src"
    fi
    git -C "$dest/$src" checkout --quiet "$commit"
    echo "$src: $repo @ $(git -C "$dest/$src" rev-parse --short HEAD)"
  done
