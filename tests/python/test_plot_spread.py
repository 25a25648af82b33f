"""The figures' error bars and unstable marks, their axes (one unit, no offset text, a log scale
over 10x, efficiency never clipped), the GIL figure's legibility, and the report's machine table,
stability line, records spread and folded context: on the fixtures of tests/fixtures/ and
synthetic records (conftest's record()), read as the loader reads them (with_spread)."""
import copy
import re

import pytest

from analysis.spread import ratio_band
from analysis.figures.gil import gil_figures
from analysis.labels import WIDE_RANGE, log_if_wide, unit_scale
from analysis.records import with_spread
from analysis.machine import gpu_text, machine_facts
from analysis.report import report_html
from analysis.figures.roofline import roofline_figures
from analysis.figures.scaling import scaling_figures
from analysis.figures.throughput import throughput_figures
from analysis.spread import rate_band, spread, unstable_reason
from analysis.writer import Plotter
from conftest import BASE_DOC, fixture_doc, record, run_plot, write_doc


def loaded(doc):
    """doc as the loader gives it: every record's spread filled in from its repetitions."""
    for r in doc["records"]:
        with_spread(r)
    return doc


def drawn(tmp_path, draw, doc):
    """{figure name: (figure, caption)} of what draw(p, doc) saves, each figure drawn (so tick
    labels and offset texts exist) before it is written."""
    p = Plotter(str(tmp_path / "plots"))
    got = {}
    real = p.save

    def save(fig, name, caption):
        fig.canvas.draw()
        got[name] = (fig, caption)  # closing it in save leaves the Figure object whole for the checks
        real(fig, name, caption)

    p.save = save
    draw(p, doc)
    return got


def errorbars(ax):
    from matplotlib.container import ErrorbarContainer
    return [c for c in ax.containers if isinstance(c, ErrorbarContainer)]


def series(ax) -> dict:
    """{label: the line of its points} of the series drawn with error bars (bars.draw_points: the
    label is the container's)."""
    return {c.get_label(): c.lines[0] for c in errorbars(ax)}


def bar_extents(container):
    """[(low, high)] of each error bar of a container, along the bars' direction."""
    (segments,) = [c.get_segments() for c in container.lines[2]]
    return [(min(a[0], b[0]), max(a[0], b[0])) if a[1] == b[1] else (min(a[1], b[1]), max(a[1], b[1]))
            for a, b in segments]


def pi_doc(times, study="s"):
    """A pi run of one size: {(backend, threads): median}, three repetitions each (+-1-2%)."""
    doc = copy.deepcopy(BASE_DOC)
    doc["records"] = [record(i, b, t, m, study=study) for i, ((b, t), m) in enumerate(sorted(times.items()))]
    return loaded(doc)


# ---------------------------------------------------------------- bars from the record's spread
def test_throughput_bars_are_the_interquartile_range_of_each_record(tmp_path):
    doc = pi_doc({("serial", 1): 8.0, ("pool", 4): 2.5, ("tbb", 4): 2.0})
    (fig, caption), = drawn(tmp_path, throughput_figures, doc).values()
    ax = fig.axes[0]
    (bars,) = errorbars(ax)
    # Bars run slowest to fastest, in the axis's unit (ksamples/s here: the largest is 524 k).
    scale, unit = unit_scale([r["rate"]["samples_per_s"] for r in doc["records"]], "samples/s")
    assert unit == "ksamples/s" and ax.get_xlabel().startswith(unit)
    recs = sorted(doc["records"], key=lambda r: r["rate"]["samples_per_s"])
    for (lo, hi), r in zip(bar_extents(bars), recs):
        want = rate_band(r, r["rate"]["samples_per_s"])
        assert (lo, hi) == pytest.approx((want[0] / scale, want[1] / scale))
    assert "interquartile range of the repetitions" in caption and "interquartile range" in ax.get_xlabel()


