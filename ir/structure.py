"""Nested structures of tensors (lists, tuples, dicts), flattened and rebuilt.

``gradient`` returns its results in exactly the structure of its sources;
these two functions are how.  Dicts are walked in sorted key order (or
insertion order when keys do not sort), as ``tf.nest`` does.
"""


def keys_in_order(mapping):
    """A dict's keys in the order its leaves are flattened: sorted, or as inserted when
    they do not sort."""
    try:
        return sorted(mapping)
    except TypeError:
        return list(mapping)


def flatten(structure):
    """The leaves of ``structure`` in a fixed order."""
    if isinstance(structure, dict):
        return [leaf for k in keys_in_order(structure) for leaf in flatten(structure[k])]
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def leaf_paths(structure, prefix=""):
    """Where each leaf of ``structure`` sits, as ``[0]['h']``, in ``flatten`` order: what
    an error about one leaf names."""
    if isinstance(structure, dict):
        return [path for k in keys_in_order(structure)
                for path in leaf_paths(structure[k], f"{prefix}[{k!r}]")]
    if isinstance(structure, (list, tuple)):
        return [path for k, item in enumerate(structure)
                for path in leaf_paths(item, f"{prefix}[{k}]")]
    return [prefix]


def pack_as(structure, leaves):
    """``structure`` with its leaves replaced, in order, by ``leaves``."""
    leaves = iter(leaves)

    def rebuild(s):
        if isinstance(s, dict):
            rebuilt = {k: rebuild(s[k]) for k in keys_in_order(s)}
            return type(s)((k, rebuilt[k]) for k in s)
        if isinstance(s, tuple) and hasattr(s, "_fields"):
            return type(s)(*(rebuild(item) for item in s))
        if isinstance(s, (list, tuple)):
            return type(s)(rebuild(item) for item in s)
        return next(leaves)

    return rebuild(structure)
