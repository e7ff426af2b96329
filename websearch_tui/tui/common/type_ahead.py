"""Type-ahead: what the user types while the app starts reaches the query box, in the order typed.

A user who starts the app and types at once (or pastes) sends keys before the first screen has
given anything focus: the terminal driver reads them as soon as it starts, a few hundred
milliseconds before the first frame, and Textual hands a key that arrives with nothing focused to
the screen, which has no use for it: the keys were lost. :class:`TypeAhead` holds every key and
paste the App receives from the terminal from its start until the search screen is ready for them:
the query box has focus and the real provider list and boxes have taken the places of the faces
the first frame drew (so a Tab moves through the same stops as later). The App calls
:meth:`TypeAhead.release` then and handles what was held, oldest first, as if it had just arrived:
before any key typed after, which the App's queue holds behind the screen's word. Mouse input is
not held: it points at a screen that was not drawn yet.

Keys typed before Textual switched the terminal out of line mode went through the terminal's line
discipline, which turns Enter's carriage return into a newline (``ICRNL``): Textual reads that as
Ctrl+J, which the query box ignores, so "question, Enter" typed at start did not search. A held
Ctrl+J is therefore handed back as Enter when it is the last thing held, and as a space when more
follows: a line break inside text pasted then (before the terminal marks pastes as such) joins its
lines instead of searching each part.
"""

from __future__ import annotations

from textual import events

MAX_HELD = 10_000
"""Most keys and pastes held (a paste is one); later ones are dropped. A person types a few dozen
before the first frame; the bound keeps a stream of input into a stalled start from growing without end."""


class TypeAhead:
    """Keys and pastes held while the app starts (see the module's docstring)."""

    def __init__(self) -> None:
        self._held: list[events.Key | events.Paste] | None = []

    @property
    def holding(self) -> bool:
        """True until :meth:`release`."""
        return self._held is not None

    def hold(self, event: events.Event) -> bool:
        """Keep ``event`` if it is a key or paste from the terminal (not one forwarded back to the App)
        and nothing has been released yet; True when it was kept (or dropped past :data:`MAX_HELD`):
        the App then does nothing more with it now."""
        if self._held is None or event.is_forwarded or not isinstance(event, (events.Key, events.Paste)):
            return False
        if len(self._held) < MAX_HELD:
            self._held.append(event)
        return True

    def release(self) -> list[events.Key | events.Paste]:
        """Stop holding; the keys and pastes held, oldest first, each line-mode Ctrl+J as Enter (the
        last thing held) or a space (see the module's docstring); empty after the first call."""
        held, self._held = self._held or [], None
        last = len(held) - 1
        return [_line_break(event, index == last) for index, event in enumerate(held)]


def _line_break(event: events.Key | events.Paste, last: bool) -> events.Key | events.Paste:
    """``event``, or for a Ctrl+J the key a line break typed in line mode stands for: Enter when
    ``last``, else a space."""
    if not isinstance(event, events.Key) or event.key != "ctrl+j":
        return event
    return events.Key("enter", "\r") if last else events.Key("space", " ")