def test_without_quartiles_no_bar_is_drawn(tmp_path):
    doc = pi_doc({("serial", 1): 8.0, ("pool", 4): 2.5})
    for r in doc["records"]:
        for k in ("q1", "q3"):
            r["time_s"].pop(k)
    (fig, caption), = drawn(tmp_path, throughput_figures, doc).values()
    assert not errorbars(fig.axes[0]) and "interquartile" not in caption


def test_a_speedup_bar_spans_both_records_bands():
    def rec(q1, median, q3):
        return {"time_s": {"q1": q1, "median": median, "q3": q3}}
    base, r = rec(7.6, 8.0, 8.8), rec(1.9, 2.0, 2.5)
    s = 8.0 / 2.0
    # Lowest: the record at its slow quartile over the baseline at its fast one.
    assert ratio_band(r, base, s) == pytest.approx((7.6 / 2.5, 8.8 / 1.9))
    assert ratio_band(base, base, 1.0) == (1.0, 1.0)  # its own baseline: 1 by definition
    assert ratio_band(r, {"time_s": {"median": 8.0}}, s) is None


def test_speedup_and_efficiency_panels_carry_bars(tmp_path):
    doc = loaded(fixture_doc("pi-scaling"))
    figs = drawn(tmp_path, scaling_figures, doc)
    (fig, caption), = [v for k, v in figs.items() if k.startswith("speedup_")]
    speedup, efficiency = fig.axes[0], fig.axes[1]
    assert len(errorbars(speedup)) == 2 and len(errorbars(efficiency)) == 2  # pool and tbb
    assert "interquartile range" in caption


def test_unstable_records_are_hollow_or_hatched_and_named(tmp_path):
    doc = loaded(fixture_doc("pi-scaling"))
    unsteady = next(r for r in doc["records"] if r["backend"] == "pool" and r["threads"] == 4)
    unsteady["unstable"] = "CV 14% over 10%"
    (fig, caption), = [v for k, v in drawn(tmp_path, scaling_figures, doc).items() if k.startswith("speedup_")]
    hollow = [ln for ln in fig.axes[0].get_lines() if ln.get_markerfacecolor() == "white" and len(ln.get_xdata())]
    assert hollow and list(hollow[0].get_xdata()) == [4]
    assert "unstable" in caption and "pool t=4" in caption
    (fig, caption), = [v for k, v in drawn(tmp_path, throughput_figures, doc).items() if "_pi_" in k]
    hatched = [b for b in fig.axes[0].patches if b.get_hatch()]
    assert len(hatched) == 1 and "pool (t=4)" in caption and "hatched" in fig.axes[0].get_xlabel()


# ---------------------------------------------------------------- axes: units, offsets, log, clipping
def every_figure(p, doc):
    from analysis.figures import draw_figures
    draw_figures(p, doc)


@pytest.mark.parametrize("fixture", ["pi-scaling", "stream-limits"])
def test_no_axis_has_an_offset_or_a_multiplier(tmp_path, fixture):
    doc = loaded(fixture_doc(fixture))
    figs = drawn(tmp_path, every_figure, doc)
    assert len(figs) >= 3
    for name, (fig, _) in figs.items():
        for ax in fig.axes:
            for axis in (ax.xaxis, ax.yaxis):
                assert axis.get_offset_text().get_text() == "", f"{name}: {axis.get_offset_text().get_text()}"
                # No 10^k tick labels either: the unit says the power.
                assert not any("10^" in t.get_text() or "\\times" in t.get_text() for t in axis.get_ticklabels()), name


def test_rate_axes_name_their_unit_with_a_prefix(tmp_path):
    doc = loaded(fixture_doc("stream-limits"))
    figs = drawn(tmp_path, every_figure, doc)
    throughput = [fig for name, (fig, _) in figs.items() if name.startswith("throughput_") and "triad" in name]
    assert throughput and re.match(r"[kMGT]?B/s\b", throughput[0].axes[0].get_xlabel())
    (roofline, _) = figs["roofline_cpu"]
    assert re.search(r"attained [kMGT]?flop/s", roofline.axes[0].get_ylabel())


