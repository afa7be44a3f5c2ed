"""The checks of the accountant study's arguments: each bad value is refused with a ValueError naming the
parameter, its value and the allowed range (gspa.util.validate) before anything is timed."""

from __future__ import annotations

from gspa.util import validate as V

#: name -> (kind, low, high): "int", "ints" (each element of an iterable), "real" and "reals" inclusive;
#: "prob" open at both ends.
RULES = {
    "exponents": ("ints", 1, 9),
    "ns": ("ints", 1, 10**9),
    "users": ("ints", 1, 10**9),
    "personalized_users": ("ints", 1, 10**9),
    "rounds": ("ints", 1, 10**6),
    "n": ("int", 1, 10**9),
    "n_users": ("int", 1, 10**12),
    "distinct": ("int", 1, 10**7),
    "k": ("int", 2, 10**4),
    "ks": ("ints", 2, 10**4),
    "seed": ("int", 0, 2**63 - 1),
    "repeats": ("int", 1, 1000),
    "eps0_values": ("reals", 0.0, 100.0),
    "eps0s": ("reals", 0.0, 100.0),
    "eps0": ("real", 0.0, 100.0),
    "eps": ("real", 0.0, 700.0),
    "delta": ("prob", 0.0, 1.0),
    "delta_i": ("real", 0.0, 1.0),
    "interval": ("prob", 0.0, 1.0),
}


def check(**arguments) -> None:
    """Refuse any argument outside its range in :data:`RULES` (names not listed there are not checked)."""
    for name, value in arguments.items():
        kind, low, high = RULES[name]
        if kind == "ints":
            if iter(value) is value if hasattr(value, "__iter__") else False:
                raise ValueError(
                    f"{name} must be a list of integers in [{low}, {high}], got an iterator {value!r}"
                )
            try:
                values = list(value)
            except TypeError:
                raise ValueError(
                    f"{name} must be a list of integers in [{low}, {high}], got {value!r}"
                ) from None
            for v in values:
                V.integer(name, v, low=low, high=high)
        elif kind == "int":
            V.integer(name, value, low=low, high=high)
        elif kind == "reals":
            V.real(
                name,
                list(value) if not isinstance(value, str) else value,
                low=low,
                high=high,
                ndim=1,
            )
        elif kind == "real":
            V.real(name, value, low=low, high=high, scalar=True)
        else:
            V.probability(name, value, open_low=True, open_high=True, scalar=True)
