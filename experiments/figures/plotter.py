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

    def save(self, fig, name: str, caption: str) -> None:
        fig.tight_layout()
        fig.savefig(os.path.join(self.out_dir, name + ".png"), metadata={"Software": None})
        fig.savefig(os.path.join(self.out_dir, name + ".svg"), metadata={"Date": None, "Creator": None})
        self.plt.close(fig)
        self.figures.append((name, caption))
