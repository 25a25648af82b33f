"""scripts/build-python-ft.sh tells which CPython a source is (any >= 3.13: Debian's 3.13 tarball,
python.org's 3.14 tarballs, an unpacked tree) and refuses older ones with exit 2. Synthetic trees
and tarballs only: nothing is built or downloaded."""
import os
import subprocess
import tarfile

import pytest

from conftest import ROOT

SCRIPT = os.path.join(ROOT, "scripts", "build-python-ft.sh")


def patchlevel(major, minor, micro, label=""):
    # The lines CPython's Include/patchlevel.h has (3.13 and 3.14 alike), aligned as there.
    return (f"#define PY_MAJOR_VERSION        {major}\n"
            f"#define PY_MINOR_VERSION        {minor}\n"
            f"#define PY_MICRO_VERSION        {micro}\n"
            "#define PY_RELEASE_LEVEL        PY_RELEASE_LEVEL_FINAL\n"
            "#define PY_RELEASE_SERIAL       0\n\n"
            "/* Version as a string */\n"
            f'#define PY_VERSION              "{major}.{minor}.{micro}{label}"\n')


def source_tree(parent, name, *version):
    tree = parent / name
    (tree / "Include").mkdir(parents=True)
    (tree / "Include" / "patchlevel.h").write_text(patchlevel(*version))
    (tree / "configure").write_text("#!/bin/sh\n")
    return tree


def detect(src, **env):
    return subprocess.run(["bash", SCRIPT, "--detect-version", str(src)], capture_output=True, text=True,
                          timeout=60, env={**os.environ, **env})


def test_tree_of_314_and_313(tmp_path):
    r = detect(source_tree(tmp_path, "Python-3.14.0", 3, 14, 0))
    assert (r.returncode, r.stdout.strip()) == (0, "3.14.0"), r.stderr
    r = detect(source_tree(tmp_path, "cpython-main", 3, 14, 0, "rc1"))  # the name says nothing
    assert (r.returncode, r.stdout.strip()) == (0, "3.14.0rc1"), r.stderr
    r = detect(source_tree(tmp_path, "Python-3.13.5", 3, 13, 5))
    assert (r.returncode, r.stdout.strip()) == (0, "3.13.5"), r.stderr


@pytest.mark.parametrize("name,version", [
    ("Python-3.14.0.tgz", "3.14.0"),
    ("Python-3.14.0rc1.tar.xz", "3.14.0rc1"),
    ("Python-3.15.0a1.tar.gz", "3.15.0a1"),
    ("python3.13_3.13.5.orig.tar.xz", "3.13.5"),     # Debian 13's source package (the default)
    ("python3.14_3.14.0~rc2.orig.tar.xz", "3.14.0rc2"),
])
def test_tarball_names(tmp_path, name, version):
    tarball = tmp_path / name
    tarball.write_bytes(b"")  # the name alone tells
    r = detect(tarball)
    assert (r.returncode, r.stdout.strip()) == (0, version), r.stderr


def test_tarball_without_a_telling_name_is_read(tmp_path):
    source_tree(tmp_path, "Python-3.14.0", 3, 14, 0)
    tarball = tmp_path / "cpython-source.tar.gz"
    with tarfile.open(tarball, "w:gz") as t:
        t.add(tmp_path / "Python-3.14.0", arcname="Python-3.14.0")
    r = detect(tarball)
    assert (r.returncode, r.stdout.strip()) == (0, "3.14.0"), r.stderr


def test_312_is_refused(tmp_path):
    for src in (source_tree(tmp_path, "Python-3.12.9", 3, 12, 9), tmp_path / "Python-3.12.9.tgz"):
        if not src.exists():
            src.write_bytes(b"")
        r = detect(src)
        assert r.returncode == 2, (src, r.stdout, r.stderr)
        assert r.stdout == ""
        assert "3.12.9" in r.stderr and "needs CPython 3.13 or newer" in r.stderr, r.stderr


def test_unknown_source_is_an_error(tmp_path):
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes.txt").write_text("not a tarball\n")
    for src in (tmp_path / "empty", tmp_path / "notes.txt"):
        r = detect(src)
        assert r.returncode == 1 and "cannot tell the CPython version" in r.stderr, (src, r.stderr)


