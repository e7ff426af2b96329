"""Dataclasses made when they are first used (:func:`record`), not when their module is imported.

``dataclasses.dataclass`` writes each class's ``__init__``, ``__repr__``, ``__eq__``, ``__hash__``
and, when frozen, ``__setattr__`` and ``__delattr__`` as source text and compiles them as the class
statement runs: on CPython 3.11 about 3.8 M instructions (1 ms) for a frozen class of five fields,
which made the dataclasses half of the cost of importing this package's modules. A command uses few
of the classes it imports (a four-provider ``search`` imported 62 and instantiated 41).

``@record(...)`` takes the options of ``dataclass`` and applies ``dataclass`` with them the first
time the class is instantiated or asked what makes it a dataclass (``dataclasses.fields``,
``is_dataclass``, ``__dataclass_params__``, ``__match_args__``); from then on it is exactly that
dataclass. Until then the class is its body as written: a class attribute given as ``field(...)``
reads as that ``Field``. A class that defines ``__init__`` or ``__match_args__`` itself, or asks for
``init=False`` or ``slots=True``, is made at once. Type checkers see ``dataclasses.dataclass``.
"""

from __future__ import annotations

import dataclasses
import threading
from typing import TYPE_CHECKING, Any

__all__ = ["make", "record"]

_MADE_NAMES = ("__dataclass_fields__", "__dataclass_params__", "__match_args__")
"""The class attributes ``dataclass`` adds that are read from the class itself (not an instance)."""
_PENDING: dict[type, dict[str, Any]] = {}
"""Each class not made yet, with the ``dataclass`` options it is to be made with."""
_LOCK = threading.RLock()
"""Held while a class is made (re-entered when a base class is made with it)."""


class _Pending:
    """A class attribute of :data:`_MADE_NAMES` on a class not made yet: reading it makes the class
    and returns what the dataclass has under that name."""

    def __init__(self, cls: type, name: str) -> None:
        self._cls, self._name = cls, name

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        make(self._cls)
        return getattr(owner if instance is None else instance, self._name)


def _first_init(cls: type) -> Any:
    """The ``__init__`` a class has until it is made: it makes the class, then runs the real one."""

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        make(cls)
        cls.__init__(self, *args, **kwargs)  # type: ignore[misc]

    return __init__


def make(cls: type) -> None:
    """Apply ``dataclass`` to ``cls`` with the options :func:`record` kept, if it is not made yet
    (safe from several threads at once; nothing for a class made already or not a record)."""
    with _LOCK:
        options = _PENDING.pop(cls, None)
        if options is None:
            return
        for name in ("__init__", *_MADE_NAMES):
            delattr(cls, name)
        dataclasses.dataclass(cls, **options)


def _defer(cls: type, options: dict[str, Any]) -> type:
    """``cls``, to be made a dataclass with ``options`` when first used (at once where it cannot
    wait; see the module's docstring)."""
    own = cls.__dict__
    if "__init__" in own or "__match_args__" in own or not options.get("init", True) or options.get("slots"):
        return dataclasses.dataclass(cls, **options)
    _PENDING[cls] = options
    cls.__init__ = _first_init(cls)  # type: ignore[misc]
    for name in _MADE_NAMES:
        setattr(cls, name, _Pending(cls, name))
    return cls


if TYPE_CHECKING:
    from dataclasses import dataclass as record
else:

    def record(cls=None, /, **options):
        """``dataclasses.dataclass`` with the same options (used as ``@record`` or
        ``@record(frozen=True)``), applied when the class is first used."""
        if cls is None:
            return lambda later: _defer(later, options)
        return _defer(cls, options)
