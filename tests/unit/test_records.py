"""core.records.record: the dataclass ``dataclasses.dataclass`` makes, made at first use."""

from __future__ import annotations

import copy
import dataclasses
import importlib
import pickle
import pkgutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import websearch_tui
from websearch_tui.core import records
from websearch_tui.core.records import record

ROOT = Path(__file__).resolve().parents[2]
PICKLE_USAGE = (
    "import pickle, sys; from websearch_tui.core.models import Usage; "
    "sys.stdout.buffer.write(pickle.dumps(Usage(input_tokens=1)))"
)


def _twins(options: dict[str, Any], body: dict[str, Any], annotations: dict[str, str]) -> tuple[type, type]:
    """The same class body made by ``dataclasses.dataclass`` and by ``record`` with ``options``."""
    made = []
    for decorate in (dataclasses.dataclass, record):
        namespace = {"__annotations__": dict(annotations), "__doc__": "A record.", **body}
        cls = type("Item", (), namespace)
        made.append(decorate(**options)(cls))
    return made[0], made[1]


def _default(value: object) -> dataclasses.Field[Any]:
    return dataclasses.field(default=value)


CASES = [
    ({"frozen": True}, {"b": 2, "c": dataclasses.field(default_factory=tuple)}, {"a": "int", "b": "int", "c": "tuple"}),
    ({}, {"b": "x"}, {"a": "int", "b": "str"}),
    ({"eq": False}, {}, {"a": "int"}),
    ({"frozen": True}, {}, {"a": "int"}),  # one field: hashed as a 1-tuple
    ({"frozen": True}, {"b": dataclasses.field(default="s", repr=False)}, {"a": "int", "b": "str"}),
    ({"frozen": True}, {"b": dataclasses.field(default=0, compare=False)}, {"a": "int", "b": "int"}),
    ({"frozen": True}, {"b": dataclasses.field(default=0, hash=False)}, {"a": "int", "b": "int"}),
    ({"frozen": True}, {}, {}),
]


@pytest.mark.parametrize(("options", "body", "annotations"), CASES)
def test_same_methods_as_dataclass(options: dict[str, Any], body: dict[str, Any], annotations: dict[str, str]) -> None:
    real, ours = _twins(options, body, annotations)
    values = [(1,), (2,)] if annotations else [(), ()]
    for args in values:
        a, b = real(*args), ours(*args)
        assert repr(a) == repr(b)
        assert (b == ours(*args)) == (a == real(*args))
        assert (b == ours(*values[1])) == (a == real(*values[1]))
        assert (b == object()) is False and (b != object()) is True
        assert (real.__hash__ is None) == (ours.__hash__ is None)
        assert (real.__hash__ is object.__hash__) == (ours.__hash__ is object.__hash__)
        if real.__hash__ not in (None, object.__hash__):
            assert hash(a) == hash(b)
        assert dataclasses.astuple(a) == dataclasses.astuple(b)
    assert [f.name for f in dataclasses.fields(real)] == [f.name for f in dataclasses.fields(ours)]
    assert real.__match_args__ == ours.__match_args__


def test_frozen_errors_replace_copy_pickle_match() -> None:
    item = _Frozen(1, (2,))
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'a'"):
        item.a = 3  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del item.b  # type: ignore[misc]
    assert dataclasses.replace(item, a=5) == _Frozen(5, (2,))
    assert copy.deepcopy(item) == item and pickle.loads(pickle.dumps(item)) == item
    match item:
        case _Frozen(a, b):
            assert (a, b) == (1, (2,))
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'a'"):
        _Frozen()  # type: ignore[call-arg]


def _outcome(action: Any, *args: Any) -> str:
    """What ``action(*args)`` did: ``"ok"`` or the exception's type and message."""
    try:
        action(*args)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return "ok"


def test_frozen_setattr_and_delattr_as_dataclass_writes_them() -> None:
    real, ours = _twins({"frozen": True}, {"b": 2}, {"a": "int", "b": "int"})
    for cls in (real, ours):
        cls.note = None  # a class attribute that is no field
    subclasses = [type("Sub", (cls,), {}) for cls in (real, ours)]  # plain subclasses: only fields are frozen
    for made in ((real, ours), subclasses):
        outcomes = []
        for cls in made:
            item = cls(1)
            tries = [(setattr, item, "a", 5), (setattr, item, "note", 5), (delattr, item, "b")]
            outcomes.append([_outcome(*attempt) for attempt in tries])
        assert outcomes[0] == outcomes[1]
    assert outcomes[1] == [
        "FrozenInstanceError: cannot assign to field 'a'",
        "ok",
        "FrozenInstanceError: cannot delete field 'b'",
    ]


