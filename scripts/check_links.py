#!/usr/bin/env python3
"""scripts/check_links.py: every relative link of the front-door documents resolves.

  check_links.py [FILE.md ...]

Checks the Markdown links and images `[text](target)` of README.md, docs/*.md, docs/formats/*.md,
bench/RESULTS.md and bench/results/README.md (or of the files given): a relative target must be
a file or folder of the repository, and its `#anchor`, when it names a Markdown file's heading,
one of that file's headings as GitHub spells anchors. Web addresses are not fetched. Exit 1
with one line per broken link (ctest docs_links_check).
"""
import glob
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = ["README.md", "docs/*.md", "docs/formats/*.md", "bench/RESULTS.md", "bench/results/README.md"]
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^()\s]+)\)")
FENCE = re.compile(r"^(```|~~~)")


def anchors(path):
    """The anchors of a Markdown file's headings (GitHub: lower case, punctuation but - and _
    dropped, spaces to hyphens, repeats numbered)."""
    seen, out = {}, set()
    fenced = False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if FENCE.match(line):
                fenced = not fenced
            m = None if fenced else re.match(r"#{1,6} +(.*?) *#* *$", line)
            if not m:
                continue
            text = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1))
            slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def links(path):
    """(line number, target) of every link outside code blocks and code spans."""
    fenced = False
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            if FENCE.match(line):
                fenced = not fenced
                continue
            if fenced:
                continue
            for m in LINK.finditer(re.sub(r"`[^`]*`", "", line)):
                yield no, m.group(1)


def check(path):
    """The broken links of one file, one line each."""
    bad = []
    for no, target in links(path):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
        rel = os.path.relpath(path, REPO)
        if not os.path.exists(dest):
            bad.append(f"{rel}:{no}: {target}: no such file")
        elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
            bad.append(f"{rel}:{no}: {target}: no heading #{anchor} in {os.path.relpath(dest, REPO)}")
    return bad


def main():
    """Checks the files given or the front-door documents; 1 when a link is broken."""
    files = sys.argv[1:] or sorted(p for g in DEFAULT for p in glob.glob(os.path.join(REPO, g)))
    bad = [line for f in files for line in check(os.path.abspath(f))]
    for line in bad:
        print(line, file=sys.stderr)
    print(f"check_links.py: {len(files)} files, {len(bad)} broken link(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
