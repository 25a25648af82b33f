"""Error bars and the unstable mark, drawn one way in every throughput, speedup and scaling figure.

A bar is the interquartile range of the record's repetitions: spread.rate_band, the rate at the
quartile times (a time's third quartile is the rate's first). Any value proportional to 1 / time
(a rate in another unit, GB/s) takes the same band.

A ratio of two records (a speedup: baseline time / time, a rate over a library's rate) has no
quartiles of its own: the two records' repetitions are not paired, so there is no sample of the
ratio. Its bar is the interval arithmetic of the two bands instead: lowest where the numerator is
at the slow end of its interquartile range and the denominator at the fast end of its own,
highest the other way round. That is wider than either band alone, and reads "while each record
stays within its interquartile range, the ratio stays within this". A point that is its own
baseline (a backend's 1-thread point, 1.0 by definition) has no bar.

A record the runner or the pooling of rounds marked `unstable` (its CV over spread.UNSTABLE_CV, or
its rounds disagree) is drawn hollow (a bar hatched), and so is a ratio with an unstable side."""
from __future__ import annotations

from analysis.spread import UNSTABLE_CV

BARS_NOTE = "bars: interquartile range of the repetitions"
UNSTABLE_NOTE = f"hollow: unstable (CV over {UNSTABLE_CV:.0%} or rounds disagree)"
HATCHED_NOTE = f"hatched: unstable (CV over {UNSTABLE_CV:.0%} or rounds disagree)"  # a bar chart's


def errors(values: list, bands: list, scale: float = 1.0):
    """[[below], [above]] for matplotlib's xerr/yerr from bands in the values' units divided by
    scale; 0 where a value has no band. None where none has one, so no empty bar is drawn."""
    if not any(bands):
        return None
    below = [max(v - b[0] / scale, 0.0) if b else 0.0 for v, b in zip(values, bands)]
    above = [max(b[1] / scale - v, 0.0) if b else 0.0 for v, b in zip(values, bands)]
    return [below, above]


def draw_points(ax, xs: list, ys: list, bands: list, marks: list, scale: float = 1.0, **style):
    """A line of points with their error bars (bands, in the ys' units times scale) and a hollow
    marker on each unstable point (marks); style goes to matplotlib's errorbar (label, color,
    marker, linestyle). Returns the line, whose colour the caller may reuse."""
    style.setdefault("marker", "o")
    container = ax.errorbar(xs, ys, yerr=errors(ys, bands, scale), capsize=2.5, elinewidth=1, **style)
    line = container.lines[0]
    hollow = [(x, y) for x, y, m in zip(xs, ys, marks) if m]
    if hollow:
        ax.plot([x for x, _ in hollow], [y for _, y in hollow], linestyle="none", marker=line.get_marker(),
                color=line.get_color(),  # given, so the next line's colour is not taken from the cycle
                markersize=line.get_markersize() + 1, markerfacecolor="white", markeredgecolor=line.get_color(),
                markeredgewidth=1.5, zorder=line.get_zorder() + 0.1)
    return line


def with_legend_row(p, ncols: int, figsize: tuple, legend_height: float = 1.0, **gridspec):
    """(fig, [axes], legend axes): ncols axes side by side over a row of their width that holds
    only a legend, so a long legend sits outside the data and the layout makes room for it."""
    fig = p.plt.figure(figsize=figsize)
    gs = fig.add_gridspec(2, ncols, height_ratios=[figsize[1] - legend_height, legend_height], **gridspec)
    axes = [fig.add_subplot(gs[0, i]) for i in range(ncols)]
    lax = fig.add_subplot(gs[1, :])
    lax.axis("off")
    return fig, axes, lax


def legend_notes(ax, bars: bool, hollow: bool, into=None, hatched: bool = False, **legend_kw):
    """The axes' legend with an entry for what the bars are and, where a point is unstable, for
    the hollow mark (hatched: a bar chart's hatched bar; caption_note says both again under the
    figure); into: the axes that shows it (a legend row of with_legend_row), else ax."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles, labels = ax.get_legend_handles_labels()
    if bars:
        handles.append(Line2D([], [], color="grey", marker="|", markersize=9, linestyle="none"))
        labels.append(BARS_NOTE)
    if hollow and hatched:
        handles.append(Patch(facecolor="white", edgecolor="grey", hatch="//"))
        labels.append(HATCHED_NOTE)
    elif hollow:
        handles.append(Line2D([], [], color="grey", marker="o", markerfacecolor="white", linestyle="none"))
        labels.append(UNSTABLE_NOTE)
    return (into or ax).legend(handles, labels, **legend_kw)


def caption_note(bars: bool, unstable_names: list, note: str = UNSTABLE_NOTE) -> str:
    """"; bars: ...; hollow: unstable ...: a, b" for a figure's caption ("" for neither); note:
    HATCHED_NOTE for a bar chart."""
    text = f"; {BARS_NOTE}" if bars else ""
    if unstable_names:
        text += f"; {note}: {', '.join(sorted(set(unstable_names)))}"
    return text
