"""The Python analysis as one package, analysis/: figures/ holds the run report's work
in modules of at most about 400 lines, plot.py and compare.py stay small command lines that export
nothing for callers (they import from the package's modules), one writer module draws every
figure and page, and the scripts still run from a copy of the package outside the source tree
(as when installed into a share directory)."""
import glob
import importlib
import os
import re
import shutil
import subprocess
import sys

from conftest import ROOT, write_doc

ANALYSIS = os.path.join(ROOT, "analysis")
PACKAGE = os.path.join(ANALYSIS, "figures")
MAX_MODULE_LINES = 400
MAX_SCRIPT_LINES = 150

# Every top-level name of the single-file plot.py (before the split): each still lives in one
# module of the package, where callers import it from.
SINGLE_FILE_NAMES = """
SCHEMA RACE_KERNELS OVERHEAD_KERNELS LAB_KERNELS TRANSFER_KERNELS LOGGING_KERNELS STUDY_KERNELS
InputError load_run fmt_size fmt_rate rate_of element_bytes Plotter ok_records scaling_series
scaling_figures bandwidth_figures throughput_figures workers bar_label interpreter_suffix
interpreter_tag gil_series gil_figures shared_private_figure gpu_study_figures MULTI_GPU
multi_gpu_series multi_gpu_figures race_figures overhead_figures crossover_figures PY_MODEL_STUDIES
PY_TASK_MODELS python_models_table python_models_crossovers python_models_figures
python_models_figure QUARTER_PI pi_relative_sigma convergence_points convergence_summary
convergence_figures python_models_note GPU_PEERS peers_table peers_figures run_summary summary_html
report_html MPI_PROBE_KERNELS MPI_PROBE_NAMES ranks_of layout_label hosts_note mpi_scaling_series
mpi_scaling_figures per_op_us mpi_latency_series mpi_latency_figures mixed_mode_series time_scale
fmt_time mixed_mode_figures mpi_figures mpi_summary
""".split()
# Names renamed since, old -> new (the Python library backends are no longer called peers).
RENAMED = {"GPU_PEERS": "GPU_LIBRARIES", "peers_table": "libraries_table", "peers_figures": "libraries_figures"}
# Names retired since, with why. The kernel sets were drawn from a table of kernel names that
# served records without a `family`; records of the current schema all carry one (`parlab migrate`
# gives it to older runs), so figures and callers select by family_of(r) instead.
RETIRED = {n: "a kernel set: select records by family_of(r)" for n in
           ("RACE_KERNELS", "OVERHEAD_KERNELS", "LAB_KERNELS", "TRANSFER_KERNELS", "LOGGING_KERNELS", "STUDY_KERNELS",
            "MPI_PROBE_KERNELS")}


def package_modules():
    import analysis
    import analysis.figures
    import pkgutil
    return (["analysis." + m.name for m in pkgutil.iter_modules(analysis.__path__) if m.name not in ("plot", "compare")]
            + ["analysis.figures." + m.name for m in pkgutil.iter_modules(analysis.figures.__path__)])


def modules():
    return sorted(glob.glob(os.path.join(PACKAGE, "*.py")))


def line_count(path):
    with open(path, encoding="utf-8") as f:
        return sum(1 for _ in f)


def test_no_module_of_the_package_is_over_400_lines():
    assert len(modules()) > 10
    big = {os.path.basename(m): line_count(m) for m in modules() if line_count(m) > MAX_MODULE_LINES}
    assert not big, f"modules over {MAX_MODULE_LINES} lines: {big}"


def test_the_scripts_stay_small():
    for script in ("plot.py",):
        n = line_count(os.path.join(ANALYSIS, script))
        assert n <= MAX_SCRIPT_LINES, f"{script} has {n} lines: its work belongs in analysis/figures/"


def test_every_name_of_the_single_file_plot_lives_in_one_module():
    homes = {}
    for m in package_modules():
        mod = importlib.import_module(m)
        for name, obj in vars(mod).items():
            if getattr(obj, "__module__", m) == m:
                homes.setdefault(name, []).append(m)
    names = [RENAMED.get(n, n) for n in SINGLE_FILE_NAMES if n not in RETIRED]
    missing = [n for n in names if n not in homes]
    assert not missing
    # A function or class is defined once (a constant is found wherever it is imported too).
    twice = {n: homes[n] for n in names if len(homes[n]) > 1 and all(hasattr(getattr(importlib.import_module(m), n),
                                                                                "__module__") for m in homes[n])}
    assert not twice, f"defined in more than one module: {twice}"


