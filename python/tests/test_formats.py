# python/tests/test_formats.py: spx.formats() against the registry: every dict's keys and value types, where CUDA plans build their layout (builds_on_device, device_algos) in CUDA and CPU-only builds, and the same facts as `spx formats --json` of the build tree's CLI.
import json
import os
import subprocess

import pytest

import spx

KEYS = {"name", "summary", "algos", "cpu", "cuda", "baseline", "available", "why_unavailable", "builds_on_device",
        "device_algos"}
FLAGS = ("cpu", "cuda", "baseline", "available", "builds_on_device")


def by_name():
    """spx.formats() keyed by format name."""
    return {f["name"]: f for f in spx.formats()}


def cli_json():
    """`spx formats --json` of the CLI built beside the staged module (<build>/spx for
    <build>/python/spx); a skip when there is none (an installed package: pip_check.sh)."""
    build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(spx.__file__))))
    exe = os.path.join(build, "spx")
    if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
        pytest.skip(f"no spx CLI beside the module ({exe}): not a build tree")
    out = subprocess.run([exe, "formats", "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_every_format_has_the_keys_and_types():
    fs = spx.formats()
    assert fs and len({f["name"] for f in fs}) == len(fs)
    for f in fs:
        assert set(f) == KEYS, f["name"]
        for k in FLAGS:
            assert isinstance(f[k], bool), (f["name"], k)
        assert isinstance(f["algos"], list) and f["algos"], f["name"]
        dev = f["device_algos"]
        assert isinstance(dev, list) and all(isinstance(a, str) for a in dev), f["name"]
        assert set(dev) <= set(f["algos"]), f["name"]
        assert bool(dev) == f["builds_on_device"], f["name"]
        assert not f["builds_on_device"] or f["cuda"], f["name"]  # a device build is a CUDA plan's


@pytest.mark.skipif(not spx.cuda_compiled(), reason="CPU-only build: test_cpu_only_build_builds_on_the_host")
def test_cuda_build_device_algos():
    f = by_name()
    csr, ehyb = f["csr"], f["ehyb"]
    assert csr["builds_on_device"] and csr["device_algos"] == csr["algos"]  # every algorithm
    assert "auto" in csr["device_algos"]
    # ehyb builds on the device only with its data-parallel partitioner (and auto, as it)
    assert ehyb["builds_on_device"] and ehyb["device_algos"] == ["auto", "voronoi"]
    assert {"metis", "bfs", "grow"} <= set(ehyb["algos"]) - set(ehyb["device_algos"])


@pytest.mark.skipif(spx.cuda_compiled(), reason="CUDA build: test_cuda_build_device_algos")
def test_cpu_only_build_builds_on_the_host():
    for f in spx.formats():
        assert f["builds_on_device"] is False and f["device_algos"] == [], f["name"]


def test_same_facts_as_the_cli():
    cli = cli_json()
    assert cli["cuda_compiled"] == int(spx.cuda_compiled())
    py = spx.formats()
    assert [f["name"] for f in py] == [c["name"] for c in cli["formats"]]
    for f, c in zip(py, cli["formats"]):
        for k in FLAGS:
            assert type(c[k]) is int and f[k] == bool(c[k]), (f["name"], k)
        for k in ("summary", "algos", "why_unavailable"):
            assert f[k] == c[k], (f["name"], k)
        # the JSON's device_algos: null for every algorithm (or none, when it builds on the host)
        every = c["device_algos"] if c["device_algos"] is not None else c["algos"]
        assert f["device_algos"] == (every if c["builds_on_device"] else []), f["name"]