def test_log_scale_over_ten_times_only(tmp_path):
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots()
    assert not log_if_wide(ax, "x", [1.0, WIDE_RANGE]) and ax.get_xscale() == "linear"
    assert log_if_wide(ax, "y", [1.0, WIDE_RANGE * 1.1]) and ax.get_yscale() == "log"
    plt.close(fig)
    wide = pi_doc({("serial", 1): 8.0, ("pool", 4): 0.5})     # 16x apart
    narrow = pi_doc({("serial", 1): 8.0, ("pool", 4): 1.0})   # 8x apart
    (fig, _), = drawn(tmp_path, throughput_figures, wide).values()
    assert fig.axes[0].get_xscale() == "log"
    (fig, _), = drawn(tmp_path, throughput_figures, narrow).values()
    assert fig.axes[0].get_xscale() == "linear"


def test_an_efficiency_over_one_is_shown_not_clipped(tmp_path):
    # Super-linear: pool at 4 threads 1.5 s against serial's 8 s is an efficiency of 1.33.
    doc = pi_doc({("serial", 1): 8.0, ("pool", 1): 8.0, ("pool", 2): 3.0, ("pool", 4): 1.5})
    (fig, _), = drawn(tmp_path, scaling_figures, doc).values()
    efficiency = fig.axes[1]
    top = max(series(efficiency)["pool"].get_ydata())
    assert top == pytest.approx(8.0 / 1.5 / 4) and efficiency.get_ylim()[1] > top * 1.05


def test_roofs_are_labelled_and_a_share_over_one_is_on_its_axis(tmp_path):
    doc = loaded(fixture_doc("stream-limits"))
    over = next(r for r in doc["records"] if (r.get("limit") or {}).get("roof"))
    over["limit"]["fraction"] = 1.9
    (fig, _) = drawn(tmp_path, roofline_figures, doc)[f"roofline_{'gpu' if over.get('processor') == 'gpu' else 'cpu'}"]
    left, share = fig.axes[0], fig.axes[1]
    texts = [t.get_text() for t in left.texts]
    assert any(t.startswith("cpu_fma_f64") or t.startswith("gpu_fma") for t in texts)  # flat roofs named on the line
    assert any(t.get_text() == "the roof (1.0)" for t in share.texts)
    assert share.get_xlim()[1] > 1.9


# ---------------------------------------------------------------- the GIL figure
def test_gil_figure_lines_are_told_apart_and_the_legend_is_outside(tmp_path):
    doc = copy.deepcopy(BASE_DOC)
    recs = []
    for b, times in [("py-parlab-gil-held", (2.0, 2.0, 2.02)), ("py-pure-threads", (4.0, 4.1, 4.0)),
                     ("py-parlab-gil-released", (2.0, 1.0, 0.52))]:
        for t, m in zip((1, 2, 4), times):
            recs.append(record(len(recs), b, t, m, size=1 << 20, study="gil", kind="python"))
    doc["records"] = recs
    figs = drawn(tmp_path, gil_figures, loaded(doc))
    fig, _ = figs["gil"]
    ax = fig.axes[0]
    lines = series(ax)
    assert len({ln.get_marker() for ln in lines.values()}) == 3
    assert len({ln.get_color() for ln in lines.values()}) == 3
    # The flat GIL-bound lines (both near 1.0) are drawn over the scaling one.
    assert lines["py-parlab-gil-held"].get_zorder() > lines["py-parlab-gil-released"].get_zorder()
    renderer = fig.canvas.get_renderer()
    legend, axes_box = ax.get_legend().get_window_extent(renderer), ax.get_window_extent(renderer)
    assert legend.x0 >= axes_box.x1  # right of the data, not over it


# ---------------------------------------------------------------- the report
def page(tmp_path, doc):
    d = write_doc(tmp_path, doc)
    res = run_plot(str(d), "--no-reference", "--quiet", "--summary", "none")
    assert res.returncode == 0, res.stderr
    return (d / "report.html").read_text()


