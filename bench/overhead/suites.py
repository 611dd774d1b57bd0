# bench/overhead/suites.py: the matrix suites of `spx bench` for the Python benchmarks beside it: the built-in default suite (read from tools/cmd_bench.c, where it is defined once) and suite files such as bench/suites/large.txt (one source a line: a gen: spec or a path relative to the repository root; '#' starts a comment).
import os
import re

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def default_suite():
    """The sources of `spx bench`'s built-in default suite (tools/cmd_bench.c's default_suite[])."""
    path = os.path.join(REPO, "tools", "cmd_bench.c")
    with open(path) as f:
        m = re.search(r"default_suite\[\]\s*=\s*\{(.*?)\bNULL\b", f.read(), re.S)
    srcs = re.findall(r'"([^"]+)"', m.group(1)) if m else []
    if not srcs:
        raise RuntimeError(f"{path}: no default_suite[] found")
    return srcs


def read_suite(path):
    """The sources of a suite file, as `spx bench --suite` reads them."""
    srcs = []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                srcs.append(line)
    return srcs


def suite(name):
    """'default' (the built-in suite) or a suite file's path: its sources."""
    return default_suite() if name == "default" else read_suite(name)
