"""scripts/offline-bundle.sh takes Debian 13's packages from the system's own Debian sources, with
the suite swapped, and names no host: its --print-trixie-sources mode on fake apt directories."""
import os
import subprocess

from conftest import ROOT

SCRIPT = os.path.join(ROOT, "scripts", "offline-bundle.sh")
KEY = "/usr/share/keyrings/debian-archive-keyring.gpg"


def sources(tmp_path, files, release="bookworm"):
    etc = tmp_path / "apt"
    (etc / "sources.list.d").mkdir(parents=True)
    for name, text in files.items():
        (etc / name).write_text(text)
    env = dict(os.environ, PARLAB_APT_ETC=str(etc), PARLAB_DEBIAN_FROM=release)
    return subprocess.run(["bash", SCRIPT, "--print-trixie-sources"], capture_output=True, text=True, env=env,
                          timeout=60)


def test_deb822_sources_swap_every_suite_of_the_release(tmp_path):
    res = sources(tmp_path, {"sources.list.d/debian.sources": f"""Types: deb
# a comment inside the paragraph
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main contrib
Signed-By: {KEY}

Types: deb deb-src
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main
Signed-By: {KEY}

Types: deb
URIs: http://mirror.example/debian
Suites: bookworm-backports
Components: main
Enabled: no
"""})
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == [
        f"deb [signed-by={KEY}] http://mirror.example/debian trixie main contrib",
        f"deb [signed-by={KEY}] http://mirror.example/debian trixie-updates main contrib",
        f"deb [signed-by={KEY}] http://mirror.example/debian-security trixie-security main"]


def test_one_line_sources_keep_their_options_and_drop_other_repositories(tmp_path):
    res = sources(tmp_path, {
        "sources.list": "# the mirror\ndeb http://mirror.example/debian bookworm main\n"
                        "deb-src http://mirror.example/debian bookworm main\n",
        "sources.list.d/security.list": f"deb [arch=amd64 signed-by={KEY}] http://sec.example/ bookworm-security main\n",
        "sources.list.d/vendor.list": "deb https://vendor.example/apt stable main\n",
        "sources.list.d/old.list.disabled": "deb http://old.example/debian bookworm main\n"})
    assert res.returncode == 0, res.stderr
    assert res.stdout.splitlines() == ["deb http://mirror.example/debian trixie main",
                                       f"deb [arch=amd64 signed-by={KEY}] http://sec.example/ trixie-security main"]


def test_no_debian_entry_is_an_error(tmp_path):
    res = sources(tmp_path, {"sources.list.d/vendor.list": "deb https://vendor.example/apt stable main\n"})
    assert res.returncode == 1 and "no Debian entry" in res.stderr


def test_the_script_names_no_host():
    text = open(SCRIPT, encoding="utf-8").read()
    assert "deb.debian.org" not in text and "http://" not in text and "https://" not in text
