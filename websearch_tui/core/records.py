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

Making a class compiles only what runs per instance: ``dataclass`` writes ``__init__``; ``__repr__``,
``__eq__`` and ``__hash__`` are the same for every class, over the fields ``dataclass`` would use
(``repr``, ``compare`` and ``hash`` of each field; values compared and hashed as the same tuples, so
equal hashes and set orders), and so are a frozen class's ``__setattr__`` and ``__delattr__`` (the
same check and ``FrozenInstanceError`` as ``dataclass`` writes), without compiling anything (a third
less per class; the subclass a frozen ``__init__`` is written for is frozen, so ``dataclass`` compiles
those two for it, unused: ``dataclass`` has no way to write a frozen ``__init__`` alone). So
``__dataclass_params__`` says ``repr=False, eq=False``; options other than ``frozen``, ``eq`` and
``repr``, or a class body with its own ``__repr__``, ``__eq__`` or ``__hash__``, get ``dataclass`` as
it is (and a frozen class with a dataclass base or its own ``__setattr__`` or ``__delattr__``, its
frozen methods as ``dataclass`` writes them).

A class keeps its first-use ``__init__`` while it is made, and the ``__init__`` that ``dataclass``
writes (for a subclass made for that purpose, with no fields of its own) replaces it in one step:
another thread creating an instance meanwhile waits for the class to be made instead of finding no
``__init__`` at all. An instance unpickled before its class is made makes the class first
(``__setstate__``). A definition ``dataclass`` refuses (a mutable default) raises its error at every
use until it is fixed (``tests/unit/test_records.py`` makes every record of the package).
"""

from __future__ import annotations

import dataclasses
import operator
import reprlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

__all__ = ["make", "record"]

_MADE_NAMES = ("__dataclass_fields__", "__dataclass_params__", "__match_args__")
"""The class attributes ``dataclass`` adds that are read from the class itself (not an instance)."""
_SHARED_NAMES = ("__repr__", "__eq__", "__hash__")
"""The methods made without compiling, when the class body does not define them."""
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
        options = _PENDING.get(cls)
        if options is None:
            return
        if "__match_args__" in cls.__dict__:  # dataclass sets it only on a class without one
            delattr(cls, "__match_args__")  # (gone already when a first try raised: a bad field)
        _apply(cls, {**options, "init": False})  # the placeholder __init__ stays meanwhile
        names = {"__module__": cls.__module__, "__qualname__": cls.__qualname__, "__doc__": cls.__doc__}
        twin = type(cls.__name__, (cls,), names)  # its __doc__: dataclass writes one from inspect.signature
        dataclasses.dataclass(twin, **{**options, "repr": False, "eq": False, "match_args": False})
        if not set(options) - {"frozen", "eq", "repr"}:
            cls.__dataclass_params__ = twin.__dataclass_params__  # type: ignore[attr-defined]  # init=True, as before
        init = twin.__dict__["__init__"]
        init.__qualname__ = f"{cls.__qualname__}.__init__"
        cls.__init__ = init  # type: ignore[misc]  # replaces the placeholder: never a moment without one
        del _PENDING[cls]
        del cls.__setstate__  # type: ignore[attr-defined]


def _apply(cls: type, options: dict[str, Any]) -> None:
    """Make ``cls`` the dataclass ``dataclass(**options)`` makes, its ``__repr__``, ``__eq__`` and
    ``__hash__`` (and where it can, a frozen class's ``__setattr__`` and ``__delattr__``) shared code
    (see the module's docstring)."""
    if set(options) - {"frozen", "eq", "repr", "init"} or any(name in cls.__dict__ for name in _SHARED_NAMES):
        dataclasses.dataclass(cls, **options)
        return
    shared_frozen = _shares_frozen_methods(cls, options)
    frozen = options.get("frozen", False) and not shared_frozen
    dataclasses.dataclass(cls, **{**options, "repr": False, "eq": False, "frozen": frozen})
    items = dataclasses.fields(cls)
    if shared_frozen:
        names = frozenset(item.name for item in items)
        _method(cls, _setattr(cls, names))
        _method(cls, _delattr(cls, names))
        cls.__dataclass_params__.frozen = True  # type: ignore[attr-defined]  # what it is: a subclass sees it frozen
    if options.get("repr", True):
        _method(cls, _repr([item.name for item in items if item.repr]))
    if options.get("eq", True):
        _method(cls, _eq(_values([item.name for item in items if item.compare])))
        if options.get("frozen", False):
            hashed = [item.name for item in items if (item.compare if item.hash is None else item.hash)]
            _method(cls, _hash(_values(hashed)))
        else:
            cls.__hash__ = None  # type: ignore[assignment]  # mutable and compared by value, as dataclass does


def _shares_frozen_methods(cls: type, options: dict[str, Any]) -> bool:
    """True when ``cls`` is to be frozen with the shared ``__setattr__`` and ``__delattr__``: it is frozen,
    ``dataclass`` writes it no ``__init__`` (``init=False``: a frozen ``__init__`` is written for a
    subclass, see :func:`make`), it has no dataclass base (a frozen one would refuse a class not frozen
    while it is made) and defines neither method itself (``dataclass`` refuses that)."""
    if not options.get("frozen", False) or options.get("init", True):
        return False
    if "__setattr__" in cls.__dict__ or "__delattr__" in cls.__dict__:
        return False
    return not any(dataclasses.is_dataclass(base) for base in cls.__mro__[1:])


def _setattr(cls: type[Any], names: frozenset[str]) -> Callable[[Any, str, Any], None]:
    """A frozen class's ``__setattr__``, as ``dataclass`` writes it: assigning any attribute of an
    instance of ``cls`` itself, or a field ``names`` of a subclass's, raises ``FrozenInstanceError``."""

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    return __setattr__


def _delattr(cls: type[Any], names: frozenset[str]) -> Callable[[Any, str], None]:
    """A frozen class's ``__delattr__``, as ``dataclass`` writes it (see :func:`_setattr`)."""

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __delattr__


def _method(cls: type, function: Callable[..., Any]) -> None:
    """Set ``function`` on ``cls`` under its own name, named as a method of ``cls``."""
    function.__qualname__ = f"{cls.__qualname__}.{function.__name__}"
    setattr(cls, function.__name__, function)


def _values(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of an instance's attributes ``names``, in order (the tuple ``dataclass`` compares)."""
    if len(names) > 1:
        return operator.attrgetter(*names)
    if names:
        one = operator.attrgetter(names[0])
        return lambda instance: (one(instance),)
    return lambda instance: ()


def _repr(names: list[str]) -> Callable[[Any], str]:
    """``__repr__``: ``Class(a=1, b='x')`` over ``names``; ``...`` for an instance met again inside itself."""

    @reprlib.recursive_repr()
    def __repr__(self: Any) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{self.__class__.__qualname__}({shown})"

    return __repr__


def _eq(values: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any, Any], Any]:
    """``__eq__``: an instance of the very same class with equal ``values``; else ``NotImplemented``."""

    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return __eq__


def _hash(values: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    """``__hash__``: the hash of the tuple of ``values``."""

    def __hash__(self: Any) -> int:
        return hash(values(self))

    return __hash__


def _defer(cls: type, options: dict[str, Any]) -> type:
    """``cls``, to be made a dataclass with ``options`` when first used (at once where it cannot
    wait; see the module's docstring)."""
    own = cls.__dict__
    if "__init__" in own or "__match_args__" in own or not options.get("init", True) or options.get("slots"):
        _apply(cls, options)
        return cls
    _PENDING[cls] = options
    cls.__init__ = _first_init(cls)  # type: ignore[misc]
    for name in _MADE_NAMES:
        setattr(cls, name, _Pending(cls, name))
    cls.__setstate__ = _first_setstate  # type: ignore[attr-defined]  # an instance unpickled makes its class
    return cls


def _first_setstate(self: Any, state: Any) -> None:
    """Pickle's last step for an instance of a class not made yet (unpickled before any was made): make
    the class, then set the instance's attributes as pickle does for a dataclass."""
    make(type(self))
    self.__dict__.update(state)


if TYPE_CHECKING:
    from dataclasses import dataclass as record
else:

    def record(cls=None, /, **options):
        """``dataclasses.dataclass`` with the same options (used as ``@record`` or
        ``@record(frozen=True)``), applied when the class is first used."""
        if cls is None:
            return lambda later: _defer(later, options)
        return _defer(cls, options)
