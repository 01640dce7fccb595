"""Symbolic sizes: a dimension known by an expression of named sizes, not by a number.

A shape may hold, besides integers, ``Size`` expressions over the sizes a user
named (``batch``, ``steps``): integer polynomials (``2*batch + 1``,
``batch*steps``) whose atoms may also be floor quotients and remainders
(``batch // 2``, ``(batch + 1) % 4``), as ``jax.export``'s symbolic dimensions
are.  A graph traced once with such shapes holds for every size.

Each expression is kept in one canonical form: terms with equal factors are
collected, zero terms dropped, and what has no symbol left is a plain ``int``.
So expressions equal as polynomials are equal objects (``batch*2 == 2*batch``),
hash alike and print alike, and an exact division divides (``(4*batch) // 2``
is ``2*batch``).  ``+ - * // %`` take sizes and integers.

A ``Size`` never becomes a number and never compares with one: whether
``batch > 10`` depends on the sizes a program will be called with, which only a
guard can answer (``ir.sizes.guards``).  Code that asks (``int``, ``bool``, ``<``,
indexing) gets a ``TypeError``, never a silent answer.

In JSON a size is data (``to_data``, ``ir.sizes.data``): terms of
coefficients and factors, factors being names or tagged quotients and
remainders, read back through the arithmetic above, so loading never
evaluates anything and always gives the canonical form.
"""

import keyword
import math
import numbers
from operator import floordiv, mod

from ir.sizes.questions import ASKED, SPELLING, asked, unknown_size



class Size:
    """An integer polynomial over named sizes and quotient and remainder atoms.

    ``terms`` is a sorted tuple of ``(factors, coefficient)``: ``factors`` a
    sorted tuple of atoms (a name repeated for a power), the empty tuple for the
    constant term.  Build sizes with ``symbol`` and arithmetic, not directly.
    """

    __slots__ = ("terms", "_hash")

    def __init__(self, terms):
        self.terms = terms
        self._hash = hash(terms)

    # --- arithmetic --------------------------------------------------------------

    def __add__(self, other):
        other = _terms_of(other)
        return NotImplemented if other is None else _collected(self.terms + other)

    __radd__ = __add__

    def __neg__(self):
        return _collected(tuple((factors, -c) for factors, c in self.terms))

    def __sub__(self, other):
        return self + (-other) if _terms_of(other) is not None else NotImplemented

    def __rsub__(self, other):
        return (-self) + other if _terms_of(other) is not None else NotImplemented

    def __mul__(self, other):
        other = _terms_of(other)
        if other is None:
            return NotImplemented
        return _collected(tuple((_sorted(f + g), c * d)
                                for f, c in self.terms for g, d in other))

    __rmul__ = __mul__

    def __floordiv__(self, other):
        return quotient(self, other) if _terms_of(other) is not None else NotImplemented

    def __rfloordiv__(self, other):
        return quotient(other, self) if _terms_of(other) is not None else NotImplemented

    def __mod__(self, other):
        return remainder(self, other) if _terms_of(other) is not None else NotImplemented

    def __rmod__(self, other):
        return remainder(other, self) if _terms_of(other) is not None else NotImplemented

    # --- identity ----------------------------------------------------------------

    def __eq__(self, other):
        return isinstance(other, Size) and self.terms == other.terms

    def __hash__(self):
        return self._hash

    def __bool__(self):
        return asked(self, "!=", 0, "the truth of")

    def __index__(self):
        """The size at the traced sizes, fixed there by a guard (``ir.sizes.guards``)."""
        value = ASKED.value(self) if ASKED.value else None
        if value is None:
            raise unknown_size("the value of", self)
        return value

    __int__ = __index__

    def __lt__(self, other):
        return asked(self, "<", other, "an order between")

    def __le__(self, other):
        return asked(self, "<=", other, "an order between")

    def __gt__(self, other):
        return asked(self, ">", other, "an order between")

    def __ge__(self, other):
        return asked(self, ">=", other, "an order between")

    @property
    def symbols(self):
        """The names this size is made of, quotients and remainders included."""
        found = set()
        for factors, _ in self.terms:
            for atom in factors:
                found |= {atom} if isinstance(atom, str) else atom.symbols
        return frozenset(found)

    def evaluate(self, sizes):
        """The integer this is when each name has the size ``sizes[name]``."""
        total = 0
        for factors, coefficient in self.terms:
            product = coefficient
            for atom in factors:
                product *= sizes[atom] if isinstance(atom, str) else atom.evaluate(sizes)
            total += product
        return total

    def substitute(self, sizes):
        """This size with each name in ``sizes`` replaced by the size or integer given."""
        total = 0
        for factors, coefficient in self.terms:
            product = coefficient
            for atom in factors:
                if isinstance(atom, str):
                    product = product * sizes.get(atom, _atom(atom))
                else:
                    product = product * atom.substitute(sizes)
            total = total + product
        return total

    # --- text and data -----------------------------------------------------------

    def text(self, name=str):
        """Python source for this size, each symbol written as ``name(symbol)``:
        ``2*batch + 1``, ``(batch + 1) // 2``."""
        parts = []
        # The highest degree first; names before quotients within a degree.
        for factors, coefficient in sorted(self.terms, key=lambda term: -len(term[0])):
            # (``-a // b`` is ``(-a) // b``: a negated quotient leading keeps parentheses.)
            alone = len(factors) == 1 and (coefficient == 1 or (coefficient == -1 and parts))
            product = "*".join(_atom_text(atom, name, alone) for atom in factors)
            magnitude = abs(coefficient)
            if not product:
                body = str(magnitude)
            else:
                body = product if magnitude == 1 else f"{magnitude}*{product}"
            sign = "-" if coefficient < 0 else "+"
            parts.append(f"-{body}" if not parts and sign == "-" else
                         body if not parts else f"{sign} {body}")
        return " ".join(parts)

    def __str__(self):
        """The text, or while code is spelled (``spelled_as``) the code that computes it
        (listings and spellings show params by repr: ``shape=(8*batch,)``)."""
        return self.text(SPELLING.code_name or str)

    __repr__ = __str__

    def to_data(self):
        """This size as JSON data: ``{"$": "size", "terms": [[coefficient, [factor, ...]],
        ...]}``, a factor being a name or ``{"$": "//" or "%", "of": [a, b]}``."""
        return {"$": "size", "terms": [[c, [_atom_data(a) for a in factors]]
                                       for factors, c in self.terms]}


