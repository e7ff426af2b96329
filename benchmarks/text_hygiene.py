"""What the screen shows must be what is there (issue 27), and what it costs: the one sanitiser on
110 KB texts of four kinds, and the URL gate, the host shown and the merge key per URL.

- ``sanitize``: English (ASCII: one C pass), Russian, Russian with no-break spaces and Japanese with
  ideographic spaces (not "printable" to Python, so a per-line check runs), and Russian with an
  unassigned code point on every line (each such line looked up character by character). Milliseconds
  per call, the best of five.
- ``safe_url``, ``host_of``, ``canonical_url``: microseconds per URL over 2,000 distinct URLs, caches
  cleared first (each URL is parsed by the WHATWG reader, ada-url, besides urllib or yarl).

Run it on two trees to compare (``PYTHONPATH=<tree> python3 benchmarks/text_hygiene.py``); figures,
not a pass/fail test.
"""

from __future__ import annotations

import functools
import sys
import timeit
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from websearch_tui.core import text  # noqa: E402

TEXTS = {
    "English": "Hello world, this is a test of the sanitiser today.\n" * 2200,
    "Russian": "Привет мир, это тест санитайзера сегодня.\n" * 2600,
    "Russian, no-break spaces": "Привет\u00a0мир, это тест санитайзера сегодня.\n" * 2600,
    "Japanese, ideographic spaces": "日本語のテキスト\u3000です。\n" * 8000,
    "Russian, unassigned per line": "Привет мир, это тест санитайзера \u0378.\n" * 2600,
}
URLS = [f"https://docs.example{i}.com/path/{i}?q={i}&utm_source=x" for i in range(2000)]


def best_ms(call: Callable[[], object], repeat: int = 5) -> float:
    """The best of ``repeat`` timings of one ``call``, in milliseconds."""
    return min(timeit.repeat(call, number=1, repeat=repeat)) * 1000


def per_url_us(function: Callable[[str], object]) -> float:
    """Microseconds per URL of ``function`` over :data:`URLS`, its cache (if any) cleared each round."""
    clear = getattr(function, "cache_clear", lambda: None)

    def run() -> None:
        clear()
        for url in URLS:
            function(url)

    return best_ms(run) * 1000 / len(URLS)


def main() -> None:
    """Print the figures."""
    for name, sample in TEXTS.items():
        took = best_ms(functools.partial(text.sanitize, sample))
        print(f"sanitize  {name:30} {len(sample) / 1000:5.0f} KB  {took:7.2f} ms")
    for name in ("safe_url", "host_of", "canonical_url"):
        print(f"{name:14} {per_url_us(getattr(text, name)):7.1f} us per URL")


if __name__ == "__main__":
    main()
