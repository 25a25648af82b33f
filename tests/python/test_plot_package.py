"""experiments/plot.py as a package (issue 20, item 5): experiments/figures/ holds the work in
modules of at most about 400 lines, plot.py stays a small command line that re-exports every name
the single-file plot.py had, and the script still runs from a copy of the two outside the source
tree (as when installed into a share directory)."""
import glob
import importlib
import os
import re
import shutil
import subprocess
import sys

import plot  # experiments/plot.py, via conftest's sys.path
from conftest import ROOT, write_doc

EXPERIMENTS = os.path.join(ROOT, "experiments")
PACKAGE = os.path.join(EXPERIMENTS, "figures")
MAX_MODULE_LINES = 400
MAX_SCRIPT_LINES = 150

# Every top-level name of the single-file plot.py (before the split): callers may use any of them.
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
fmt_time mixed_mode_figures mpi_figures mpi_summary main
""".split()


def modules():
    return sorted(glob.glob(os.path.join(PACKAGE, "*.py")))


def line_count(path):
    with open(path, encoding="utf-8") as f:
        return sum(1 for _ in f)


def test_no_module_of_the_package_is_over_400_lines():
    assert len(modules()) > 10
    big = {os.path.basename(m): line_count(m) for m in modules() if line_count(m) > MAX_MODULE_LINES}
    assert not big, f"modules over {MAX_MODULE_LINES} lines: {big}"


def test_the_script_stays_small():
    n = line_count(os.path.join(EXPERIMENTS, "plot.py"))
    assert n <= MAX_SCRIPT_LINES, f"plot.py has {n} lines: its work belongs in experiments/figures/"


def test_every_name_of_the_single_file_plot_still_resolves_on_plot():
    missing = [n for n in SINGLE_FILE_NAMES if not hasattr(plot, n)]
    assert not missing
    assert sorted(set(plot.__all__)) == sorted(plot.__all__)
    assert not [n for n in plot.__all__ if not hasattr(plot, n)]
    assert set(SINGLE_FILE_NAMES) <= set(plot.__all__)


def test_re_exports_are_the_package_objects_not_copies():
    # Each name on plot is the package module's own object: an exception class callers catch
    # (InputError in compare.py) and a function a test reaches through plot are the ones the package uses.
    for name in SINGLE_FILE_NAMES:
        obj = getattr(plot, name)
        if name == "main":
            continue
        home = getattr(obj, "__module__", None)
        if callable(obj):
            assert home and home.startswith("figures."), (name, home)
            assert getattr(importlib.import_module(home), name) is obj
    from figures.load import InputError, load_run
    assert plot.InputError is InputError and plot.load_run is load_run


def test_names_used_by_tests_and_compare_resolve():
    used = set()
    files = glob.glob(os.path.join(ROOT, "tests", "python", "*.py")) + \
        glob.glob(os.path.join(EXPERIMENTS, "compare*.py"))
    for path in files:
        text = open(path, encoding="utf-8").read()
        used |= set(re.findall(r"\bplot\.([A-Za-z_]\w*)", text)) - {"py"}
        for names in re.findall(r"^from plot import \(?([^)\n]+)", text, re.M):
            used |= {n.strip() for n in names.split("#")[0].split(",") if n.strip()}
    assert {"load_run", "InputError", "fmt_size", "rate_of"} <= used
    assert not sorted(n for n in used if not hasattr(plot, n))


def test_the_package_docstring_names_every_module():
    import figures
    for m in modules():
        name = os.path.basename(m)[:-3]
        if name != "__init__":
            assert re.search(rf"^  {name}\b", figures.__doc__, re.M), f"figures/__init__.py does not list {name}"


def test_the_script_runs_beside_its_package_outside_the_source_tree(tmp_path, scaling_doc):
    share = tmp_path / "share" / "parlab"
    share.mkdir(parents=True)
    shutil.copy(os.path.join(EXPERIMENTS, "plot.py"), share)
    shutil.copytree(PACKAGE, share / "figures", ignore=shutil.ignore_patterns("__pycache__"))
    run = write_doc(tmp_path, scaling_doc)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    res = subprocess.run([sys.executable, str(share / "plot.py"), str(run)], capture_output=True, text=True,
                         cwd=str(tmp_path), env=env)
    assert res.returncode == 0, res.stderr
    assert "figures in" in res.stderr and (run / "report.html").is_file()
    assert sorted(p.name for p in (run / "plots").glob("speedup_*.svg"))
    bad = subprocess.run([sys.executable, str(share / "plot.py"), str(tmp_path / "nothing")], capture_output=True,
                         text=True, cwd=str(tmp_path), env=env)
    assert bad.returncode == 2 and bad.stderr.startswith("plot.py: ")
