"""Choose a ladder class from (size, time) points by an information criterion.

Every class is the same two-parameter model ``t(n) = a + b * f(n)`` with ``a, b >= 0`` (a
fixed cost plus the growing part), fitted by least squares on *relative* residuals (timing
noise is multiplicative), and the classes compete on BIC, so no class gets a hand-tuned
penalty. O(1) is the one-parameter model ``t = a``. A timed-out point is censored: it only
says ``t(n) >= limit``, so it adds a residual only when the model predicts less than the limit.
The confidence is the BIC weight of the chosen class (the Schwarz approximation of its
posterior probability among the seven), averaged over three fits: all sizes, the lower two
thirds and the upper two thirds of the size range (a part where the time does not grow, the
start-up cost only, says nothing about a growing class and is left out). With 30-50 points
the weight of one fit saturates at 1 even when the class is wrong; a class that only one part
of the range supports (a hash table leaving the cache looks like a log factor at large n) is
a misspecified model, and the sub-range fits say so.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from complexity_model.ladder import LADDER

# Relative timing noise is never below about 2%: without a floor, a near-perfect fit of a
# few points would give any class an unbounded likelihood.
_NOISE_FLOOR = 0.02
# Where 2^n stops being a float, the exponential model cannot describe the data.
_MAX_EXPONENT = 1000
_MAX_LOG_FLOAT = 700.0  # math.exp overflows a float just above 709


def _growth(cls: str) -> Callable[[float], float]:
    return {
        "O(1)": lambda n: 0.0,
        "O(log n)": lambda n: math.log2(max(n, 1.0)),
        "O(n)": lambda n: n,
        "O(n log n)": lambda n: n * math.log2(max(n, 1.0)),
        "O(n^2)": lambda n: n * n,
        "O(n^3)": lambda n: n**3,
        "O(2^n)": lambda n: 2.0**n,
    }[cls]


@dataclass(frozen=True)
class Point:
    n: float
    seconds: float
    censored: bool = False
    """True when the run hit its limit: the time is a lower bound."""


@dataclass(frozen=True)
class ClassFit:
    cls: str
    a: float
    b: float
    rss: float
    bic: float
    growth: Callable[[float], float]

    def predict(self, n: float) -> float:
        return self.a + self.b * self.growth(n)


@dataclass(frozen=True)
class FitResult:
    predicted: str
    confidence: float
    fits: dict[str, ClassFit] = field(default_factory=dict)
    weights: dict[str, float] = field(default_factory=dict)
    """BIC weights of the fit on all sizes."""
    range_classes: tuple[str, ...] = ()
    """The class chosen on the lower and on the upper two thirds of the sizes."""


def _weighted_fit(xs: list[float], ts: list[float]) -> tuple[float, float]:
    """Minimise sum(((a + b x - t) / t)^2) with a, b >= 0."""
    w = [1.0 / (t * t) for t in ts]
    sw = sum(w)
    sx = sum(wi * x for wi, x in zip(w, xs, strict=True))
    st = sum(wi * t for wi, t in zip(w, ts, strict=True))
    sxx = sum(wi * x * x for wi, x in zip(w, xs, strict=True))
    sxt = sum(wi * x * t for wi, x, t in zip(w, xs, ts, strict=True))
    det = sw * sxx - sx * sx
    if det > 0:
        a = (sxx * st - sx * sxt) / det
        b = (sw * sxt - sx * st) / det
        if a >= 0 and b >= 0:
            return a, b
    # The constrained optimum lies on an edge: a = 0 or b = 0, whichever fits better.
    only_b = sxt / sxx if sxx > 0 else 0.0
    only_a = st / sw
    rss_b = sum(wi * (only_b * x - t) ** 2 for wi, x, t in zip(w, xs, ts, strict=True))
    rss_a = sum(wi * (only_a - t) ** 2 for wi, t in zip(w, ts, strict=True))
    return (0.0, max(only_b, 0.0)) if rss_b < rss_a else (only_a, 0.0)


def _fit_class(cls: str, points: Sequence[Point]) -> ClassFit | None:
    if cls == "O(2^n)":
        return _fit_exponential(points)
    return _fit_growth(cls, _growth(cls), points, extra_parameters=0)


def _fit_exponential(points: Sequence[Point]) -> ClassFit | None:
    """Exponential growth c^n with its base fitted too (naive Fibonacci grows as 1.618^n, a
    subset walk as 2^n: both are the ladder's O(2^n)); the base is a third parameter."""
    if max(p.n for p in points) > _MAX_EXPONENT:
        return None
    largest = max(p.n for p in points)
    fits = [
        _fit_growth("O(2^n)", _power(base), points, extra_parameters=1)
        for base in _EXPONENT_BASES
        if largest * math.log(base) < _MAX_LOG_FLOAT  # base^n beyond a float describes nothing
    ]
    return min((fit for fit in fits if fit is not None), key=lambda fit: fit.rss, default=None)


def _power(base: float) -> Callable[[float], float]:
    return lambda n: base**n


_EXPONENT_BASES = [1.2 + 0.02 * step for step in range(91)]  # 1.2 .. 3.0


def _fit_growth(
    cls: str, growth: Callable[[float], float], points: Sequence[Point], extra_parameters: int
) -> ClassFit | None:
    timed = [p for p in points if not p.censored]
    xs = [growth(p.n) for p in timed]
    ts = [p.seconds for p in timed]
    if cls == "O(1)":
        w = [1.0 / (t * t) for t in ts]
        a, b = sum(wi * t for wi, t in zip(w, ts, strict=True)) / sum(w), 0.0
    else:
        a, b = _weighted_fit(xs, ts)
    rss = sum(((a + b * x) - t) ** 2 / (t * t) for x, t in zip(xs, ts, strict=True))
    for p in points:
        if p.censored:
            predicted = a + b * growth(p.n)
            if predicted < p.seconds:
                rss += ((p.seconds - predicted) / p.seconds) ** 2
    if cls != "O(1)" and not _grows_materially(a, b, xs):
        return None
    count = len(points)
    parameters = (1 if cls == "O(1)" else 2) + extra_parameters
    variance = max(rss / count, _NOISE_FLOOR**2)
    bic = count * math.log(variance) + parameters * math.log(count)
    return ClassFit(cls, a, b, rss, bic, growth)


def _grows_materially(a: float, b: float, xs: list[float]) -> bool:
    """Whether the fitted growing part changes the time by at least _MIN_RISE over the sizes
    measured. Below that, memory-hierarchy drift (a bigger list, a colder cache) would pass
    for a slow-growing class; the same threshold holds for every class."""
    low, high = a + b * min(xs), a + b * max(xs)
    return high >= low * (1 + _MIN_RISE)


_MIN_RISE = 0.5


def choose_class(points: Sequence[Point]) -> FitResult:
    """The class with the lowest BIC on all sizes; its confidence is its BIC weight averaged
    over that fit and the fits on the lower and upper two thirds of the size range."""
    usable = sorted((p for p in points if p.seconds > 0 and p.n > 0), key=lambda p: p.n)
    whole = fit_all(usable)
    if whole is None:
        return FitResult("unknown", 0.0)
    fits, weights = whole
    best = min(fits.values(), key=lambda fit: fit.bic)
    shares = [weights[best.cls]]
    range_classes: list[str] = []
    cut = max(1, len(usable) // 3)
    for part in (usable[:-cut], usable[cut:]):
        sub = fit_all(part)
        if sub is None:
            continue
        sub_fits, sub_weights = sub
        sub_best = min(sub_fits.values(), key=lambda fit: fit.bic).cls
        range_classes.append(sub_best)
        if sub_best == "O(1)" and best.cls != "O(1)":
            continue  # no growth there (start-up cost only): no evidence for or against
        shares.append(sub_weights.get(best.cls, 0.0))
    confidence = sum(shares) / len(shares)
    return FitResult(best.cls, confidence, fits, weights, tuple(range_classes))


def fit_all(points: Sequence[Point]) -> tuple[dict[str, ClassFit], dict[str, float]] | None:
    """Every class's fit and its BIC weight; None with fewer than four timed points."""
    if len([p for p in points if not p.censored]) < 4:
        return None
    fits = {cls: fit for cls in LADDER if (fit := _fit_class(cls, points)) is not None}
    return fits, bic_weights({cls: fit.bic for cls, fit in fits.items()})


def bic_weights(bics: dict[str, float]) -> dict[str, float]:
    """Each model's BIC weight: exp(-BIC / 2), normalised (Schwarz's posterior approximation)."""
    best = min(bics.values())
    raw = {name: math.exp(-(bic - best) / 2) for name, bic in bics.items()}
    total = sum(raw.values())
    return {name: value / total for name, value in raw.items()}


@dataclass(frozen=True)
class ReferenceFit:
    """The candidate's times fitted as ``a + b * t_ref(n)``: the reference's own measured
    curve as one more model, beside the ladder's classes, on the same points (the sizes both
    measured). When it has the lowest BIC, the candidate grows as the reference does."""

    bic: float
    best_class: str
    best_class_bic: float
    weight: float
    """Its BIC weight among itself and the ladder's classes."""
    points: int

    @property
    def same_growth(self) -> bool:
        return self.bic < self.best_class_bic


def without_isolated_dips(points: Sequence[Point]) -> list[Point]:
    """The points less any timed one under a quarter of both its neighbours' times.

    A program's time at a size is never a quarter of the sizes' on either side of it: such a
    reading is a fault of the clock read (a full test run here read 16 ns between two 5 us
    runs), and its relative residual (hundreds) would outweigh every other point in every
    class's fit. It would also win :func:`lowest_per_size`'s minimum."""
    ordered = sorted(points, key=lambda p: p.n)
    kept = []
    for i, point in enumerate(ordered):
        before = ordered[i - 1].seconds if i > 0 else None
        after = ordered[i + 1].seconds if i + 1 < len(ordered) else None
        dip = (
            not point.censored
            and before is not None
            and after is not None
            and point.seconds * _DIP_FACTOR < min(before, after)
        )
        if not dip:
            kept.append(point)
    return kept


_DIP_FACTOR = 4


def lowest_per_size(rounds: Sequence[Sequence[Point]]) -> list[Point]:
    """Several measurements of one program as one: at each size, the lowest time a round
    timed (timing noise only ever adds time), or, where every round hit the cap, a censored
    point at the highest lower bound."""
    pooled = []
    for n, points in _by_size(rounds):
        timed = [p.seconds for p in points if not p.censored and p.seconds > 0]
        if timed:
            pooled.append(Point(n, min(timed)))
        else:
            censored = [p.seconds for p in points if p.censored]
            if censored:
                pooled.append(Point(n, max(censored), censored=True))
    return pooled


def median_per_size(rounds: Sequence[Sequence[Point]]) -> list[Point]:
    """Several measurements of one program as one: at each size, the median of the rounds
    that timed it (the upper one of an even count; a censored time counts as above every timed
    one). One lucky round, like one busy one, is outvoted."""
    pooled = []
    for _, points in _by_size(rounds):
        ordered = sorted(points, key=lambda p: (p.censored, p.seconds))
        pooled.append(ordered[len(ordered) // 2])
    return pooled


def _by_size(rounds: Sequence[Sequence[Point]]) -> list[tuple[float, list[Point]]]:
    by_size: dict[float, list[Point]] = {}
    for points in rounds:
        for point in points:
            by_size.setdefault(point.n, []).append(point)
    return sorted(by_size.items())


def fit_like_reference(points: Sequence[Point], reference: Sequence[Point]) -> ReferenceFit | None:
    """None when the reference does not grow, or fewer than four sizes are shared.

    A reference whose time does not grow (O(1)) gives ``a + b * constant``, the O(1) model
    with a spare parameter, which never wins: nothing to compare against.
    """
    timed = sorted((p.n, p.seconds) for p in reference if not p.censored and p.seconds > 0)
    if len(timed) < 4 or timed[-1][1] < timed[0][1] * (1 + _MIN_RISE):
        return None
    low, high = timed[0][0], timed[-1][0]
    shared = [p for p in points if low <= p.n <= high and p.seconds > 0]
    whole = fit_all(shared)
    if whole is None:
        return None
    fits, _ = whole
    like = _fit_growth("reference", _interpolated(timed), shared, extra_parameters=0)
    if like is None:
        return None
    best = min(fits.values(), key=lambda fit: fit.bic)
    weight = bic_weights({**{cls: fit.bic for cls, fit in fits.items()}, "reference": like.bic})
    return ReferenceFit(like.bic, best.cls, best.bic, weight["reference"], len(shared))


def _smoothed(logs: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Each log time replaced by a straight-line fit of log time on log n over its neighbours
    (an octave either side at three sizes per octave). The reference's noise is independent of
    the candidate's: interpolating the raw points adds it to the candidate's residuals: at 10% noise
    per point, a program dominated by linear parsing with an n log n sort (the benchmark's
    distinct-values solution) compared with its own curve lost to a ladder class in 80 of 100
    simulated runs (smoothed: 6), and CI's noise then read it as O(n). A power law is a
    straight line in log-log, so the smoothing leaves a class's shape alone."""
    smoothed = []
    for i, (x, _) in enumerate(logs):
        near = logs[max(0, i - _SMOOTH_HALF) : i + _SMOOTH_HALF + 1]
        mean_x = sum(p[0] for p in near) / len(near)
        mean_y = sum(p[1] for p in near) / len(near)
        spread = sum((p[0] - mean_x) ** 2 for p in near)
        slope = sum((p[0] - mean_x) * (p[1] - mean_y) for p in near) / spread if spread else 0.0
        smoothed.append((x, mean_y + slope * (x - mean_x)))
    return smoothed


_SMOOTH_HALF = 3


def _interpolated(timed: list[tuple[float, float]]) -> Callable[[float], float]:
    """Linear interpolation of log time on log n between the reference's measured sizes, its
    times smoothed first."""
    logs = _smoothed([(math.log(n), math.log(seconds)) for n, seconds in timed])

    def at(n: float) -> float:
        x = math.log(n)
        for (x0, y0), (x1, y1) in zip(logs, logs[1:], strict=False):
            if x <= x1:
                share = (x - x0) / (x1 - x0) if x1 > x0 else 0.0
                return math.exp(y0 + share * (y1 - y0))
        return math.exp(logs[-1][1])

    return at
