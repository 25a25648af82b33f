"""The one index of the runs results/ keeps (results/runs.json), and the one function that reads it.

Each run is listed once: its path (a run directory relative to the index's folder, holding
results.json), a line on what it holds, and what it serves, all optional but the path:
  cited      the names tools/findings cites it by (one name, one run);
  reference  {name, description}: report.html compares other runs with it. The build installs
             these runs with a reference index of their own (reference-runs.json, written by
             `python3 analysis/index.py --reference-index OUT`), the form reference.py reads from
             share/parlab/reference and from a folder a user names;
  figures    [{file, figure, what}]: the headline figures the READMEs show that are drawn from it
             (file: its name under results/figures/; figure: the PNG in the run's drawing).

An index is data a person edits, so a fault is refused naming the run and the key (InputError,
exit 2), and every path is checked to stay inside the index's folder.
"""
from __future__ import annotations

import json
import os
import re
import sys

if __name__ == "__main__":  # run as a script by the build: the folder above the package
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from analysis.read import InputError, read_json  # noqa: E402

INDEX = "runs.json"
RUN_KEYS = ("path", "what", "cited", "reference", "figures")
FIGURE_KEYS = ("file", "figure", "what")
NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def relative_path_problem(path) -> str | None:
    """Why `path` is no plain relative path to something below its folder, or None. "." and
    "a/.." name the folder itself: a run drawn under that name would be drawn into --out itself."""
    if not isinstance(path, str) or not path:
        return "must be a non-empty string"
    if os.path.isabs(path) or ".." in path.replace("\\", "/").split("/"):
        return "must be relative, inside its folder (no leading / and no ..)"
    if os.path.normpath(path) == ".":
        return "must name something below its folder, not the folder itself (.)"
    return None


def _text(value) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _check_figures(where: str, figures, files: set) -> list[dict]:
    if not isinstance(figures, list):
        raise InputError(f"{where}: 'figures' must be a list of {{{', '.join(FIGURE_KEYS)}}}")
    out = []
    for j, fig in enumerate(figures):
        at = f"{where}: figure {j}"
        if not isinstance(fig, dict):
            raise InputError(f"{at}: must be an object with {', '.join(FIGURE_KEYS)}")
        at += f" ({fig.get('file', 'no file')})"
        unknown = sorted(set(fig) - set(FIGURE_KEYS))
        missing = [k for k in FIGURE_KEYS if not _text(fig.get(k))]
        if unknown or missing:
            raise InputError(f"{at}: " + "; ".join(
                ([f"unknown keys {', '.join(unknown)} (only {', '.join(FIGURE_KEYS)})"] if unknown else []) +
                ([f"needs {', '.join(missing)} (non-empty strings)"] if missing else [])))
        if os.path.basename(fig["file"]) != fig["file"] or not fig["file"].endswith(".png"):
            raise InputError(f"{at}: 'file' must be a file name ending .png, no folder")
        if fig["file"] in files:
            raise InputError(f"{at}: the file {fig['file']} is listed twice")
        files.add(fig["file"])
        problem = relative_path_problem(fig["figure"])
        if problem:
            raise InputError(f"{at}: 'figure' {problem}")
        if not fig["figure"].endswith(".png"):
            raise InputError(f"{at}: 'figure' must name a PNG (plots/<name>.png)")
        out.append({k: fig[k] for k in FIGURE_KEYS})
    return out


def _check_reference(where: str, ref, names: set) -> dict:
    if not isinstance(ref, dict) or not _text(ref.get("name")):
        raise InputError(f"{where}: 'reference' must be an object with a non-empty 'name' (and a 'description')")
    if ref["name"] in names:
        raise InputError(f"{where}: the reference name {ref['name']!r} is listed twice")
    names.add(ref["name"])
    return {"name": ref["name"], "description": str(ref.get("description", ""))}


