"""What a primitive is: one numpy operation with its shape rule and derivative rules.

A primitive is defined once (see ``ir/primitives/``) and applied with
``prim(*args, **params)``.  Applying dispatches on the kinds of value among the
arguments: plain numpy values are computed at once, while value kinds that
register a handler (the tracer's tensors, the symbolic values of a graph under
construction) decide for themselves what applying means (record it, add a
node).  Derivative rules are written with primitives and operators, so the same
rule evaluates eagerly, records on outer tapes, or builds graph nodes.
"""

import functools

import numpy as np

from ir.sizes.shape_rules import has_sizes, symbolic_type

VALUE_KINDS = {}
"""``(priority, handler)`` of each registered value kind, by class."""

TRACED_PRIORITY = 10
"""Priority of the tracer's tensors and variables: the lowest, since a rule evaluated
on symbols or on a batch of tensors must build symbols or batches, whose operations
record the tensors' in turn."""
SYMBOLIC_PRIORITY = 100
"""Priority of ``ir.Symbol``: above tensors (a graph can hold a tensor as a constant)."""
BATCHED_PRIORITY = 1000
"""Priority of ``ir.autodiff.batching.Batched``: above all, since a batch may hold symbols or
tensors and applies the primitive to them along its leading axis."""


def register_value_kind(cls, handler, priority):
    """Make ``prim(...)`` call ``handler(prim, args, params)`` when ``cls`` is among the args.

    Where several kinds meet in one call the one with the highest priority
    handles it.
    """
    VALUE_KINDS[cls] = (priority, handler)


def shape_of(value):
    """Static shape of any value a rule can meet (arrays, tensors, symbols, scalars)."""
    return getattr(value, "shape", ())


def dtype_of(value):
    """numpy dtype of any value a rule can meet; Python scalars give numpy's default."""
    dtype = getattr(value, "dtype", None)
    return dtype if dtype is not None else np.result_type(value)


TRAINABLE_KINDS = "fcO"
"""numpy dtype kinds that carry gradients: floating point and complex, as in
TensorFlow; integers and bools never do.  Objects are the values of nodes with
several results (a loop's, ``ir.primitives.results``), whose float results do."""


def is_trainable(dtype):
    """Whether values of ``dtype`` carry gradients."""
    return dtype.kind in TRAINABLE_KINDS


def is_complex(value):
    """Whether a value (array, tensor, symbol, scalar, nested list) is complex."""
    try:
        return value.dtype.kind == "c"
    except AttributeError:  # Python scalars and lists (the reverse walk asks often)
        return np.iscomplexobj(value)


HOLOMORPHIC = "holomorphic"
"""``complex_rules`` of a primitive whose rules are written as for real numbers
(``g * f'(x)``, transposed products): for complex values they give the
conjugate of TensorFlow's cotangent, which ``ir.backward`` accounts for.  True
of holomorphic functions and of complex-linear maps (sums, reshapes, FFTs)."""
AS_WRITTEN = "as written"
"""``complex_rules`` of a primitive whose rules give TensorFlow's cotangent for
complex values as they stand: functions that are not holomorphic (``real``,
``conj``, ``abs``, ``angle``), and maps between real and complex values."""
REAL_LINEAR = "real linear"
"""``complex_rules`` of a primitive whose rules map the cotangent linearly with real
coefficients (sums, reshapes, indexing, ``add``): they commute with conjugation, so
they give TensorFlow's cotangent or its conjugate, whichever they are given."""
REAL_ONLY = "real only"
"""``complex_rules`` of a primitive with no derivative for complex values (``maximum``
orders complex numbers lexicographically): ``ir.backward`` refuses them."""


LINEAR = "linear"
"""``linearity`` of a primitive linear in all its differentiable inputs together
(sums, reshapes, indexing, ``add``): its Jacobian-vector product is the
primitive applied to the tangents (see ``ir.autodiff.forward``)."""
MULTILINEAR = "multilinear"
"""``linearity`` of a primitive linear in each input separately (products): its
Jacobian-vector product for one input is the primitive with the tangent in
that input's place."""


class Unspellable(NotImplementedError):
    """Raised by a spelling that cannot write its node as numpy source: ``what`` names the
    operation as a user knows it, ``why`` says why and what to do instead."""

    def __init__(self, what, why):
        super().__init__(f"{what}: {why}")
        self.what = what
        self.why = why


def not_in_the_standard(what, reason):
    """The array-API target's refusal of ``what`` (a call as numpy spells it): the
    standard lacks it, for ``reason``."""
    return Unspellable(what, (
        f"it has no spelling for target='array_api': {reason}. Generate the numpy "
        "target for this computation, or write it with the standard's functions"))


