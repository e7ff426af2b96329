"""The search bar: the query box and the mode, recency and count boxes of the search screen.

It holds the controls of the next search and nothing else: the screen asks it for them
(:meth:`SearchBar.controls`), sets them to a past search's (:meth:`SearchBar.show_request`) and
tells it the window's width (:meth:`SearchBar.compact`). A change of a box is Textual's
``Select.Changed``, which bubbles to the screen.

Each box is drawn for the first frame by a :class:`SelectFace` (one widget that looks like the closed
box), and the real ``Select`` (six widgets, with its drop-down list) takes its place right after that
frame (:meth:`SearchBar.mount_selects`); until then the bar keeps the boxes' values and labels in the
faces, so every method here works at any time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Generic, TypeVar

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Select, Static

from websearch_tui.core.models import MAX_RESULTS_LIMIT, SearchRequest
from websearch_tui.tui.common.remembered import Controls
from websearch_tui.tui.search.query_input import QueryInput

if TYPE_CHECKING:
    from websearch_tui.settings.config import SearchSettings

T = TypeVar("T")

RECENCY_OPTIONS = [
    ("any time", "any"),
    ("past day", "day"),
    ("past week", "week"),
    ("past month", "month"),
    ("past year", "year"),
]
MODE_OPTIONS = [("compare", "compare"), ("auto", "auto")]
COUNT_OPTIONS = [(f"{n} result{'s' if n != 1 else ''}", n) for n in range(1, MAX_RESULTS_LIMIT + 1)]
COMPACT_RECENCY_OPTIONS = [("any", "any"), ("day", "day"), ("week", "week"), ("month", "month"), ("year", "year")]
COMPACT_COUNT_OPTIONS = [(str(n), n) for n in range(1, MAX_RESULTS_LIMIT + 1)]
COMPACT_WIDTH = 100
"""Below this many columns the recency and count boxes show short labels (``week``, ``10``), so the
query box keeps room for a question."""
SELECT_CHROME = 6
"""Columns a search-bar Select takes besides its label: border (2), padding (2) and the arrow (2)."""
TOOLTIPS = {"mode": "Search mode", "recency": "Recency", "count": "Results per provider"}
"""The tooltip of each box, by id."""


class SelectFace(Static, Generic[T]):
    """A search-bar box as the first frame draws it: the closed ``Select`` of ``options`` showing
    ``value`` (its border, label and arrow, in the same colours), as one widget. It holds the box's
    value and options until :meth:`SearchBar.mount_selects` puts the real ``Select`` in its place.

    Args:
        options: ``(label, value)`` pairs, as ``Select`` takes them.
        value: the value shown (one of the options').
        id: the box's id (the ``Select`` that replaces it takes it).
    """

    DEFAULT_CSS = """
    SelectFace {
        border: tall $border-blurred; color: $foreground; background: $surface; height: auto; padding: 0 1;
    }
    """

    def __init__(self, options: list[tuple[str, T]], value: T, *, id: str) -> None:
        self.options = options
        self._value = value
        label, width = self._face()
        super().__init__(label, id=id, markup=False)
        self.styles.width = width

    @property
    def value(self) -> T:
        """The value shown."""
        return self._value

    @value.setter
    def value(self, value: T) -> None:
        self._value = value
        self._draw()

    def set_options(self, options: list[tuple[str, T]]) -> None:
        """Other labels for the same values (the value is kept)."""
        self.options = options
        self._draw()

    def _face(self) -> tuple[Content, int]:
        """What the box shows and its width: the label of the value, padded to the longest label, then
        the arrow (dimmed, as Select's); the width fits the longest label with the box's chrome."""
        labels = dict((value, label) for label, value in self.options)
        longest = max(cell_len(label) for label, _ in self.options)
        label = labels.get(self._value, "")
        return Content.assemble(label + " " * (longest - cell_len(label) + 1), ("▼", "$foreground 50%")), (
            longest + SELECT_CHROME
        )

    def _draw(self) -> None:
        """Show the value and options set; nothing once the face is no longer on the screen (its Select
        takes its place)."""
        if not self.is_attached:
            return
        label, width = self._face()
        self.update(label)
        self.styles.width = width


class SearchBar(Horizontal):
    """The query box, then the mode, recency and count boxes, set to ``controls``.

    Args:
        controls: the controls to start with (providers are the provider list's, not used here).
        compact: short labels in the recency and count boxes (a window narrower than
            :data:`COMPACT_WIDTH` columns).
    """

    def __init__(self, controls: Controls, *, compact: bool, id: str | None = None) -> None:
        super().__init__(id=id)
        self._start = controls
        self._compact = compact
        self._faces = True  # the boxes are SelectFaces until mount_selects
        self._swapping: dict[str, SelectFace[object]] = {}
        """While :meth:`mount_selects` runs: each box's face, which holds what is set until its Select has mounted."""

    def compose(self) -> ComposeResult:
        """The query box and the three boxes (their faces), each just wide enough for its longest label."""
        controls = self._start
        recency = controls.recency if controls.recency in {v for _, v in RECENCY_OPTIONS} else "any"
        count = min(max(int(controls.max_results), 1), MAX_RESULTS_LIMIT)
        mode = controls.mode if controls.mode in ("compare", "auto") else "compare"
        compact = self._compact
        yield QueryInput(placeholder="Ask the web anything…", id="query")
        yield SelectFace(MODE_OPTIONS, mode, id="mode")
        yield SelectFace(COMPACT_RECENCY_OPTIONS if compact else RECENCY_OPTIONS, recency, id="recency")
        yield SelectFace(COMPACT_COUNT_OPTIONS if compact else COUNT_OPTIONS, count, id="count")

    async def mount_selects(self) -> None:
        """Put a ``Select`` in each face's place, with the face's options and value (drawn in one
        update: nothing moves on screen; the screen calls it once the first frame is drawn); does
        nothing once done. No ``Select.Changed`` is reported
        for it: no control changed (a Select reports its first value when it mounts). Nothing once the
        app closes."""
        if not self._faces:
            return
        self._faces = False
        self._swapping = {face.id or "": face for face in self.query(SelectFace)}
        try:
            with self.app.batch_update(), self.prevent(Select.Changed):
                selects = {}
                for name, face in self._swapping.items():
                    select = selects[name] = _control(face.options, face.value, id=name, tooltip=TOOLTIPS[name])
                    place = self.children.index(face) - 1  # the widget before it (the query box comes first)
                    await face.remove()
                    if not self.is_attached:
                        return  # the app closes
                    await self.mount(select, after=place)
                for name, face in self._swapping.items():  # what was set on the boxes while they mounted
                    select = selects[name]
                    if select.is_attached:  # not when the screen is being removed (the app closing)
                        _relabel(select, face.options)
                        select.value = face.value
        finally:
            self._swapping = {}

    def _box(self, name: str) -> Select[object] | SelectFace[object]:
        """The box ``name`` (``mode``, ``recency``, ``count``): its Select, or its face until the Select
        has mounted (a Select not mounted yet takes its first value when it mounts, and drops any
        value set before)."""
        face = self._swapping.get(name)
        if face is not None:
            return face
        box = self.query_one(f"#{name}")
        assert isinstance(box, (Select, SelectFace))
        return box

    def controls(self) -> tuple[str, str | None, int]:
        """``(mode, recency or None for any time, results per provider)`` as the boxes show them."""
        mode, recency, count = (self._box(name).value for name in ("mode", "recency", "count"))
        return (
            mode if isinstance(mode, str) else "compare",
            recency if isinstance(recency, str) and recency != "any" else None,
            count if isinstance(count, int) else 10,
        )

    def show_request(self, request: SearchRequest) -> None:
        """Set the boxes to ``request``'s mode, recency and count (the caller prevents ``Select.Changed``)."""
        self._box("mode").value = request.mode
        self._box("recency").value = request.recency or "any"
        self._box("count").value = min(max(request.max_results, 1), MAX_RESULTS_LIMIT)

    def follow_config(self, old: SearchSettings, new: SearchSettings) -> None:
        """Newly saved ``[search]`` defaults: each box whose default changed shows the new one."""
        if new.mode != old.mode:
            self._box("mode").value = new.mode
        if new.recency != old.recency:
            self._box("recency").value = new.recency or "any"
        if new.max_results != old.max_results:
            self._box("count").value = min(max(new.max_results, 1), MAX_RESULTS_LIMIT)

    def compact(self, compact: bool) -> None:
        """Short labels in the recency and count boxes (``week``, ``10``), or the full ones; the values
        stay (no change is reported)."""
        if compact == self._compact:
            return
        self._compact = compact
        with self.prevent(Select.Changed):
            _relabel(self._box("recency"), COMPACT_RECENCY_OPTIONS if compact else RECENCY_OPTIONS)
            _relabel(self._box("count"), COMPACT_COUNT_OPTIONS if compact else COUNT_OPTIONS)


def _control(options: list[tuple[str, T]], value: T, *, id: str, tooltip: str) -> Select[T]:
    """A search-bar Select just wide enough for its longest option on one line."""
    width = max(cell_len(label) for label, _ in options) + SELECT_CHROME
    return Select(options, value=value, allow_blank=False, id=id, tooltip=tooltip).set_styles(f"width: {width};")


def _relabel(box: Select[object] | SelectFace[object], options: list[tuple[str, T]]) -> None:
    """Give ``box`` other labels for the same values (its value kept) and fit its width to them."""
    if isinstance(box, SelectFace):
        box.set_options(options)  # type: ignore[arg-type]
        return
    value = box.value
    box.set_options(options)
    box.value = value
    box.styles.width = max(cell_len(label) for label, _ in options) + SELECT_CHROME
