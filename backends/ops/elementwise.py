"""Unary elementwise math (powers, exponentials and logarithms, trigonometric and
hyperbolic functions, rounding, real/complex parts), each with its derivative beside it.

Ops that only make sense on floats (``sin``, ``sqrt``, ``exp``) give ``floatx()`` for integer
input, as Keras' do; ``square``, ``abs``, ``negative``, ``sign`` and the rounding ops keep the
input's dtype. Rounding ops and ``sign`` are piecewise constant: they carry no gradient.
"""

import math

from .. import state
from .core import constant, constant_unary, data_of, float_data, record, xp

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


def unary_op(name, forward, derivative, floats=True, doc=None):
    """Build an elementwise op from ``forward(a)`` and ``derivative(a, out) -> dout/da``;
    ``floats``: integer input is cast to ``floatx()`` first."""
    read = float_data if floats else data_of

    def op(x):
        a = read(x)
        out = forward(a)

        def backward(g, needs):
            return (g * derivative(a, out),)

        return record(out, (x,), backward, name)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = doc
    return op


def _piecewise_constant(name, forward, doc):
    """An elementwise op with zero derivative almost everywhere (rounding, sign)."""
    return constant_unary(name, forward, doc + " No gradient (the derivative is zero almost "
                                               "everywhere).")


def negative(x):
    """Elementwise ``-x``."""
    return record(-data_of(x), (x,), lambda g, needs: (-g,), "negative")


# ------------------------------------------------------------------ powers and roots
square = unary_op("square", lambda a: a * a, lambda a, out: 2 * a, floats=False,
                doc="Elementwise ``x * x``.")
sqrt = unary_op("sqrt", lambda a: xp().sqrt(a), lambda a, out: 0.5 / out,
              doc="Elementwise square root.")
rsqrt = unary_op("rsqrt", lambda a: 1 / xp().sqrt(a), lambda a, out: -0.5 * out * out * out,
               doc="Elementwise ``1 / sqrt(x)``.")
cbrt = unary_op("cbrt", lambda a: xp().cbrt(a), lambda a, out: 1 / (3 * out * out),
              doc="Elementwise cube root.")
reciprocal = unary_op("reciprocal", lambda a: 1 / a, lambda a, out: -out * out,
                    doc="Elementwise ``1 / x``.")
abs = unary_op("abs", lambda a: xp().abs(a), lambda a, out: xp().sign(a),  # noqa: A001
             floats=False, doc="Elementwise absolute value (gradient ``sign(x)``).")
absolute = unary_op("absolute", lambda a: xp().abs(a), lambda a, out: xp().sign(a),
                  floats=False, doc="Elementwise absolute value (alias of ``abs``).")
fabs = unary_op("fabs", lambda a: xp().abs(a), lambda a, out: xp().sign(a),
              doc="Elementwise absolute value, as a float.")

# ------------------------------------------------------------------ exponentials and logs
exp = unary_op("exp", lambda a: xp().exp(a), lambda a, out: out, doc="Elementwise exponential.")
exp2 = unary_op("exp2", lambda a: xp().exp2(a), lambda a, out: out * _LN2,
              doc="Elementwise ``2 ** x``.")
expm1 = unary_op("expm1", lambda a: xp().expm1(a), lambda a, out: out + 1,
               doc="Elementwise ``exp(x) - 1``, accurate near zero.")
log = unary_op("log", lambda a: xp().log(a), lambda a, out: 1 / a,
             doc="Elementwise natural logarithm.")
log1p = unary_op("log1p", lambda a: xp().log1p(a), lambda a, out: 1 / (1 + a),
               doc="Elementwise ``log(1 + x)``.")
log2 = unary_op("log2", lambda a: xp().log2(a), lambda a, out: 1 / (a * _LN2),
              doc="Elementwise base-2 logarithm.")
log10 = unary_op("log10", lambda a: xp().log10(a), lambda a, out: 1 / (a * _LN10),
               doc="Elementwise base-10 logarithm.")

# ------------------------------------------------------------------ trigonometric
sin = unary_op("sin", lambda a: xp().sin(a), lambda a, out: xp().cos(a), doc="Elementwise sine.")
cos = unary_op("cos", lambda a: xp().cos(a), lambda a, out: -xp().sin(a),
             doc="Elementwise cosine.")
tan = unary_op("tan", lambda a: xp().tan(a), lambda a, out: 1 + out * out,
             doc="Elementwise tangent.")
arcsin = unary_op("arcsin", lambda a: xp().arcsin(a), lambda a, out: 1 / xp().sqrt(1 - a * a),
                doc="Elementwise inverse sine.")
arccos = unary_op("arccos", lambda a: xp().arccos(a), lambda a, out: -1 / xp().sqrt(1 - a * a),
                doc="Elementwise inverse cosine.")
arctan = unary_op("arctan", lambda a: xp().arctan(a), lambda a, out: 1 / (1 + a * a),
                doc="Elementwise inverse tangent.")
