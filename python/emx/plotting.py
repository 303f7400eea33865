"""Plot layouts the experiments share."""


def panels_with_legend(fig, n, sharey=False, **gridspec):
    """n panels side by side (sharing y if asked) and, below them, a row that holds one legend
    for all: the report's tight_layout makes room for it, as it would not for a figure
    legend, and a legend inside a narrow panel covers its curves and labels. Returns
    (axes, legend): call legend(handles, labels) once the panels are drawn."""
    gs = fig.add_gridspec(2, n, height_ratios=[14, 1], **gridspec)
    first = fig.add_subplot(gs[0, 0])
    axes = [first] + [fig.add_subplot(gs[0, k], sharey=first if sharey else None)
                      for k in range(1, n)]
    for ax in axes[1:] if sharey else ():
        ax.tick_params(labelleft=False)
    row = fig.add_subplot(gs[1, :])
    row.axis("off")

    def legend(handles, labels):
        row.legend(handles, labels, loc="center", ncol=len(labels), fontsize=7,
                   frameon=False)
    return axes, legend