def test_no_compatibility_shim():
    # plot.py exports main only; nothing imports a top-level `plot`, `figures` or `compare*` module:
    # tests and scripts import from the package's modules.
    import analysis.plot
    assert analysis.plot.__all__ == ["main"]
    files = glob.glob(os.path.join(ROOT, "tests", "python", "*.py")) + glob.glob(os.path.join(ROOT, "scripts", "*.py")) \
        + glob.glob(os.path.join(ANALYSIS, "**", "*.py"), recursive=True)
    old = re.compile(r"^\s*(import (plot|figures|compare|compare_stats|compare_report)\b"
                     r"|from (plot|figures|compare|compare_stats|compare_report)[ .]\S* import)", re.M)
    assert not [f for f in files if old.search(open(f, encoding="utf-8").read())]


def test_one_writer_for_both_reports():
    # The run report and compare's report write figures and pages through analysis/writer.py only.
    for path in glob.glob(os.path.join(ANALYSIS, "**", "*.py"), recursive=True):
        if os.path.basename(path) == "writer.py":
            continue
        text = open(path, encoding="utf-8").read()
        assert ".savefig(" not in text and "base64" not in text and "<!DOCTYPE" not in text, path


def test_the_package_docstring_names_every_module():
    import analysis
    import analysis.figures
    for m in glob.glob(os.path.join(PACKAGE, "*.py")):
        name = os.path.basename(m)[:-3]
        if name != "__init__":
            assert re.search(rf"^  {name}\b", analysis.figures.__doc__, re.M), f"figures/__init__.py does not list {name}"
    for m in glob.glob(os.path.join(ANALYSIS, "*.py")):
        name = os.path.basename(m)[:-3]
        if name != "__init__":
            assert re.search(rf"^  {name}\b", analysis.__doc__, re.M), f"analysis/__init__.py does not list {name}"


def test_the_scripts_run_from_a_copy_of_the_package_outside_the_source_tree(tmp_path, scaling_doc):
    share = tmp_path / "share" / "parlab"
    share.mkdir(parents=True)
    shutil.copytree(ANALYSIS, share / "analysis", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(os.path.join(ROOT, "experiments", "schema"), share / "schema")  # beside it, as installed
    run = write_doc(tmp_path, scaling_doc)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    res = subprocess.run([sys.executable, str(share / "analysis" / "plot.py"), str(run)], capture_output=True,
                         text=True, cwd=str(tmp_path), env=env)
    assert res.returncode == 0, res.stderr
    assert "figures in" in res.stderr and (run / "report.html").is_file()
    assert sorted(p.name for p in (run / "plots").glob("speedup_*.svg"))
    bad = subprocess.run([sys.executable, str(share / "analysis" / "plot.py"), str(tmp_path / "nothing")],
                         capture_output=True, text=True, cwd=str(tmp_path), env=env)
    assert bad.returncode == 2 and bad.stderr.startswith("plot.py: ")
    same = subprocess.run([sys.executable, str(share / "analysis" / "compare.py"), str(run), str(run), "--html",
                           str(tmp_path / "cmp")], capture_output=True, text=True, cwd=str(tmp_path), env=env)
    assert same.returncode == 0, same.stderr
    assert (tmp_path / "cmp" / "report.html").is_file() and (tmp_path / "cmp" / "plots").is_dir()


def test_the_last_line_keeps_within_the_terminal_and_never_cuts_a_path(tmp_path, monkeypatch):
    """plot.py's closing line: one line where it fits, else the report on a line of its own;
    each path the shorter of itself and its form relative to here, whole."""
    from analysis.plot import done_line
    monkeypatch.chdir(tmp_path)
    deep = tmp_path / ("d" * 60) / "run"
    line = done_line(7, str(deep / "plots"), str(deep / "report.html"), 100)
    assert line == f"plot.py: 7 figures in {'d' * 60}/run/plots\nplot.py: report {'d' * 60}/run/report.html"
    assert all(len(x) <= 100 for x in line.splitlines())
    assert done_line(3, "run/plots", "run/report.html", 100) == "plot.py: 3 figures in run/plots, report run/report.html"
    # A path longer than the terminal is printed whole.
    far = "/" + "x" * 150
    assert far + "/report.html" in done_line(1, far + "/plots", far + "/report.html", 100)