class _Division:
    """A floor quotient or remainder of two sizes (or a size and an integer): an atom
    of a polynomial, when the division is not exact."""

    __slots__ = ("numerator", "denominator", "_key")
    operator = None

    def __init__(self, numerator, denominator):
        self.numerator, self.denominator = numerator, denominator
        self._key = (self.operator, _key(numerator), _key(denominator))

    def __eq__(self, other):
        return type(other) is type(self) and self._key == other._key

    def __hash__(self):
        return hash(self._key)

    @property
    def symbols(self):
        return frozenset().union(*(s.symbols for s in (self.numerator, self.denominator)
                                   if isinstance(s, Size)))

    def evaluate(self, sizes):
        a, b = (s.evaluate(sizes) if isinstance(s, Size) else s
                for s in (self.numerator, self.denominator))
        return self.apply(a, b)

    def substitute(self, sizes):
        a, b = (s.substitute(sizes) if isinstance(s, Size) else s
                for s in (self.numerator, self.denominator))
        return self.apply_sizes(a, b)

    def nonnegative(self):
        a, b = self.numerator, self.denominator
        return _at_least(a, 0) and _at_least(b, 1)

    def text(self, name):
        a, b = self.numerator, self.denominator
        a_text = a.text(name) if isinstance(a, Size) else str(a)
        if isinstance(a, Size) and len(a.terms) > 1:
            a_text = f"({a_text})"
        b_text = b.text(name) if isinstance(b, Size) else str(b)
        if isinstance(b, Size) and not _is_name(b):
            b_text = f"({b_text})"
        return f"{a_text} {self.operator} {b_text}"


class _Quotient(_Division):
    __slots__ = ()
    operator = "//"
    apply = staticmethod(floordiv)
    apply_sizes = staticmethod(lambda a, b: quotient(a, b))


class _Remainder(_Division):
    __slots__ = ()
    operator = "%"
    apply = staticmethod(mod)
    apply_sizes = staticmethod(lambda a, b: remainder(a, b))

    def nonnegative(self):
        """Python's remainder takes the divisor's sign, whatever the dividend's."""
        return _at_least(self.denominator, 1)


def symbol(name):
    """The size named ``name`` (a Python identifier)."""
    if not (isinstance(name, str) and name.isidentifier() and not keyword.iskeyword(name)):
        raise ValueError(f"a size's name is a Python identifier, not {name!r}")
    return Size((((name,), 1),))


def quotient(a, b):
    """``a // b`` for sizes and integers: exact where every term divides, else an atom."""
    if not isinstance(a, Size) and not isinstance(b, Size):
        return a // b
    exact = _divided(a, b)
    if exact is not None:
        return exact
    return _atom(_Quotient(a, b))


def remainder(a, b):
    """``a % b`` for sizes and integers: ``0`` where ``a // b`` is exact, else an atom."""
    if not isinstance(a, Size) and not isinstance(b, Size):
        return a % b
    if _divided(a, b) is not None:
        return 0
    return _atom(_Remainder(a, b))


def at_least(size, bound):
    """Whether ``size >= bound`` whatever the values of its symbols, each at least 1 (a
    symbolic axis is never empty): true where ``size - bound``, with every symbol ``s``
    written ``1 + s``, has no negative coefficient.  ``False`` means not known."""
    return _at_least(size, bound)


