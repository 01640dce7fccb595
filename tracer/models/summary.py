"""``Model.summary()``'s table: each layer, its output shape and its parameter count,
then the totals, laid out as Keras 3 lays them out."""

import numpy as np

_COLUMNS = (("Layer (type)", 33, "<"), ("Output Shape", 24, "<"), ("Param #", 15, ">"))


def summary_text(model):
    """The summary of ``model`` as text."""
    rows = [(f"{layer.name} ({type(layer).__name__})", _shape_text(layer),
             f"{layer.count_params():,}") for layer in model.layers]
    widths = [width for _, width, _ in _COLUMNS]

    def line(left, middle, right, fill):
        return left + middle.join(fill * (w + 2) for w in widths) + right

    def row(cells, edge):
        parts = [f" {cell:{align}{width}} " for cell, (_, width, align)
                 in zip(cells, _COLUMNS)]
        return edge + edge.join(parts) + edge

    lines = [f'Model: "{model.name}"', line("┏", "┳", "┓", "━"),
             row([title for title, _, _ in _COLUMNS], "┃"), line("┡", "╇", "┩", "━")]
    for k, cells in enumerate(rows):
        lines.append(row(cells, "│"))
        lines.append(line("├", "┼", "┤", "─") if k < len(rows) - 1 else line("└", "┴", "┘", "─"))
    if not rows:
        lines.append(line("└", "┴", "┘", "─"))
    trainable = _count(model.trainable_weights)
    every = _count(model.weights)
    size = sum(np.asarray(w.numpy()).nbytes for w in model.weights)
    lines += [f" Total params: {every:,} ({_bytes(size)})",
              f" Trainable params: {trainable:,} ({_bytes(size * trainable / max(every, 1))})",
              f" Non-trainable params: {every - trainable:,} "
              f"({_bytes(size * (every - trainable) / max(every, 1))})"]
    return "\n".join(lines)


def _shape_text(layer):
    shape = layer._output_shape
    if shape is None:
        return "?"
    if isinstance(shape, tuple) and all(isinstance(d, int) for d in shape):
        return str((None,) + shape[1:]) if shape else "()"
    return str(shape)


def _count(weights):
    return int(sum(np.prod(w.shape, dtype=np.int64) for w in weights))


def _bytes(size):
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.2f} {unit}"
        size /= 1024