class Primitive:
    """One operation of the IR.

    Every fact about a primitive is a keyword argument of its constructor,
    stated where the primitive is defined, and read back as the attribute of
    the same name (``abstract`` through the method of that name).

    ``impl`` computes it on numpy values.  Its VJP rules take one of three
    forms.  ``vjps`` holds one rule per positional input, ``rule(g, out,
    *args, **params) -> cotangent``, or ``None`` where no gradient flows to
    that input.  ``nary_vjp``, ``rule(position, g, out, *args, **params)``,
    serves primitives of any arity (``concatenate``, ``einsum``).
    ``joint_vjp``, ``rule(g, out, *args, wanted, **params)``, finds every
    input's cotangent at once (user-defined gradients, loops) and returns one
    per input; only those at the positions ``wanted`` (a frozenset) are read,
    so a loop's reverse loop need not compute the others.  A rule that names
    its own primitive is a function defined before it: it looks the name up
    when it runs.  A primitive whose ``no_gradient`` is set (a reason, such
    as "returns integers") never passes gradient to any input.

    ``abstract`` gives the output shape and dtype from the inputs' shapes and
    dtypes (``ir`` uses it to build graphs without values).  ``reads`` maps
    each input position to the values its rule looks at (input positions and
    ``"out"``; shapes and dtypes are always known): a tape keeps only the
    values the rules of its tracked inputs read, as TensorFlow's does.
    ``None`` means every rule reads all.
    ``source`` is how generated numpy code spells it (see ``spelling``), and
    ``helpers`` maps the names of functions a spelling calls to their source,
    which a generated module then defines (a helper that is an import
    statement, such as ``import scipy.special``, heads the module instead).
    ``array_api`` is its spelling in the array API standard's namespace ``xp``,
    as ``source`` is numpy's, where it does not follow from numpy's (``np.f``
    spelled ``xp.f``): ``xp.acos({0})`` for ``np.arccos``; a function of the params
    that returns ``None`` where numpy's spelling serves, and raises
    ``not_in_the_standard`` where the standard lacks what the node needs.
    ``complex_rules`` says how the rules treat complex values: ``HOLOMORPHIC``
    (the default), ``REAL_LINEAR``, ``AS_WRITTEN`` or ``REAL_ONLY``; a joint
    rule is ``AS_WRITTEN`` unless stated, since a user's gradient function
    works in TensorFlow's convention.  ``linearity`` (``LINEAR``,
    ``MULTILINEAR`` or ``None``) gives forward mode its cheapest JVP; every
    primitive has one either way (``ir.autodiff.forward``).

    ``batch``, ``rule(prim, args, params, size) -> Batched``, applies the
    primitive to batched values (``ir.autodiff.batching``): elementwise primitives
    align the batch axis without one, and a primitive with neither is applied
    to one value at a time.  What the optimiser may assume: ``commutative``
    (the operands can swap without changing a bit) and ``units`` (``(position
    of x, unit)`` pairs: with the other operand all ``unit`` the result is
    ``x``, as in ``x * 1``).  ``python_only`` says why a node of the primitive
    exists only in the process that recorded it (its params hold Python
    callables): it is never folded, written as JSON or generated as source.
    ``value_name`` is what generated code calls the values it computes
    (``mul``, ``total``), or a function of the params giving that name; by
    default the primitive's own name.  ``jvp``, ``rule(args, params, out,
    tangents) -> tangent``, is the Jacobian-vector product of a primitive whose
    JVP cannot be read off its VJP (loops, whose tangent is a loop of tangents).
    ``results`` (``ir.several_results.SeveralResults``) describes a primitive
    whose nodes have several results: their types, its bodies, where each
    result comes from.  ``shape_rule(avals, params) -> shape`` gives the result's
    shape when sizes are symbolic (``ir.sizes.shape_rules``); elementwise primitives
    broadcast, and one with neither is specialised to the sizes traced.  ``effect``
    says what a primitive does besides computing its value (``"prints"``): its nodes
    are never folded, merged or dropped, and generated code writes each as a statement
    of its own, where it was recorded.
    """

    __slots__ = ("name", "impl", "vjps", "nary_vjp", "joint_vjp", "no_gradient", "elementwise",
                 "reads", "source", "array_api", "helpers", "complex_rules", "linearity",
                 "batch", "commutative", "units", "python_only", "value_name", "jvp",
                 "results", "shape_rule", "effect", "_abstract", "_rules")

    def __init__(self, name, impl, *, vjps=(), nary_vjp=None, joint_vjp=None, elementwise=False,
                 no_gradient=None, abstract=None, reads=None, source=None, array_api=None,
                 helpers=None, complex_rules=None, linearity=None, batch=None, commutative=False,
                 units=(), python_only=None, value_name=None, jvp=None, results=None,
                 shape_rule=None, effect=None):
        if sum((bool(vjps), nary_vjp is not None, joint_vjp is not None)) > 1:
            raise ValueError(f"primitive {name!r}: give its VJP rules in one form")
        if complex_rules is None:
            complex_rules = AS_WRITTEN if joint_vjp is not None else HOLOMORPHIC
        if complex_rules not in (HOLOMORPHIC, REAL_LINEAR, AS_WRITTEN, REAL_ONLY):
            raise ValueError(f"primitive {name!r}: unknown complex_rules {complex_rules!r}")
        if linearity not in (None, LINEAR, MULTILINEAR):
            raise ValueError(f"primitive {name!r}: unknown linearity {linearity!r}")
        self.name = name
        self.complex_rules = complex_rules
        self.linearity = linearity
        self.impl = impl
        self.vjps = tuple(vjps)
        self.nary_vjp = nary_vjp
        self.joint_vjp = joint_vjp
        self.no_gradient = no_gradient
        self.elementwise = elementwise
        self.reads = {} if no_gradient is not None else reads
        self.source = source
        self.array_api = array_api
        self.helpers = helpers or {}
        self.batch = batch
        self.commutative = commutative
        self.units = units
        self.python_only = python_only
        self.value_name = value_name
        self.jvp = jvp
        self.results = results
        self._abstract = abstract
        self.shape_rule = shape_rule
        self.effect = effect
        self._rules = {}
        if name in PRIMITIVES:
            raise ValueError(f"primitive {name!r} is defined twice")
        PRIMITIVES[name] = self

    @property
    def reads_out(self):
        """Whether a rule reads the result, which a tape then keeps."""
        return self.reads is None or any("out" in read for read in self.reads.values())

    def vjp_rule(self, position):
        """The rule ``rule(g, out, *args, **params)`` for input ``position``, whichever form
        the primitive's rules take, or ``None`` when no gradient flows there."""
        if self.no_gradient is not None:
            return None
        if self.joint_vjp is not None:
            return functools.partial(_one_of_joint, self.joint_vjp, position)
        if self.nary_vjp is not None:
            return functools.partial(self.nary_vjp, position)
        rules = self.vjps
        return rules[position] if position < len(rules) else None

    def vjp_rules(self, arity):
        """``vjp_rule`` of each of ``arity`` inputs, made once per arity: the reverse walk
        asks at every op, and an n-ary primitive's rules would be new partials each time."""
        rules = self._rules.get(arity)
        if rules is None:
            rules = self._rules[arity] = tuple(self.vjp_rule(p) for p in range(arity))
        return rules

    def input_cotangents(self, g, out, args, params, ids, wanted):
        """``(position, cotangent)`` for each input whose id (``ids`` has one per input)
        is in ``wanted``, given the output's cotangent ``g``: one call for any kind of
        rule (per input, n-ary, joint).  A cotangent is ``None`` where the rule gives none.
        Each is yielded as its rule gives it, so that a graph built from the rules adds
        it to its input before the next rule runs (the order of the adjoint's nodes)."""
        if self.joint_vjp is not None:
            positions = [p for p, i in enumerate(ids) if i in wanted]
            cotangents = self.joint_vjp(g, out, *args, wanted=frozenset(positions), **params)
            for p in positions:
                yield p, cotangents[p]
            return
        rules = self._rules.get(len(args)) or self.vjp_rules(len(args))
        for p, i in enumerate(ids):
            if i in wanted:
                rule = rules[p]
                if rule is not None:
                    yield p, rule(g, out, *args, **params)

    def __call__(self, *args, **params):
        best = None
        priority = 0
        for arg in args:
            entry = VALUE_KINDS.get(arg.__class__)
            if entry is not None and entry[0] > priority:
                priority, best = entry
        if best is None:
            return self.impl(*args, **params)
        return best(self, args, params)

    def spelling(self, params, shapes):
        """Generated numpy source for this primitive: an expression template with
        ``{0}``, ``{1}``, ... for the arguments, given static params and argument shapes.

        ``source`` is that template, or a function ``(params, shapes) -> template``;
        a primitive computed by a numpy ufunc is spelled as a call to it by default.
        """
        if callable(self.source):
            return self.source(params, shapes)
        if self.source is not None:
            return self.source
        if isinstance(self.impl, np.ufunc):
            return f"np.{self.impl.__name__}({', '.join(_slots(len(shapes)))})"
        raise Unspellable(f"primitive {self.name!r}", "it has no numpy spelling")

    def array_api_spelling(self, params, shapes):
        """The template of the array API standard's spelling, where the primitive states
        one (``array_api``); ``None`` where it follows from the numpy spelling."""
        if callable(self.array_api):
            return self.array_api(params, shapes)
        return self.array_api

    def name_for_value(self, params):
        """What generated code calls a value this primitive computes with ``params``."""
        if callable(self.value_name):
            return self.value_name(params)
        return self.value_name or self.name

    def abstract(self, avals, params):
        """Output ``(shape, dtype)`` for inputs given as ``(shape, dtype)`` pairs or scalars;
        with symbolic sizes among them, ``ir.sizes.shape_rules`` answers."""
        if has_sizes(avals, params):
            return symbolic_type(self, avals, params)
        if self._abstract is not None:
            return self._abstract(avals, params)
        # Evaluating on zero-strided stand-ins of zeros costs no input memory
        # and keeps every primitive's shape logic in its numpy implementation;
        # what zeros mean to log or divide is of no interest here.
        with np.errstate(all="ignore"):
            if self.elementwise:
                shape = np.broadcast_shapes(*(a[0] for a in avals if isinstance(a, tuple)))
                probe = self.impl(*(_probe(a, ()) for a in avals), **params)
                return shape, np.result_type(probe)
            out = self.impl(*(_probe(a, None) for a in avals), **params)
            return np.shape(out), np.result_type(out)

    def __repr__(self):
        return f"<primitive {self.name}>"

    def __reduce__(self):
        # Pickled and copied by name, as the one definition it is: graphs whose nodes
        # hold it pickle as they did when nodes held only the name.
        return primitive_named, (self.name,)


