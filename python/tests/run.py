#!/usr/bin/env python3
# python/tests/run.py: ctest's entry to the pytest suite: runs python/tests against the module staged in BUILD/python (argv[1]); re-runs itself under /usr/bin/python3 when this interpreter lacks numpy, scipy or pytest (a pyenv or venv python first on PATH); exits 77, a skip, with the reason when none has them.
import os
import subprocess
import sys

NEEDED = "import numpy, scipy.sparse, pytest"
SYSTEM = "/usr/bin/python3"


def missing():
    """Why this interpreter cannot run the suite, or None."""
    try:
        exec(NEEDED)
    except ImportError as e:
        return str(e)
    return None


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: run.py BUILD_PYTHON_DIR [pytest arguments]")
    why = missing()
    if why and os.path.realpath(sys.executable) != os.path.realpath(SYSTEM) and os.access(SYSTEM, os.X_OK):
        if subprocess.run([SYSTEM, "-c", NEEDED], capture_output=True).returncode == 0:
            os.execv(SYSTEM, [SYSTEM] + sys.argv)
    if why:
        print(f"skipped: {why} (scripts/deps.sh installs python3-scipy and python3-pytest)")
        sys.exit(77)
    build = os.path.abspath(sys.argv[1])
    sys.dont_write_bytecode = True  # nothing written into the source tree
    os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    os.environ["PYTHONPATH"] = build + os.pathsep + os.environ.get("PYTHONPATH", "")
    sys.path.insert(0, build)
    import pytest
    here = os.path.dirname(os.path.abspath(__file__))
    extra = sys.argv[2:]
    paths = [] if any(not a.startswith("-") for a in extra) else [here]
    sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "--rootdir", here] + paths + extra))


if __name__ == "__main__":
    main()
