#!/usr/bin/env bash
# bench/overhead/run.sh [BUILD]: installs BUILD (default build/) into a scratch prefix, builds
# overhead.c against it and prints the C and the Python median per-call times (issue 16's
# overhead target: Python at most 5 us above C). Needs the Python module built in BUILD/python.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
export PKG_CONFIG_PATH=$tmp/prefix/lib/pkgconfig
read -r -a flags <<<"$(pkg-config --cflags --libs spx)"
cc -O2 -o "$tmp/overhead" "$here/overhead.c" "${flags[@]}" -Wl,-rpath,"$tmp/prefix/lib"
"$tmp/overhead"
py=python3
python3 -c 'import numpy' 2>/dev/null || py=/usr/bin/python3
"$py" "$here/overhead.py" "$build/python"