def read_index(path: str) -> list[dict]:
    """The index's runs, checked: [{path, dir (absolute), what, cited, reference?, figures}], in its
    order. Any fault (a malformed entry, a path leaving the folder, a run without results.json, a
    name or file listed twice) raises InputError naming the run and the key."""
    doc = read_json(path)
    if not isinstance(doc, dict) or not isinstance(doc.get("runs"), list):
        raise InputError(f"{path}: expected an object with a list 'runs'")
    folder = os.path.dirname(os.path.abspath(path))
    runs, paths, cited, refs, files = [], set(), set(), set(), set()
    for i, entry in enumerate(doc["runs"]):
        where = f"{path}: run {i}"
        if not isinstance(entry, dict):
            raise InputError(f"{where}: must be an object with a 'path'")
        problem = relative_path_problem(entry.get("path"))
        if problem:
            raise InputError(f"{where}: 'path' {problem}")
        where += f" ({entry['path']})"
        unknown = sorted(set(entry) - set(RUN_KEYS))
        if unknown:
            raise InputError(f"{where}: unknown keys {', '.join(unknown)} (only {', '.join(RUN_KEYS)})")
        rel = os.path.normpath(entry["path"])
        if rel in paths:
            raise InputError(f"{where}: the run is listed twice")
        paths.add(rel)
        run_dir = os.path.join(folder, rel)
        if not os.path.isfile(os.path.join(run_dir, "results.json")):
            raise InputError(f"{where}: the run has no results.json: fix the index or restore the run")
        names = entry.get("cited", [])
        if not isinstance(names, list) or not all(isinstance(n, str) and NAME.match(n) for n in names):
            raise InputError(f"{where}: 'cited' must be a list of names (letters, digits, _)")
        for n in names:
            if n in cited:
                raise InputError(f"{where}: the name {n!r} cites two runs")
            cited.add(n)
        run = {"path": rel, "dir": run_dir, "what": str(entry.get("what", "")), "cited": list(names),
               "figures": _check_figures(where, entry.get("figures", []), files)}
        if "reference" in entry:
            run["reference"] = _check_reference(where, entry["reference"], refs)
        runs.append(run)
    return runs


def cited_runs(runs: list[dict]) -> dict:
    """{name: path} of the runs the findings cite."""
    return {n: r["path"] for r in runs for n in r["cited"]}


def reference_index(runs: list[dict]) -> dict:
    """The reference index of the reference runs (reference-runs.json's form: {runs: [{name, path,
    description}]}), the one the build installs beside them."""
    return {"about": "The reference runs report.html compares a run with (analysis/reference.py): each path "
                     "relative to this folder, a run directory holding results.json. Written by the build "
                     "from the source tree's results/runs.json.",
            "runs": [{"name": r["reference"]["name"], "path": r["path"], "description": r["reference"]["description"]}
                     for r in runs if "reference" in r]}


def headline_figures(runs: list[dict]) -> list[dict]:
    """[{file, run, figure, what}] of every headline figure, in the index's order."""
    return [dict(f, run=r["path"]) for r in runs for f in r["figures"]]


def _write_atomically(path: str, text: str) -> None:
    """text into a fresh temporary beside path (O_EXCL: nothing planted there is written through),
    renamed over it."""
    tmp = f"{path}.tmp{os.getpid()}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.lexists(tmp):
            os.unlink(tmp)
        raise


def main(argv: list[str]) -> int:
    """`index.py --reference-index OUT INDEX`: writes INDEX's reference index to OUT and prints each
    reference run's path, one a line (the build installs those). Exit 2 on a faulty index."""
    if len(argv) != 3 or argv[0] != "--reference-index":
        print("usage: index.py --reference-index OUT INDEX", file=sys.stderr)
        return 2
    try:
        runs = read_index(argv[2])
    except InputError as e:
        print(f"index.py: {e}", file=sys.stderr)
        return 2
    _write_atomically(argv[1], json.dumps(reference_index(runs), indent=1) + "\n")
    for r in runs:
        if "reference" in r:
            print(r["path"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