deg2rad = unary_op("deg2rad", lambda a: a * (math.pi / 180), lambda a, out: math.pi / 180,
                 doc="Degrees to radians.")
rad2deg = unary_op("rad2deg", lambda a: a * (180 / math.pi), lambda a, out: 180 / math.pi,
                 doc="Radians to degrees.")


def _sinc_derivative(a, out):
    numpy_like = xp()
    safe = numpy_like.where(a == 0, 1, a)
    return numpy_like.where(a == 0, 0, (numpy_like.cos(math.pi * a) - out) / safe)


sinc = unary_op("sinc", lambda a: xp().sinc(a), _sinc_derivative,
              doc="Normalized sinc ``sin(pi x) / (pi x)`` (1 at 0).")

# ------------------------------------------------------------------ hyperbolic
sinh = unary_op("sinh", lambda a: xp().sinh(a), lambda a, out: xp().cosh(a),
              doc="Elementwise hyperbolic sine.")
cosh = unary_op("cosh", lambda a: xp().cosh(a), lambda a, out: xp().sinh(a),
              doc="Elementwise hyperbolic cosine.")
tanh = unary_op("tanh", lambda a: xp().tanh(a), lambda a, out: 1 - out * out,
              doc="Elementwise hyperbolic tangent.")
arcsinh = unary_op("arcsinh", lambda a: xp().arcsinh(a), lambda a, out: 1 / xp().sqrt(a * a + 1),
                 doc="Elementwise inverse hyperbolic sine.")
arccosh = unary_op("arccosh", lambda a: xp().arccosh(a), lambda a, out: 1 / xp().sqrt(a * a - 1),
                 doc="Elementwise inverse hyperbolic cosine (x >= 1).")
arctanh = unary_op("arctanh", lambda a: xp().arctanh(a), lambda a, out: 1 / (1 - a * a),
                 doc="Elementwise inverse hyperbolic tangent (|x| < 1).")

# ------------------------------------------------------------------ error function
erf = unary_op("erf", lambda a: state.backend().erf(a),
             lambda a, out: (2 / math.sqrt(math.pi)) * xp().exp(-a * a),
             doc="Elementwise Gauss error function.")
erfc = unary_op("erfc", lambda a: 1 - state.backend().erf(a),
              lambda a, out: (-2 / math.sqrt(math.pi)) * xp().exp(-a * a),
              doc="Elementwise complementary error function ``1 - erf(x)``.")
erfinv = unary_op("erfinv", lambda a: state.backend().special("erfinv", a),
                lambda a, out: (math.sqrt(math.pi) / 2) * xp().exp(out * out),
                doc="Elementwise inverse error function (``erf(erfinv(x)) = x`` on "
                    "(-1, 1); +-inf at +-1, nan outside).")

# ------------------------------------------------------------------ Bessel function
i0 = unary_op("i0", lambda a: state.backend().special("i0", a),
            lambda a, out: state.backend().special("i1", a),
            doc="Elementwise modified Bessel function of the first kind, order 0 "
                "(derivative ``i1``).")

# ------------------------------------------------------------------ rounding and sign
sign = _piecewise_constant("sign", lambda a: xp().sign(a), "Elementwise sign: -1, 0 or 1.")
floor = _piecewise_constant("floor", lambda a: xp().floor(a), "Elementwise floor.")
ceil = _piecewise_constant("ceil", lambda a: xp().ceil(a), "Elementwise ceiling.")
trunc = _piecewise_constant("trunc", lambda a: xp().trunc(a),
                            "Elementwise rounding toward zero.")


def round(x, decimals=0):  # noqa: A001
    """Round half to even to ``decimals`` decimals (as NumPy and Keras). No gradient."""
    return constant(xp().round(data_of(x), decimals), "round")


def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """Replace NaN with ``nan`` and infinities with ``posinf``/``neginf`` (default: the
    dtype's largest/smallest finite value). The gradient is 1 where ``x`` is finite, 0
    where a value was replaced."""
    a = data_of(x)
    out = xp().nan_to_num(a, nan=nan, posinf=posinf, neginf=neginf)
    return record(out, (x,), lambda g, needs: (g * xp().isfinite(a),), "nan_to_num")


# ------------------------------------------------------------------ real and complex parts
real = unary_op("real", lambda a: a.copy(), lambda a, out: 1, floats=False,
              doc="The real part: ``x`` itself for the real tensors lamina holds.")
conj = unary_op("conj", lambda a: a.copy(), lambda a, out: 1, floats=False,
              doc="The complex conjugate: ``x`` itself for the real tensors lamina holds.")
conjugate = unary_op("conjugate", lambda a: a.copy(), lambda a, out: 1, floats=False,
                   doc="Alias of ``conj``.")


def imag(x):
    """The imaginary part: zeros for the real tensors lamina holds."""
    return constant(xp().zeros_like(data_of(x)), "imag")


def angle(x):
    """The argument of each element: 0 for non-negative reals, pi for negative ones."""
    a = float_data(x)
    return constant(xp().where(a < 0, a.dtype.type(math.pi), a.dtype.type(0)), "angle")