def print_prefix(src, deps, *flags):
    return subprocess.run(["bash", SCRIPT, "--print-prefix", *flags], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PARLAB_PYTHON_FT_SRC": str(src), "PARLAB_DEPS": str(deps)})


def test_prefix_is_keyed_by_version(tmp_path):
    """PARLAB_PYTHON_FT_SRC as a folder: the newest tarball in it (a release after its release
    candidates); the prefix names its version (a cached build of another version is never taken
    for this one)."""
    carried = tmp_path / "src"
    carried.mkdir()
    for name in ("python3.13_3.13.5.orig.tar.xz", "Python-3.14.0rc1.tar.xz", "Python-3.14.0.tgz",
                 "Python-3.12.9.tgz", "README"):
        (carried / name).write_bytes(b"")
    deps = tmp_path / "deps"
    r = print_prefix(carried, deps)
    assert (r.returncode, r.stdout.strip()) == (0, str(deps / "python-ft-3.14.0")), r.stderr
    r = print_prefix(carried, deps, "--tsan")
    assert (r.returncode, r.stdout.strip()) == (0, str(deps / "python-ft-3.14.0-tsan")), r.stderr
    r = print_prefix(carried / "python3.13_3.13.5.orig.tar.xz", deps)
    assert (r.returncode, r.stdout.strip()) == (0, str(deps / "python-ft-3.13.5")), r.stderr
    r = print_prefix(source_tree(tmp_path, "tree", 3, 14, 1), deps)
    assert (r.returncode, r.stdout.strip()) == (0, str(deps / "python-ft-3.14.1")), r.stderr


def test_folder_of_only_312_is_refused(tmp_path):
    carried = tmp_path / "src"
    carried.mkdir()
    (carried / "Python-3.12.9.tar.xz").write_bytes(b"")
    r = print_prefix(carried, tmp_path / "deps")
    assert r.returncode == 2 and "needs CPython 3.13 or newer" in r.stderr, r.stderr
    assert not (tmp_path / "deps" / "python-ft-3.12.9").exists()


FAKE_CONFIGURE = r"""#!/bin/sh
# Stands in for CPython's configure: a Makefile whose altinstall puts bin/pythonX.Yt (a script
# answering the free-threading check) under --prefix, as CPython's does for a --disable-gil build.
for a in "$@"; do case "$a" in --prefix=*) prefix=${a#--prefix=} ;; esac; done
xy=$(sed -n 's/^#define PY_MAJOR_VERSION *//p' Include/patchlevel.h).$(sed -n 's/^#define PY_MINOR_VERSION *//p' Include/patchlevel.h)
printf 'all:\n\ttouch built\naltinstall:\n\tmkdir -p %s/bin\n\tprintf "#!/bin/sh\\nexit 0\\n" >%s/bin/python%st\n\tchmod +x %s/bin/python%st\n' \
  "$prefix" "$prefix" "$xy" "$prefix" "$xy" >Makefile
echo "$@" >configure.args
"""


def fake_cpython(parent, name, *version):
    tree = source_tree(parent, name, *version)
    (tree / "configure").write_text(FAKE_CONFIGURE)
    (tree / "configure").chmod(0o755)
    (tree / "Tools" / "tsan").mkdir(parents=True)
    (tree / "Tools" / "tsan" / "suppressions_free_threading.txt").write_text("# none\n")
    return tree


def build(src, deps):
    return subprocess.run(["bash", SCRIPT], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PARLAB_PYTHON_FT_SRC": str(src), "PARLAB_DEPS": str(deps),
                               "PARLAB_JOBS": "1"})


def test_links_follow_the_version_built_and_builds_are_cached_per_version(tmp_path):
    """The presets name build/deps/python-ft/bin/python3t: after a 3.14 build it is 3.14t, after a
    3.13 one 3.13t; a version built before is reused (stamp), not built again."""
    deps = tmp_path / "deps"
    src314 = fake_cpython(tmp_path, "Python-3.14.0", 3, 14, 0)
    src313 = fake_cpython(tmp_path, "Python-3.13.5", 3, 13, 5)
    r = build(src314, deps)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == str(deps / "python-ft-3.14.0")
    assert "building CPython 3.14.0" in r.stderr
    assert os.readlink(deps / "python-ft") == "python-ft-3.14.0"
    assert os.readlink(deps / "python-ft-3.14.0" / "bin" / "python3t") == "python3.14t"
    assert os.access(deps / "python-ft" / "bin" / "python3t", os.X_OK)

    r = build(src313, deps)
    assert r.returncode == 0 and "building CPython 3.13.5" in r.stderr, r.stderr
    assert os.readlink(deps / "python-ft") == "python-ft-3.13.5"
    assert os.readlink(deps / "python-ft" / "bin" / "python3t") == "python3.13t"

    r = build(src314, deps)  # cached: only the links move back
    assert r.returncode == 0, r.stderr
    assert "already holds CPython 3.14.0" in r.stderr and "building" not in r.stderr, r.stderr
    assert os.readlink(deps / "python-ft") == "python-ft-3.14.0"
    assert os.readlink(deps / "python-ft" / "bin" / "python3t") == "python3.14t"
