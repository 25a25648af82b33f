"""The figure writer: matplotlib set up for deterministic output, and the list of figures drawn."""
from __future__ import annotations

import os


class Plotter:
    def __init__(self, out_dir: str):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        matplotlib.rcParams.update({"svg.hashsalt": "parlab", "figure.dpi": 100, "savefig.dpi": 100,
                                    "font.size": 9, "axes.grid": True, "grid.alpha": 0.3})
        self.plt = plt
        self.out_dir = out_dir
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

    def save(self, fig, name: str, caption: str) -> None:
        fig.tight_layout()
        fig.savefig(os.path.join(self.out_dir, name + ".png"), metadata={"Software": None})
        fig.savefig(os.path.join(self.out_dir, name + ".svg"), metadata={"Date": None, "Creator": None})
        self.plt.close(fig)
        self.figures.append((name, caption))