def test_first_screen_names_the_machine_and_its_stability(tmp_path):
    doc = fixture_doc("pi-scaling")
    doc["context"].update({"memory_bytes": 64 << 30, "load_average_1min": 0.42})
    doc["context"]["backends"] = [{"name": "cuda", "available": True, "kind": "gpu", "processor": "gpu",
                                   "detail": "Fixture GPU 80GB, compute capability 9.0; driver 13.0; 1 device"}]
    unsteady = next(r for r in doc["records"] if r["backend"] == "tbb" and r["threads"] == 2)
    unsteady["reps_s"] = [4.0, 2.0, 6.0]  # CV 50%: unstable, as the runner writes it
    unsteady["time_s"] = spread(unsteady["reps_s"])
    unsteady["unstable"] = unstable_reason(unsteady["time_s"])
    html = page(tmp_path, doc)
    first = html[:html.index("What this run found")]
    for fact in ("Fixture CPU", "4 cores, 4 threads", "64.0 GiB", "Fixture GPU 80GB, compute capability 9.0",
                 "Release", "0.42"):
        assert fact in first, fact
    index = doc["records"].index(unsteady)
    assert f"href='#rec-{index}'" in first and "--reps or --rounds" in first
    assert f"<tr id='rec-{index}'" in html  # the link's target, in the records table


def test_machine_facts_say_unknown_where_the_context_is_silent():
    facts = dict(machine_facts({"cpu": {}, "build": {}}))
    assert set(facts.values()) == {"unknown"}
    assert gpu_text({"backends": [{"name": "cuda", "available": False, "detail": "no CUDA device"}]}) \
        == "none (no CUDA device)"
    two = {"backends": [{"name": "cuda", "available": True, "detail": "H200, 132 SMs; 2 devices (select)"}]}
    assert gpu_text(two) == "2 x H200, 132 SMs"


def test_records_table_shows_the_spread_and_the_unstable_mark(tmp_path):
    doc = fixture_doc("pi-scaling")
    unsteady = next(r for r in doc["records"] if r["backend"] == "tbb" and r["threads"] == 2)
    unsteady["reps_s"] = [4.0, 2.0, 6.0]  # CV 50%: unstable, as the runner writes it
    unsteady["time_s"] = spread(unsteady["reps_s"])
    unsteady["unstable"] = unstable_reason(unsteady["time_s"])
    html = page(tmp_path, doc)
    records = html[html.index("<h2 id='records'>"):]
    assert "<th>CV</th>" in records and " ± " in records
    row = re.search(r"<tr id='rec-\d+'>(?:(?!</tr>).)*tbb(?:(?!</tr>).)*unstable: CV[^<]*</td></tr>", records)
    assert row and "<td>50.0%</td>" in row.group(0)
    assert "more --reps or --rounds" in records


def test_context_is_folded_by_section(tmp_path):
    doc = fixture_doc("pi-scaling")
    html = page(tmp_path, doc)
    context = html[html.index("<h2 id='context'>"):html.index("<h2 id='records'>")]
    sections = re.findall(r"<details class='context'><summary>(\w+) ", context)
    assert sections == sorted(k for k, v in doc["context"].items() if isinstance(v, (dict, list)))
    assert "cpu" in sections and "build" in sections
    assert "backends[0]" not in html and "cpu.caches" not in html  # no flat dotted paths
    # A list of objects is one table: the caches' levels as a column.
    cpu = context[context.index("<summary>cpu "):]
    assert re.search(r"<th class='l'>level</th>", cpu[:cpu.index("</details>")])


def test_the_report_is_the_same_for_the_same_run(tmp_path):
    doc = loaded(fixture_doc("pi-scaling"))
    a = report_html(copy.deepcopy(doc), str(tmp_path), [])
    assert a == report_html(copy.deepcopy(doc), str(tmp_path), [])
