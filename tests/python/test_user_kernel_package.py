"""A kernel of another project, through the installed CMake package (docs/your-kernel.md): the
build tree of PARLAB_BIN is installed into a temporary prefix, examples/cpp-triangular and
tests/package are built as outside projects with only find_package(parlab CONFIG), and their
binaries run: the kernel is listed, runs on every CPU executor at edge and odd sizes with valid
records and the one-worker result bit for bit, and hostile kernels fail each as parlab says."""
import json
import os
import shutil
import subprocess

import jsonschema
import pytest

from conftest import ROOT, SCHEMA
from test_install import build_dir_of

EXAMPLE = os.path.join(ROOT, "examples", "cpp-triangular")
HOSTILE = os.path.join(ROOT, "tests", "package")


def outside_env(**extra):
    """The environment of a person's shell: nothing points the binary at parlab's source or build
    tree (the conftest's ceilings cache and quick probes stay)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PARLAB_DATA_DIR", "PARLAB_BIN", "PARLAB_REFERENCE")}
    env.update(extra)
    return env


def build_outside(source, build, prefix):
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    for cmd in (["cmake", "-S", source, "-B", build, f"-DCMAKE_PREFIX_PATH={prefix}", *generator],
                ["cmake", "--build", build]):
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=outside_env())
        assert r.returncode == 0, " ".join(cmd) + "\n" + r.stdout + r.stderr


@pytest.fixture(scope="module")
def package(parlab_bin, tmp_path_factory):
    """(the example's binary, the hostile kernels' binary), built against a fresh install."""
    root = tmp_path_factory.mktemp("package")
    prefix = root / "prefix"
    r = subprocess.run(["cmake", "--install", build_dir_of(parlab_bin), "--prefix", str(prefix)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    for f in ("include/parlab/kernel.hpp", "lib/cmake/parlab/parlabConfig.cmake", "share/parlab/tsan.supp"):
        assert (prefix / f).is_file(), f
    build_outside(EXAMPLE, str(root / "triangular"), str(prefix))
    build_outside(HOSTILE, str(root / "hostile"), str(prefix))
    return str(root / "triangular" / "triangular"), str(root / "hostile" / "hostile_kernels")


def cpu_executors(binary):
    """Every CPU backend the binary lists as available: serial, threads, pool, tbb, openmp and each
    openmp-* schedule of this build."""
    r = subprocess.run([binary, "list", "backends"], capture_output=True, text=True, timeout=60, env=outside_env())
    assert r.returncode == 0, r.stderr
    names = [line.split()[0] for line in r.stdout.splitlines()[1:]
             if len(line.split()) > 2 and line.split()[1] == "cpu" and line.split()[2] == "available"]
    assert {"serial", "threads", "pool", "tbb", "openmp"} <= set(names), names
    assert any(n.startswith("openmp-") for n in names), names
    return names


def run(binary, out, *args, env=None):
    cmd = [binary, "run", "--out", str(out), "--reps", "3", "--quick", "--no-report", "--summary", "none", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env or outside_env())


def records_of(out):
    paths = [os.path.join(d, "results.json") for d, _, files in os.walk(out) if "results.json" in files]
    assert len(paths) == 1, paths
    doc = json.load(open(paths[0]))
    jsonschema.validate(doc, json.load(open(SCHEMA)))
    return doc["records"]


def test_the_kernel_is_listed_as_a_user_kernel(package):
    r = subprocess.run([package[0], "list", "kernels"], capture_output=True, text=True, timeout=60, env=outside_env())
    assert r.returncode == 0, r.stderr
    line = next(line for line in r.stdout.splitlines() if line.split()[:1] == ["triangular"])
    assert line.split()[1] == "own" and "rows" in line
    assert "pi" in r.stdout.split()  # parlab's own kernels stay


def test_every_executor_gives_the_one_worker_result(package, tmp_path):
    backends = cpu_executors(package[0])
    r = run(package[0], tmp_path, "-k", "triangular", "-b", ",".join(backends), "-t", "1,2,3", "-n", "1,17,1001")
    assert r.returncode == 0, r.stdout + r.stderr
    records = records_of(tmp_path)
    assert {x["backend"] for x in records} == set(backends)
    by_size = {}
    for x in records:
        assert x["status"] == "ok" and x["family"] == "own" and x["kind"] == "cpu", x
        assert "bit for bit" in x["validation"]["detail"], x["validation"]
        assert x["metrics"]["runs_deviating"] == 0
        assert x["metrics"]["result_one_worker"] == x["checksum"]
        assert x["work"]["flops"] == x["size"] * (x["size"] + 1) / 2
        by_size.setdefault(x["size"], set()).add(x["checksum"])
    # One result per size over every executor and thread count: (n-1) n (n+1) / 6.
    assert by_size == {n: {(n - 1) * n * (n + 1) / 6} for n in (1, 17, 1001)}
    assert {x["threads"] for x in records if x["backend"] == "threads"} == {1, 2, 3}


def test_records_carry_the_roof_share_and_the_workers(package, tmp_path):
    r = run(package[0], tmp_path, "-k", "triangular", "-b", "serial,threads,openmp-static", "-t", "1,2", "-n", "6000")
    assert r.returncode == 0, r.stdout + r.stderr
    for x in records_of(tmp_path):
        assert x["limit"]["roof"] in ("cpu_fma_f64_1", "cpu_fma_f64_all") and x["limit"]["fraction"] > 0, x["limit"]
        assert x["time_s"]["n"] == 3 and "rate" in x and x["rate"]["flops_per_s"] > 0
        if x["threads"] > 1:
            assert x["workers"]["count"] == x["threads"], x["workers"]
            assert 0 < x["workers"]["pop"]["load_balance"] <= 1, x["workers"]["pop"]


def test_a_kernel_whose_result_depends_on_its_history_fails_with_its_spread(package, tmp_path):
    r = run(package[1], tmp_path, "-k", "stateful", "-b", "serial,pool", "-t", "2", "-n", "64")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "FAILED" in r.stdout + r.stderr
    for x in records_of(tmp_path):
        assert x["status"] == "failed-validation", x
        assert "differ from the one-worker result" in x["validation"]["detail"]
        m = x["metrics"]
        assert m["runs_deviating"] == m["runs"] >= 3 and m["result_distinct"] == m["runs"]
        assert m["result_min"] > m["result_one_worker"]


def test_a_body_that_throws_and_a_check_that_fails_fail_their_records(package, tmp_path):
    r = run(package[1], tmp_path, "-k", "throwing,wrong", "-b", "serial,threads", "-t", "2", "-n", "33")
    assert r.returncode == 1, r.stdout + r.stderr
    records = records_of(tmp_path)
    throwing = [x for x in records if x["kernel"] == "throwing"]
    wrong = [x for x in records if x["kernel"] == "wrong"]
    assert throwing and wrong
    assert all(x["status"] == "error" and "item 16 is poisoned" in json.dumps(x) for x in throwing), throwing
    assert all(x["status"] == "failed-validation" and "wanted -1" in x["validation"]["detail"] for x in wrong)


def test_a_kernel_within_its_declared_tolerance_passes_and_says_so(package, tmp_path):
    r = run(package[1], tmp_path, "-k", "tolerant", "-b", "serial,threads,pool", "-t", "2", "-n", "1001")
    assert r.returncode == 0, r.stdout + r.stderr
    for x in records_of(tmp_path):
        assert x["status"] == "ok", x
        assert "within relative 1e-09 of the one-worker result" in x["validation"]["detail"]
        m = x["metrics"]
        assert m["runs_deviating"] == 0 and m["result_distinct"] > 1 and 0 < m["result_max"] - m["result_min"] < 1e-6


def test_a_malformed_kernel_is_refused_before_anything_runs(package, tmp_path):
    r = run(package[1], tmp_path, "-k", "stateful", "-b", "serial", "-n", "8",
            env=outside_env(PARLAB_TEST_MALFORMED="1"))
    assert r.returncode == 2, r.stdout + r.stderr
    assert "kernel 'no_setup': no setup function" in r.stderr
    assert not os.listdir(tmp_path)
