"""A size read back from the JSON data ``Size.to_data`` writes, checked as it is read.

A size is terms of coefficients and factors, each factor a name or a tagged
quotient or remainder; reading builds it through the arithmetic of ``ir.sizes.dims``,
so loading never evaluates anything and always gives the canonical form.
"""

from ir.sizes.dims import Size, quotient, remainder, symbol

MAX_SIZE_DEPTH = 8
"""How deeply quotients and remainders may nest in a size read from data."""

MAX_TERMS = 64
"""How many terms a size read from data may have."""


def size_from_data(data, where, depth=0):
    """The size (or integer) ``to_data`` wrote, checked: names are identifiers, numbers
    integers, nesting and length bounded.  Raises ``ValueError`` naming ``where``."""
    if type(data) is int:
        return data
    if not (isinstance(data, dict) and data.get("$") == "size" and set(data) == {"$", "terms"}
            and isinstance(data["terms"], list) and len(data["terms"]) <= MAX_TERMS):
        raise ValueError(f"{where}: not a size: {data!r:.80}")
    total = 0
    for term in data["terms"]:
        if not (isinstance(term, list) and len(term) == 2 and type(term[0]) is int
                and isinstance(term[1], list) and len(term[1]) <= MAX_TERMS):
            raise ValueError(f"{where}: a size's term is [coefficient, [factors]], not "
                             f"{term!r:.80}")
        product = term[0]
        for factor in term[1]:
            product = product * _atom_from_data(factor, where, depth)
        total = total + product
    return total


def _atom_from_data(data, where, depth):
    if isinstance(data, str):
        try:
            return symbol(data)
        except ValueError as error:
            raise ValueError(f"{where}: {error}") from None
    if depth >= MAX_SIZE_DEPTH:
        raise ValueError(f"{where}: sizes nested deeper than {MAX_SIZE_DEPTH}")
    if not (isinstance(data, dict) and set(data) == {"$", "of"} and data["$"] in ("//", "%")
            and isinstance(data["of"], list) and len(data["of"]) == 2):
        raise ValueError(f"{where}: a size's factor is a name or a quotient or remainder, "
                         f"not {data!r:.80}")
    a, b = (size_from_data(part, where, depth + 1) for part in data["of"])
    if not isinstance(b, Size) and b == 0:
        raise ValueError(f"{where}: a size divided by zero")
    return quotient(a, b) if data["$"] == "//" else remainder(a, b)
