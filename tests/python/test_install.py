"""parlab installs like any CMake tool: `cmake --install` puts the binary in bin/ and its data in
share/parlab/, the installed tree works when moved (it finds its data relative to itself, never
through the source tree), and `cpack -G DEB` makes a Debian package of the same files. Uses the
build tree of PARLAB_BIN (build/release in CI); the build tree's mirror of the reference runs is
checked in a build tree of its own, configured only."""
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, run_dir_of


def build_dir_of(parlab_bin):
    d = os.path.dirname(os.path.dirname(os.path.realpath(parlab_bin)))
    if not os.path.exists(os.path.join(d, "CMakeCache.txt")):
        pytest.fail(f"{parlab_bin} is not in a CMake build tree: cannot test its install")
    return d


def source_of(build):
    """The source tree a build tree was configured from (its CMakeCache.txt)."""
    with open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("CMAKE_HOME_DIRECTORY:"):
                return line.split("=", 1)[1].strip()
    pytest.fail(f"{build}/CMakeCache.txt names no source tree")


def reference_index(parlab_bin):
    """The reference index the build writes from the source tree's one index of committed runs
    (results/runs.json, through analysis/index.py), for the tree the binary was built from."""
    from analysis.index import read_index
    from analysis.index import reference_index as of_runs
    return of_runs(read_index(os.path.join(source_of(build_dir_of(parlab_bin)), "results", "runs.json")))


