"""The roofline figure's words: the names of flat roofs within a few percent of each other never
print over each other (their boxes, as the Agg renderer lays them out), and each roof's value in
the legend is the one the records' shares are of (limit.value), with the start and end probes
both named where the run measured the roof twice."""
import copy

import pytest

from analysis.figures.roofline import roofline_figures
from analysis.roofs import graded_roofs
from analysis.writer import Plotter
from conftest import fixture_doc


def drawn(tmp_path, doc, monkeypatch):
    """{name: figure} of roofline_figures, laid out and drawn as saved."""
    figures = {}
    save = Plotter.save

    def keep(self, fig, name, caption):
        path = save(self, fig, name, caption)
        figures[name] = fig
        return path

    monkeypatch.setattr(Plotter, "save", keep)
    roofline_figures(Plotter(str(tmp_path / "plots")), doc)
    return figures


def roof_names(fig, names):
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    return {t.get_text(): t.get_window_extent(renderer) for t in ax.texts if t.get_text() in names}


@pytest.mark.parametrize("ratio", [1.0, 0.99, 0.97, 0.9])
def test_flat_roof_names_within_a_few_percent_never_overprint(tmp_path, monkeypatch, ratio):
    doc = fixture_doc("stream-limits")
    roofs = doc["context"]["ceilings"]["roofs"]
    roofs["cpu_fma_f64_1"]["value"] = roofs["cpu_fma_f64_all"]["value"] * ratio
    fig = drawn(tmp_path, doc, monkeypatch)["roofline_cpu"]
    boxes = roof_names(fig, {"cpu_fma_f64_1", "cpu_fma_f64_all"})
    assert set(boxes) == {"cpu_fma_f64_1", "cpu_fma_f64_all"}
    a, b = boxes["cpu_fma_f64_all"], boxes["cpu_fma_f64_1"]
    assert not a.overlaps(b), (ratio, a, b)
    if ratio < 1:
        assert a.y0 >= b.y1 - 0.5  # the higher roof's name above the lower's
    # Both inside the axes, beside their lines.
    frame = fig.axes[0].get_window_extent()
    for box in (a, b):
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1 + 1 and frame.y0 <= box.y0 and box.y1 <= frame.y1 + 1


def test_the_legend_gives_the_roof_the_records_are_graded_against(tmp_path, monkeypatch):
    doc = fixture_doc("stream-limits")
    ctx = doc["context"]
    start = ctx["ceilings"]["roofs"]["cpu_bw_triad_all"]
    start["value"] = 61.7e9
    end = copy.deepcopy(start)
    end.update({"value": 103e9, "start": 61.7e9, "drift": 103 / 61.7 - 1})
    ctx["ceilings_end"] = {"measured_utc": "2026-01-01T01:00:00Z", "seconds": 1.0, "unavailable": {},
                           "roofs": {"cpu_bw_triad_all": end}}
    graded = 0
    for r in doc["records"]:
        lim = r.get("limit") or {}
        if lim.get("roof") == "cpu_bw_triad_all":  # graded against the end probe's roof
            lim["value"] = 103e9
            lim["fraction"] = lim["attained"] / lim["value"]
            graded += 1
    assert graded
    roofs = graded_roofs(doc)
    assert roofs["cpu_bw_triad_all"]["value"] == 103e9
    assert (roofs["cpu_bw_triad_all"]["start"], roofs["cpu_bw_triad_all"]["end"]) == (61.7e9, 103e9)
    fig = drawn(tmp_path, doc, monkeypatch)["roofline_cpu"]
    legend = []
    for lg in fig.axes[0].findobj(match=lambda o: type(o).__name__ == "Legend"):
        legend += [t.get_text() for t in lg.get_texts()]
    (triad,) = [x for x in legend if x.startswith("cpu_bw_triad_all ")]
    assert triad == "cpu_bw_triad_all 103 GB/s (start 61.7, end 103; measured, 2 threads)", legend
    # The line itself is drawn at the graded roof too: at intensity 1 its rate is 103 G (flop/s).
    line = next(ln for ln in fig.axes[0].get_lines() if ln.get_label() == triad)
    (x0, x1), (y0, y1) = line.get_xdata(), line.get_ydata()
    assert y0 / x0 == pytest.approx(103, rel=1e-9) and y1 / x1 == pytest.approx(103, rel=1e-9)
    # A roof measured once keeps its one value, as its records hold it.
    (fma,) = [x for x in legend if x.startswith("cpu_fma_f64_all ")]
    assert fma == "cpu_fma_f64_all 120 Gflop/s (measured, 2 threads)"
