#!/usr/bin/env bash
# python/tests/pip_check.sh: the README's install path, checked: `pip install .` into a fresh venv (system site packages, so Debian's numpy and scipy are seen; CPU-only build), then the pytest suite against the installed package, away from the source tree. Exits 77 (a skip) when python3 has no venv or scikit-build-core cannot be fetched from PyPI.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
py=${SPX_PIP_PYTHON:-/usr/bin/python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if ! "$py" -m venv --system-site-packages "$work/venv" >"$work/venv.log" 2>&1; then
  tail -3 "$work/venv.log"
  echo "skipped: $py cannot make a venv (scripts/deps.sh installs python3-venv)"
  exit 77
fi
pip=("$work/venv/bin/pip" --disable-pip-version-check)
# the build backend first, alone: the only step that needs the network
if ! "${pip[@]}" install -q --retries 1 --timeout 15 'scikit-build-core>=0.10' >"$work/pypi.log" 2>&1; then
  tail -3 "$work/pypi.log"
  echo "skipped: scikit-build-core could not be installed from PyPI"
  exit 77
fi
"${pip[@]}" install -q --no-build-isolation --config-settings=cmake.define.SPX_ENABLE_CUDA=OFF "$repo"
cd "$work"
export PYTHONDONTWRITEBYTECODE=1
"$work/venv/bin/python" -c "import spx; assert spx.__file__.startswith('$work'), spx.__file__; print('spx', spx.__version__, 'installed at', spx.__file__)"
"$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$repo/python/tests"
