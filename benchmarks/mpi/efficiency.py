"""Parallel efficiency, as the scaling runs (scaling.py) and the model (model.py) both report it."""


def efficiency(mode, ranks, one_rank, time):
    """T(1) / (P T(P)) for strong scaling (one problem), T(1) / T(P) for weak (the same work per rank)."""
    return one_rank / (ranks * time) if mode == "strong" else one_rank / time


def efficiency_axes(ax, mode, title):
    """Efficiency against ranks on a log2 axis."""
    ax.set_xscale("log", base=2)
    ax.set_ylim(0, 1.1)
    ax.set_xlabel("ranks (one device each)")
    ax.set_ylabel("parallel efficiency")
    ax.set_title(f"{mode} scaling, {title}")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
