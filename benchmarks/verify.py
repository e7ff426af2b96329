"""Citation checker cost: 20 claims against a 1 MB page, beside rapidfuzz's raw passage search.

The page is a deterministic Markdown article (tests/verify_pages.py); the claims are its sentences
as they are (quoted), reworded (supported) and with a figure ten times larger (not supported). Prints
the time to read the page into passages (once per page), the milliseconds per claim of the full
judgement (quote search, prefilter, facts, verdict), and, as the baseline, the milliseconds of one
bare ``rapidfuzz.process.extract`` of the claim's text over the same passages (``token_set_ratio``,
the scorer the prefilter uses; no normalisation, no facts). It also counts the verdicts that differ
from the intended ones. Not a pass/fail test.

    python3 benchmarks/verify.py [--size 1000000] [--claims 20] [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rapidfuzz import fuzz, process  # noqa: E402

from tests.verify_pages import claims_from, long_page  # noqa: E402
from websearch_tui.verify.match import CANDIDATES, PageIndex, judge  # noqa: E402
from websearch_tui.verify.sentences import split_sentences  # noqa: E402
from websearch_tui.verify.text import blocks, clean  # noqa: E402


def main() -> None:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1_000_000, help="page size in characters")
    parser.add_argument("--claims", type=int, default=20)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    page = long_page(args.size)
    sentences = [sentence for block in blocks(clean(page)) for sentence in split_sentences(block.text)]
    claims = claims_from(sentences, args.claims)
    build, per_claim, baseline = [], [], []
    wrong = 0
    for _ in range(args.runs):
        started = time.perf_counter()
        index = PageIndex(page)
        build.append((time.perf_counter() - started) * 1000)
        started = time.perf_counter()
        verdicts = [judge(claim, index)[0].value for claim, _ in claims]
        per_claim.append((time.perf_counter() - started) * 1000 / len(claims))
        wrong = sum(verdict != kind for verdict, (_, kind) in zip(verdicts, claims, strict=True))
        choices = [index.passage(number) for number in range(len(index))]
        started = time.perf_counter()
        for claim, _ in claims:
            process.extract(claim, choices, scorer=fuzz.token_set_ratio, processor=None, limit=CANDIDATES)
        baseline.append((time.perf_counter() - started) * 1000 / len(claims))
    print(f"page: {len(page):,} characters, {len(sentences):,} sentences, {len(choices):,} passages")
    print(f"read into passages: median {statistics.median(build):.0f} ms (once per page)")
    print(f"judge one claim:    median {statistics.median(per_claim):.1f} ms, worst {max(per_claim):.1f} ms")
    print(f"rapidfuzz extract:  median {statistics.median(baseline):.1f} ms per claim (baseline)")
    print(f"verdicts other than intended: {wrong} of {len(claims)}")


if __name__ == "__main__":
    main()
