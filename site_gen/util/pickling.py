"""Pickling for the frozen, slotted dataclasses that a build pickles by the ten thousand.

Dump parsers hand their records to the build as pickles, and the build cache stores the
catalog and every page's route (incremental/store.py). A slotted dataclass pickles through
``dataclasses``' own ``__getstate__`` and ``__setstate__``, which call ``fields()`` and loop
in Python for every object: at 10,000 papers, pickling the cache took twice as long, and
unpickling the parsed dumps twice as long, as with ``pickled_by_fields``.
"""

from __future__ import annotations

import dataclasses
from operator import attrgetter
from typing import Any, TypeVar

T = TypeVar("T")


def pickled_by_fields(cls: type[T]) -> type[T]:
    """Pickle ``cls`` (a dataclass) as a call to the class with its fields' values in order.

    Unpickling then runs the generated ``__init__``, so the class must have one that only
    stores its arguments: every field passed positionally, no ``__post_init__``. Classes that
    differ are refused at import (TypeError), not unpickled into something else.
    """
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls.__name__} is not a dataclass")
    fields = dataclasses.fields(cls)
    params = cls.__dataclass_params__  # type: ignore[attr-defined]
    if not fields or hasattr(cls, "__post_init__") or not params.init \
            or any(not f.init or f.kw_only for f in fields):
        raise TypeError(f"{cls.__name__}: its __init__ must take every field, positionally, "
                        "and do nothing else")
    values = attrgetter(*(f.name for f in fields))

    if len(fields) == 1:
        def __reduce__(self: Any) -> tuple[type[T], tuple[Any, ...]]:
            return cls, (values(self),)
    else:
        def __reduce__(self: Any) -> tuple[type[T], tuple[Any, ...]]:
            return cls, values(self)

    cls.__reduce__ = __reduce__  # type: ignore[assignment,method-assign]
    return cls
