"""The one figure and HTML writer of the analysis package, used by the run report (figures/,
figures/report.py) and by compare's report (compare_report.py): matplotlib set up for
deterministic files, the list of figures drawn, a figure embedded in a self-contained page, the
page's head with the one stylesheet (style.py), and the page written atomically (a reader never
sees half a report)."""
from __future__ import annotations

import base64
import html
import os

from .style import STYLE


class Plotter:
    """Draws into out_dir. svg: also write an SVG beside each PNG (the run report links to it;
    compare's report embeds the PNG only). grid: a grid on every axes by default."""

    def __init__(self, out_dir: str, svg: bool = True, grid: bool = True):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        rc = {"svg.hashsalt": "parlab", "figure.dpi": 100, "savefig.dpi": 100, "font.size": 9}
        if grid:
            rc.update({"axes.grid": True, "grid.alpha": 0.3})
        matplotlib.rcParams.update(rc)
        self.plt = plt
        self.out_dir = out_dir
        self.svg = svg
        self.figures: list[tuple[str, str]] = []  # (name, caption)
        os.makedirs(out_dir, exist_ok=True)

    @staticmethod
    def label(ax, xlabel: str, ylabel: str, title: str, whole_x: bool = False, legend_size=None) -> None:
        """Axis labels, title and legend of a figure's axes; whole_x: only whole numbers on x
        (thread, worker and rank counts)."""
        if whole_x:
            from matplotlib.ticker import MaxNLocator
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.legend(fontsize=legend_size)

    def path(self, name: str, ext: str = "png") -> str:
        return os.path.join(self.out_dir, f"{name}.{ext}")

    def save(self, fig, name: str, caption: str) -> str:
        """Writes the figure (no dates or tool names in the metadata, so the bytes depend on the
        data only), records it and returns the PNG's path."""
        fig.tight_layout()
        fig.savefig(self.path(name), metadata={"Software": None})
        if self.svg:
            fig.savefig(self.path(name, "svg"), metadata={"Date": None, "Creator": None})
        self.plt.close(fig)
        self.figures.append((name, caption))
        return self.path(name)


def figure_html(png_path: str, caption: str, svg_href: str | None = None) -> str:
    """A <figure> with the PNG embedded (the page stays one self-contained file) and, where given,
    a link to the SVG beside it."""
    with open(png_path, "rb") as f:
        data = base64.b64encode(f.read()).decode("ascii")
    e = html.escape
    link = f" (<a href='{e(svg_href)}'>SVG</a>)" if svg_href else ""
    return (f"<figure><img alt='{e(caption)}' src='data:image/png;base64,{data}'>"
            f"<figcaption>{e(caption)}{link}</figcaption></figure>")


def page_head(title: str) -> str:
    """The page's head with the package's one stylesheet (style.py), so both pages' classes mean
    the same."""
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{STYLE}</style></head><body>")


def write_page(path: str, text: str) -> str:
    """Writes text to path through a temporary file and a rename; returns path."""
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
    return path