def _one_of_joint(joint, position, g, out, *args, **params):
    """Input ``position``'s cotangent from a rule that finds every input's at once."""
    return joint(g, out, *args, wanted=frozenset((position,)), **params)[position]


def _slots(count, start=0):
    return [f"{{{k}}}" for k in range(start, start + count)]


def call(function, *, start=0, **keywords):
    """A ``source`` function spelling ``function({0}, {1}, ..., key=value)``.

    ``keywords`` map each param to its default: params at their default are
    left out, so the generated call reads like handwritten numpy (and so do
    text listings: the function keeps the defaults as ``defaults``).
    """
    def spell(params, shapes):
        args = _slots(len(shapes) - start, start)
        for key, default in keywords.items():
            value = params[key]
            if is_default(value, default):
                continue
            args.append(f"{key}={spell_value(value)}")
        return f"{function}({', '.join(args)})"
    spell.defaults = keywords
    return spell


def method(name, **keywords):
    """A ``source`` function spelling ``{0}.name(key=value)``, the array's own method
    (``total.sum(axis=0)``), as ``call`` leaves out params at their default.  numpy's
    function of the name wraps the method in Python, a cost beside a small array's sum;
    an argument of no axes, which may be written as a Python number, gets the function
    (``np.name({0})``)."""
    function = call(f"np.{name}", **keywords)

    def spell(params, shapes):
        if not len(shapes[0]):
            return function(params, shapes)
        args = [f"{key}={spell_value(params[key])}" for key, default in keywords.items()
                if not is_default(params[key], default)]
        return f"{{0}}.{name}({', '.join(args)})"
    spell.defaults = keywords
    return spell