def _at_least(size, bound):
    difference = size - bound
    if _nonnegative(difference):
        return True
    lower = _divisions_at_their_bounds(difference) if isinstance(difference, Size) else None
    return lower is not None and _nonnegative(lower)


def _nonnegative(size):
    """Whether ``size`` is at least 0 for every symbol at least 1, judged term by term:
    each symbol outside a quotient or remainder written ``1 + s`` (``s`` at least 0),
    and each quotient or remainder, judged as it stands, taken as one unknown."""
    if not isinstance(size, Size):
        return size >= 0
    if not all(isinstance(a, str) or a.nonnegative() for f, _ in size.terms for a in f):
        return False
    shifted = 0
    for factors, c in size.terms:
        term = c
        for factor in factors:
            term = term * (1 + _atom(factor) if isinstance(factor, str) else _atom(factor))
        shifted = shifted + term
    if not isinstance(shifted, Size):
        return shifted >= 0
    return all(c >= 0 for _, c in shifted.terms)


def _divisions_at_their_bounds(size):
    """A lower bound of ``scale * size + scale - 1`` (``None`` if no division bounds it),
    which is at least 0 exactly where an integer ``size`` is known to be: each
    quotient ``a // c`` by a positive int taken as ``(a - c + 1) / c`` or ``a / c``, and
    each remainder ``a % b`` as 0 or ``b - 1``, whichever is lower for its sign."""
    divisors = [f[0].denominator for f, _ in size.terms if len(f) == 1
                and isinstance(f[0], _Quotient) and type(f[0].denominator) is int
                and f[0].denominator > 0]
    scale = math.lcm(*divisors) if divisors else 1
    lower, changed = scale - 1, False
    for factors, c in size.terms:
        term = scale * c
        for factor in factors:
            term = term * _atom(factor)
        single = factors[0] if len(factors) == 1 else None
        if isinstance(single, _Remainder) and _at_least(single.denominator, 1):
            term, changed = (scale * c * (single.denominator - 1) if c < 0 else 0), True
        elif isinstance(single, _Quotient) and single.denominator in divisors:
            d, a = single.denominator, single.numerator
            term, changed = c * (scale // d) * (a - d + 1 if c > 0 else a), True
        lower = lower + term
    return lower if changed else None


# --- canonical forms -------------------------------------------------------------------


def _terms_of(value):
    """The terms of a size or an integer (``None`` for anything else)."""
    if isinstance(value, Size):
        return value.terms
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return (((), int(value)),) if value else ()
    return None


def _collected(terms):
    """The canonical size (or integer) of a sum of terms."""
    total = {}
    for factors, coefficient in terms:
        total[factors] = total.get(factors, 0) + coefficient
    kept = tuple(sorted(((f, c) for f, c in total.items() if c), key=lambda t: _key(t[0])))
    if not kept:
        return 0
    if len(kept) == 1 and not kept[0][0]:
        return kept[0][1]
    return Size(kept)


def _atom(atom):
    return Size((((atom,), 1),))


def _sorted(factors):
    return tuple(sorted(factors, key=_key))


def _key(value):
    """A total order over atoms, factor tuples, sizes and integers."""
    if isinstance(value, str):
        return (1, value)
    if isinstance(value, _Division):
        return (2,) + value._key
    if isinstance(value, Size):
        return (3, tuple((_key(f), c) for f, c in value.terms))
    if isinstance(value, tuple):
        return (len(value), tuple(_key(atom) for atom in value))
    return (0, value)


def _divided(a, b):
    """``a // b`` when it is exact whatever the symbols' values: every term of ``a``
    divided by a one-term ``b``; else ``None``."""
    b_terms = _terms_of(b)
    if len(b_terms) != 1:
        return None
    (divisor, d), = b_terms
    if d == 0:
        raise ZeroDivisionError("a size divided by zero")
    out = []
    for factors, coefficient in _terms_of(a):
        rest = list(factors)
        for atom in divisor:
            if atom not in rest:
                return None
            rest.remove(atom)
        if coefficient % d:
            return None
        out.append((tuple(rest), coefficient // d))
    return _collected(out)


def _atom_text(atom, name, alone):
    """An atom's source; a quotient or remainder in a product in parentheses."""
    if isinstance(atom, str):
        return name(atom)
    return atom.text(name) if alone else f"({atom.text(name)})"


def _is_name(size):
    (factors, coefficient), = size.terms if len(size.terms) == 1 else ((None, None),)
    return coefficient == 1 and len(factors) == 1 and isinstance(factors[0], str)


def _atom_data(atom):
    if isinstance(atom, str):
        return atom
    return {"$": atom.operator, "of": [_size_data(atom.numerator), _size_data(atom.denominator)]}


def _size_data(value):
    return value.to_data() if isinstance(value, Size) else value