def test_frozen_records_share_their_setattr_and_delattr() -> None:
    first, second = (_twins({"frozen": True}, {}, {"a": "int"})[1] for _ in range(2))
    records.make(first)
    records.make(second)
    assert first.__setattr__.__code__ is second.__setattr__.__code__  # not compiled per class
    assert first.__delattr__.__code__ is second.__delattr__.__code__
    assert first.__dataclass_params__.frozen and first.__setattr__.__qualname__ == "Item.__setattr__"


@record(frozen=True)
class _Frozen:
    """A frozen record for the tests."""

    a: int
    b: tuple[int, ...] = ()


@record
class _Node:
    """A mutable record that can hold itself."""

    value: int
    child: object = None


def test_recursive_repr() -> None:
    node = _Node(1)
    node.child = node
    assert repr(node) == "_Node(value=1, child=...)"


def test_subclasses_inherit_fields_and_defaults() -> None:
    @record(frozen=True)
    class Base:
        """A base."""

        a: int
        items: list[int] = dataclasses.field(default_factory=list)

    @record(frozen=True)
    class Child(Base):
        """A record below a record not made yet."""

        c: str = "c"

    class Plain(Base):
        """A plain subclass."""

    assert [f.name for f in dataclasses.fields(Child)] == ["a", "items", "c"]
    assert Child(1) == Child(1, [], "c") and Child(1).items is not Child(1).items
    assert repr(Plain(2)).endswith(".Plain(a=2, items=[])")


def test_made_at_first_use_not_at_definition() -> None:
    @record
    class Later:
        """Not made until used."""

        a: int = 1

    assert not isinstance(vars(Later)["__dataclass_fields__"], dict)  # a placeholder until used
    assert dataclasses.is_dataclass(Later)
    assert isinstance(vars(Later)["__dataclass_fields__"], dict)
    assert Later() == Later(1)


def test_a_search_s_modules_leave_unused_classes_unmade() -> None:
    """The classes a search never instantiates are not compiled when their modules are imported
    (each costs about 3.8 M instructions with dataclasses.dataclass)."""
    code = (
        "import websearch_tui.core.models as m, websearch_tui.core.results as r\n"
        "print(sum(isinstance(vars(c)['__dataclass_fields__'], dict) for c in (m.Note, m.Citation, r.SearchSummary)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "0"


def test_a_class_being_made_always_has_an_init(monkeypatch: pytest.MonkeyPatch) -> None:
    """Another thread creating an instance while a class is made must find an ``__init__`` (without
    one, ``object.__init__`` refused the arguments: ``Item() takes no arguments``)."""
    seen: list[bool] = []
    real = records.dataclasses.dataclass

    @record(frozen=True)
    class Watched:
        a: int

    def watching(cls: type | None = None, /, **options: Any) -> Any:
        if cls is Watched:
            seen.append("__init__" in cls.__dict__)
        return real(cls, **options)

    monkeypatch.setattr(records.dataclasses, "dataclass", watching)
    assert Watched(1).a == 1
    assert seen and all(seen)


def test_a_record_unpickled_before_its_class_is_made_is_a_whole_record() -> None:
    made = subprocess.run([sys.executable, "-c", PICKLE_USAGE], capture_output=True, check=True, cwd=ROOT).stdout
    script = (
        "import dataclasses, pickle, sys\n"
        "first, second = pickle.loads(sys.stdin.buffer.read()), None\n"
        "print(repr(first))\n"
        "try:\n    first.input_tokens = 5\nexcept dataclasses.FrozenInstanceError:\n    print('frozen')\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], input=made, capture_output=True, check=True, cwd=ROOT
    ).stdout.decode()
    assert out.startswith("Usage(input_tokens=1") and "frozen" in out


def test_a_bad_field_is_reported_at_every_use() -> None:
    @record
    class Bad:
        items: list = []  # noqa: RUF012  # what dataclass refuses (a mutable default)

    for _ in range(2):
        with pytest.raises(ValueError, match="mutable default"):
            Bad()


def test_every_record_of_the_package_makes_cleanly() -> None:
    """A bad record definition fails only when its class is made: make every one."""
    for module in pkgutil.walk_packages(websearch_tui.__path__, "websearch_tui."):
        if not module.name.endswith("__main__"):
            importlib.import_module(module.name)
    ours = [cls for cls in records._PENDING if cls.__module__.startswith("websearch_tui.")]
    for cls in ours:
        records.make(cls)
    assert not [cls for cls in records._PENDING if cls.__module__.startswith("websearch_tui.")]
