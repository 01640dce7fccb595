"""Names that are valid, unique Python identifiers, shared by every view of a graph.

The recorded graph names its leaves with these rules, and generated code
keeps those names for its parameters, so a leaf's ``name`` in
``tape.graph.nx`` is the parameter it becomes.
"""

import builtins
import keyword
import unicodedata

RESERVED = frozenset({"np", "scipy", "INPUTS", "_check_inputs", "seed"})
"""Names a generated module uses for itself."""

LEAF_FALLBACKS = {"input": "x", "variable": "v", "constant": "data"}
"""Names for leaves that have no name of their own."""

_BUILTINS = frozenset(dir(builtins))


def identifier(text, fallback):
    """``text`` made into a Python identifier (``fallback`` if nothing usable is left).

    Python reads identifiers in NFKC form (``ℌ`` is ``H``), so names are kept in
    that form: two names that differ only before normalisation are one name.
    """
    normal = unicodedata.normalize("NFKC", str(text or ""))
    cleaned = "".join(ch if f"_{ch}".isidentifier() else "_" for ch in normal)
    cleaned = cleaned.strip("_") or fallback
    if not cleaned.isidentifier():
        cleaned = f"_{cleaned}"
    if keyword.iskeyword(cleaned):
        cleaned = f"{cleaned}_"
    return cleaned


class Namer:
    """Hands out unique names; asking twice for the same base gives ``base``, ``base_1``...

    A Python builtin's name gets a trailing underscore (``input_``), so generated
    code never shadows one.
    """

    def __init__(self, taken=RESERVED):
        self._taken = set(taken)
        self._last_suffix = {}  # base -> the highest suffix tried for it

    def claim(self, base):
        base = unicodedata.normalize("NFKC", base)
        if base in _BUILTINS:
            base = f"{base}_"
        name = base
        if name in self._taken:
            # Names are never given back, so every suffix tried before is still taken:
            # the search resumes there, and the n-th ``add`` costs one step, not n.
            count = self._last_suffix.get(base, 0)
            while name in self._taken:
                count += 1
                name = f"{base}_{count}"
            self._last_suffix[base] = count
        self._taken.add(name)
        return name