def clean_env(**extra):
    """The environment less every PARLAB_* variable: nothing may point the copy back at the tree."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PARLAB_")}
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def installed(parlab_bin, tmp_path_factory):
    """An install, moved elsewhere (the prefix it was installed to is removed)."""
    build = build_dir_of(parlab_bin)
    root = tmp_path_factory.mktemp("install")
    prefix = root / "prefix"
    r = subprocess.run(["cmake", "--install", build, "--prefix", str(prefix)], capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    moved = root / "moved"
    shutil.copytree(prefix, moved, symlinks=True)
    shutil.rmtree(prefix)
    return moved


def test_layout(installed):
    assert os.access(installed / "bin" / "parlab", os.X_OK)
    share = installed / "share" / "parlab"
    for name in ["analysis/plot.py", "analysis/compare.py", "analysis/compare_stats.py", "analysis/compare_report.py",
                 "analysis/writer.py", "analysis/__init__.py", "analysis/figures/__init__.py", "schema/results.schema.json", "suites/quick.json", "python/parlab_philox.py"]:
        assert (share / name).is_file(), name
    assert not (share / "interpreters").exists()  # only a build tree knows of other interpreters
    assert not any(p.is_symlink() for p in share.rglob("*")), "the install copies files, not links"
    # The installed README's links to docs/ resolve beside it.
    doc = installed / "share" / "doc" / "parlab"
    links = set(re.findall(r"\]\((docs/[\w.-]+\.md)\)", (doc / "README.md").read_text(encoding="utf-8")))
    assert links and all((doc / link).is_file() for link in links), sorted(links)


def reference_files(index):
    """What share/parlab/reference holds for this index: the index and each listed run's
    results.json, at the same relative paths (cmake/ParlabInstall.cmake)."""
    return sorted(["reference-runs.json"] + [os.path.join(os.path.normpath(r["path"]), "results.json")
                                             for r in index["runs"]])


def files_under(folder):
    return sorted(os.path.relpath(os.path.join(d, f), folder) for d, _, fs in os.walk(folder) for f in fs)


def test_the_reference_runs_are_installed(installed, parlab_bin):
    """The index and each run it lists, at the same relative paths under share/parlab/reference,
    and nothing else of results/."""
    index = reference_index(parlab_bin)
    ref = installed / "share" / "parlab" / "reference"
    assert json.load(open(ref / "reference-runs.json")) == index
    for run in index["runs"]:
        assert (ref / run["path"] / "results.json").is_file(), run
    assert files_under(ref) == reference_files(index)


def test_the_build_tree_mirrors_the_installed_reference_runs(tmp_path):
    """A configure makes build/<preset>/share/parlab/reference as the install does: the index
    written from results/runs.json, and the listed runs' results.json, each a link to its source,
    nothing else of results/; a link to all of results/ left there by an older configure is
    replaced, never followed into results/."""
    from analysis.index import read_index
    from analysis.index import reference_index as of_runs
    source = ROOT
    index = of_runs(read_index(os.path.join(source, "results", "runs.json")))
    build = tmp_path / "build"
    ref = build / "share" / "parlab" / "reference"
    ref.parent.mkdir(parents=True)
    os.symlink(os.path.join(source, "results"), ref)  # as an older configure left it
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    r = subprocess.run(["cmake", "-S", source, "-B", str(build), *generator, "-DPARLAB_ENABLE_CUDA=OFF"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert not ref.is_symlink() and ref.is_dir()
    assert files_under(ref) == reference_files(index)
    assert json.load(open(ref / "reference-runs.json", encoding="utf-8")) == index
    for f in reference_files(index):
        if f == "reference-runs.json":
            continue  # written by the configure from results/runs.json
        assert (ref / f).is_symlink(), f  # edits of the source show without a configure
        expected = os.path.join(source, "results", f)
        assert os.path.realpath(ref / f) == os.path.realpath(expected) and os.path.isfile(expected), f


def test_installed_copy_lists_runs_and_reports(installed, parlab_bin, tmp_path):
    parlab = str(installed / "bin" / "parlab")
    env = clean_env()
    version = subprocess.run([parlab, "--version"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert version.returncode == 0 and version.stdout.startswith("parlab ") and "commit" in version.stdout
    assert "parts:" in version.stdout
    listing = subprocess.run([parlab, "list"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert listing.returncode == 0, listing.stderr
    assert f"suites ({installed}/share/parlab/suites)" in listing.stdout, listing.stdout
    assert "  quick " in listing.stdout
    out = tmp_path / "out"
    run = subprocess.run([parlab, "run", "quick", "-k", "pi", "-b", "serial,pool", "-t", "1,2", "-n", "2^18",
                          "-r", "1", "--out", str(out), "--quiet"], capture_output=True, text=True, env=env,
                         cwd=tmp_path, timeout=300)
    assert run.returncode == 0, run.stderr
    run_dir = Path(run_dir_of(out))
    doc = json.load(open(run_dir / "results.json"))
    assert doc["status"] == "complete" and all(r["status"] == "ok" for r in doc["records"])
    assert (run_dir / "report.html").exists()  # made by the installed analysis/plot.py
    if reference_index(parlab_bin):  # compared with the installed reference runs, found beside it
        page = (run_dir / "report.html").read_text()
        # listed under the installed index's folder ("reference"), never by an absolute path
        assert "against the reference runs" in page and "muted'>(reference/" in page
        assert f"{installed}/share/parlab/reference/" not in page
    (run_dir / "report.html").unlink()
    report = subprocess.run([parlab, "report", str(run_dir)], capture_output=True, text=True, env=env,
                            cwd=tmp_path, timeout=300)
    assert report.returncode == 0, report.stderr
    assert (run_dir / "report.html").exists()
    same = subprocess.run([parlab, "compare", str(run_dir), str(run_dir)], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120)
    assert same.returncode == 0, same.stderr


def test_installed_copy_without_its_data_says_where_it_looked(installed, tmp_path):
    lonely = tmp_path / "bin"
    lonely.mkdir()
    shutil.copy2(installed / "bin" / "parlab", lonely / "parlab")
    r = subprocess.run([str(lonely / "parlab"), "run", "quick", "--dry-run"], capture_output=True, text=True,
                       env=clean_env(), cwd=tmp_path, timeout=120)
    # An incomplete installation is the environment's error (exit 2), not a failed measurement.
    assert r.returncode == 2 and "PARLAB_DATA_DIR" in r.stderr and "share/parlab" in r.stderr, r.stderr


def test_debian_package(parlab_bin, tmp_path):
    if shutil.which("dpkg-deb") is None or shutil.which("dpkg-shlibdeps") is None:
        pytest.fail("dpkg-deb and dpkg-shlibdeps are needed to build the .deb (Debian: dpkg-dev)")
    build = build_dir_of(parlab_bin)
    r = subprocess.run(["cpack", "-G", "DEB", "-B", str(tmp_path)], capture_output=True, text=True, cwd=build,
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    (deb,) = [p for p in os.listdir(tmp_path) if p.endswith(".deb")]
    contents = subprocess.run(["dpkg-deb", "-c", str(tmp_path / deb)], capture_output=True, text=True).stdout
    for path in ["./usr/bin/parlab", "./usr/share/parlab/analysis/plot.py", "./usr/share/parlab/suites/quick.json",
                 "./usr/share/parlab/analysis/figures/__init__.py"]:
        assert path in contents, path
    info = subprocess.run(["dpkg-deb", "-f", str(tmp_path / deb), "Package", "Depends"], capture_output=True,
                          text=True).stdout
    assert "Package: parlab" in info and "python3" in info, info
