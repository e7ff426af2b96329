"""Private parts of libraries are touched only in the patch modules.

Every use of a private internal of Textual, Rich, httpx, httpcore or asyncio lives in
``websearch_tui/tui/patches/`` or ``websearch_tui/providers/transport/pool_repair.py``, each checked
against the installed library before it is relied on. These tests parse every other module of the
package and fail, naming file and line, when one of them:

- imports a private module or name of another package (``from textual._compositor import ...``,
  ``import rich._wrap``, ``from asyncio import _x``);
- reads a private attribute (``x._name``, not a dunder; also ``getattr(x, "_name")``) of anything but
  ``self``, ``cls`` or ``super()``, unless the package itself defines that name as an attribute or
  method (its own classes' privates), or it is one of the few documented names with an underscore
  (:data:`DOCUMENTED`) or a standard library private listed in :data:`STANDARD_LIBRARY`;
- reads ``self._name``, ``cls._name`` or ``super()._name`` where the package never defines ``_name``:
  a library's private;
- in a class built on a Textual, Rich, httpx or httpcore class, reads, writes, defines or overrides
  a name private to one of those base classes (one of their class attributes, or an attribute their
  source assigns on ``self``), or declares again one of their reactives.
"""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import textwrap
from collections.abc import Iterator
from pathlib import Path

from textual.reactive import Reactive

import websearch_tui

PACKAGE = Path(websearch_tui.__file__).parent
ROOT = PACKAGE.parent
PATCH_MODULES = ("websearch_tui/tui/patches/", "websearch_tui/providers/transport/pool_repair.py")
"""Where private internals may be used (each module checks them before relying on them)."""
LIBRARIES = ("textual", "rich", "httpx", "httpcore")
"""The libraries whose classes ours are built on: their privates may not be touched by a subclass."""
DOCUMENTED = frozenset({"_replace", "_asdict", "_fields", "_make", "_exit"})
"""Public APIs whose names start with an underscore: a named tuple's methods and ``os._exit``."""
STANDARD_LIBRARY = frozenset({"_SubParsersAction", "_actions", "_option_string_actions"})
"""argparse's, which has no public way to walk a parser's subcommands and options (the CLI's help,
completion scripts and option checks do). Not one of the pinned libraries: Python's own."""
ATTRIBUTE_CALLS = ("getattr", "setattr", "hasattr", "delattr")


def is_private(name: str) -> bool:
    """``_name`` but not ``__name__``."""
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def modules() -> dict[str, ast.Module]:
    """Path relative to the repository -> parsed module, for every module of the package outside the
    patch modules."""
    parsed = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        if not relative.startswith(PATCH_MODULES):
            parsed[relative] = ast.parse(path.read_text(encoding="utf-8"), relative)
    return parsed


def attribute_names_defined(trees: dict[str, ast.Module]) -> set[str]:
    """Names the package defines as attributes: methods and class attributes of its classes, and
    every name it assigns as ``something.name``."""
    names: set[str] = set()
    for tree in trees.values():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                names.update(defined_in_body(node))
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
    return names


def defined_in_body(cls: ast.ClassDef) -> Iterator[str]:
    """The names a class body defines: methods, nested classes, assigned or annotated attributes
    (also under an ``if`` or ``try`` of the body)."""
    for statement in statements(cls.body):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield statement.name
        elif isinstance(statement, ast.Assign):
            yield from (target.id for target in statement.targets if isinstance(target, ast.Name))
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            yield statement.target.id


def statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of ``body``, and those of the ``if``, ``try`` and ``with`` blocks in it."""
    for statement in body:
        yield statement
        if isinstance(statement, (ast.If, ast.Try, ast.With)):
            for block in ("body", "orelse", "finalbody"):
                yield from statements(getattr(statement, block, []))
            for handler in getattr(statement, "handlers", []):
                yield from statements(handler.body)


def private_imports(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """``(line, what)`` for each import of a private module or name of another package."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if any(is_private(part) for part in alias.name.split(".")):
                    yield node.lineno, f"import {alias.name}"
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] == "websearch_tui":
                continue
            names = [alias.name for alias in node.names]
            if any(is_private(part) for part in node.module.split(".")) or any(map(is_private, names)):
                yield node.lineno, f"from {node.module} import {', '.join(names)}"


def private_reads(tree: ast.Module, ours: set[str]) -> Iterator[tuple[int, str]]:
    """``(line, what)`` for each read of a private attribute that is not the package's own (``ours``)."""
    allowed = ours | DOCUMENTED | STANDARD_LIBRARY
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr):
            owner = node.value
            if is_self(owner):
                if node.attr not in ours:
                    yield node.lineno, f"{ast.unparse(owner)}.{node.attr}, defined nowhere in the package"
            elif node.attr not in allowed:
                yield node.lineno, f"{ast.unparse(owner)}.{node.attr}"
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ATTRIBUTE_CALLS
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and is_private(node.args[1].value)
            and node.args[1].value not in allowed
        ):
            yield node.lineno, f"{node.func.id}({ast.unparse(node.args[0])}, {node.args[1].value!r})"