def is_default(value, default):
    """``value`` is the param's default, of the same type (``1`` is not ``1.0``)."""
    return value is default or (value == default and type(value) is type(default))


def spell_value(value):
    """A param value as Python source (one-element axis tuples as plain ints, dtypes by name)."""
    if isinstance(value, tuple) and len(value) == 1 and isinstance(value[0], int):
        return repr(value[0])
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return f"np.{np.dtype(value).name}"
    return repr(value)


READS_NOTHING = {}
"""``reads`` of rules that use only shapes (sums, reshapes, add)."""
READS_X = {0: (0,)}
"""``reads`` of a unary rule that looks at its input (``sin'(x) = cos(x)``)."""
READS_OUT = {0: ("out",)}
"""``reads`` of a unary rule that looks at its result (``tanh' = 1 - tanh**2``)."""
READS_OTHER = {0: (1,), 1: (0,)}
"""``reads`` of a product: each operand's rule reads the other operand."""
READS_BOTH = {0: (0, 1), 1: (0, 1)}
"""``reads`` of a binary op whose rules read both operands."""


def _probe(aval, shape):
    if not isinstance(aval, tuple):
        return aval
    aval_shape, dtype = aval
    return np.broadcast_to(np.zeros((), dtype), aval_shape if shape is None else shape)


PRIMITIVES = {}
"""Every primitive by name: the vocabulary of the IR."""


def primitive_named(name):
    """The primitive called ``name`` (``None`` for an unknown name), where a name is all
    there is: a graph read from JSON, unpickled or written out by hand."""
    return PRIMITIVES.get(name)