def is_self(node: ast.expr) -> bool:
    """``self``, ``cls`` or ``super()``."""
    if isinstance(node, ast.Name):
        return node.id in ("self", "cls")
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def library_touches(relative: str) -> Iterator[tuple[int, str]]:
    """``(line, what)`` for each name of a class of module ``relative`` (built on a library class)
    that is private to one of its library bases, and each reactive of theirs it declares again."""
    name = relative.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
    if name.endswith("__main__"):
        return  # the entry point: importing it runs the program
    module = importlib.import_module(name)
    for cls in vars(module).values():
        if not inspect.isclass(cls) or cls.__module__ != name:
            continue
        bases = [base for base in cls.__mro__[1:] if base.__module__.split(".")[0] in LIBRARIES]
        if not bases:
            continue
        theirs = frozenset().union(*(library_privates(base) for base in bases))
        reactives = {key for base in bases for key, value in vars(base).items() if isinstance(value, Reactive)}
        lines, first = inspect.getsourcelines(cls)
        node = ast.parse(textwrap.dedent("".join(lines))).body[0]
        assert isinstance(node, ast.ClassDef)
        for used, line in names_used(node):
            if used in theirs:
                yield first + line - 1, f"{cls.__name__}: {used}, private to {library_owner(bases, used)}"
        for declared in defined_in_body(node):
            if declared in reactives and isinstance(vars(cls).get(declared), Reactive):
                yield first, f"{cls.__name__}: reactive {declared} declared again (a Textual base's)"


def names_used(cls: ast.ClassDef) -> Iterator[tuple[str, int]]:
    """``(name, line in the class source)`` for every private name the class body defines and every
    ``self.``/``cls.``/``super().`` attribute it reads or writes."""
    for name in defined_in_body(cls):
        if is_private(name):
            yield name, cls.lineno
    for node in ast.walk(cls):
        if isinstance(node, ast.Attribute) and is_private(node.attr) and is_self(node.value):
            yield node.attr, node.lineno


@functools.cache
def library_privates(cls: type) -> frozenset[str]:
    """The private names of library class ``cls``: its class attributes, and the attributes its
    source assigns on ``self``."""
    names = {name for name in vars(cls) if is_private(name)}
    node = class_source(cls)
    if node is not None:
        for child in ast.walk(node):
            if (
                isinstance(child, ast.Attribute)
                and isinstance(child.ctx, ast.Store)
                and isinstance(child.value, ast.Name)
                and child.value.id == "self"
                and is_private(child.attr)
            ):
                names.add(child.attr)
    return frozenset(names - METACLASS_NAMES)


METACLASS_NAMES = frozenset(
    {
        "_decorated_handlers",
        "_reactives",
        "_inherit_css",
        "_inherit_bindings",
        "_inherit_component_classes",
        "_css_type_name",
        "_css_type_names",
        "_merged_bindings",
        "_computes",
        "_abc_impl",
    }
)
"""What Textual's (and abc's) class machinery sets on every class, ours included: not a choice of ours."""


def class_source(cls: type) -> ast.ClassDef | None:
    """The definition of library class ``cls``, found in the file of one of its methods (some
    libraries, httpcore among them, re-export their classes under another ``__module__``)."""
    for value in vars(cls).values():
        code = getattr(getattr(value, "__func__", value), "__code__", None)
        if code is not None:
            tree = parsed_file(code.co_filename)
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef) and node.name == cls.__name__:
                    return node
    return None


@functools.cache
def parsed_file(filename: str) -> ast.Module:
    """The parsed source of a library file (each parsed once)."""
    return ast.parse(Path(filename).read_text(encoding="utf-8"))


def library_owner(bases: list[type], name: str) -> str:
    """The first of ``bases`` that has ``name`` as a private, as ``module.Class``."""
    owner = next(base for base in bases if name in library_privates(base))
    return f"{owner.__module__}.{owner.__qualname__}"


def report(found: dict[str, list[tuple[int, str]]]) -> str:
    """The findings as ``file:line: what`` lines."""
    return "\n".join(f"{path}:{line}: {what}" for path, hits in found.items() for line, what in sorted(hits))


def test_no_module_outside_the_patches_imports_a_private_module() -> None:
    found = {path: hits for path, tree in modules().items() if (hits := list(private_imports(tree)))}
    assert not found, "private modules imported outside the patch modules:\n" + report(found)


def test_no_module_outside_the_patches_reads_a_library_private_attribute() -> None:
    trees = modules()
    ours = attribute_names_defined(trees)
    found = {path: hits for path, tree in trees.items() if (hits := list(private_reads(tree, ours)))}
    assert not found, "private attributes read outside the patch modules:\n" + report(found)


def test_no_class_outside_the_patches_touches_a_private_of_its_library_bases() -> None:
    found = {path: hits for path in modules() if (hits := list(library_touches(path)))}
    assert not found, "library privates touched outside the patch modules:\n" + report(found)


def test_the_checks_find_what_they_look_for() -> None:
    """Each kind of touch, written as code, is found (so a check that passes is not a check that
    cannot fail)."""
    sample = ast.parse(
        "from textual._compositor import Compositor\n"
        "import rich._wrap\n"
        "loop = object()\n"
        "handlers = loop._signal_handlers\n"
        "probe = getattr(loop, '_signal_handlers', None)\n"
        "class Pool:\n"
        "    def f(self):\n"
        "        return self._requests, super()._assign(), self._mine, parts._replace()\n"
    )
    assert [line for line, _ in private_imports(sample)] == [1, 2]
    reads = {what.split(",")[0] for _, what in private_reads(sample, {"_mine"})}
    assert reads == {"loop._signal_handlers", "getattr(loop", "self._requests", "super()._assign"}
    pool = {what.split(",")[0] for _, what in library_touches("websearch_tui/providers/transport/pool_repair.py")}
    assert {"ReclaimingPool: _assign_requests_to_connections", "ReclaimingPool: _requests"} <= pool
    assert {"SettlingByteStream: _pool", "SettlingByteStream: _pool_request"} <= pool
    size = [what for _, what in library_touches("websearch_tui/tui/patches/virtual_size.py")]
    assert size == ["LayoutFreeVirtualSize: reactive virtual_size declared again (a Textual base's)"]
    assert not any(path.startswith(PATCH_MODULES) for path in modules())  # the patch modules are left out
