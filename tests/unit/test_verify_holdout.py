"""HOLD-OUT SET for the citation checker (websearch_tui.verify).

These cases were written, and committed, before the checker existed and before any threshold was
tuned; they are not to be edited to make the checker pass. Each is a page, a claim and the verdict a
careful reader would give. The tuning cases live in test_verify_match.py; these measure how the
checker does on claims it was not tuned on. The test asserts the one property that must never fail
(no claim whose number, date or name differs from the page's is ``quoted`` or ``supported``) and an
accuracy floor; the failing cases are listed in the assertion message.
"""

from __future__ import annotations

from websearch_tui.core.checks import Verdict
from websearch_tui.verify.check import check_claim

LISBON = """\
# Lisbon

Lisbon is the capital and largest city of Portugal, with an estimated population of 567,131 within
its administrative limits in 2023. The Lisbon metropolitan area has around 2.9 million people.
Lisbon is mainland Europe's westernmost capital city.

## History

The city was largely destroyed by an earthquake on 1 November 1755, followed by a tsunami and
fires. Reconstruction was led by the Marquis of Pombal.
"""

PYTHON = """\
Python 3.12 was released on October 2, 2023. It removed the *distutils* package, which had been
deprecated since Python 3.10. Error messages were improved again, and the f-string grammar was
formalised by [PEP 701](https://peps.python.org/pep-0701/). The per-interpreter GIL (PEP 684) lets
sub-interpreters run in parallel.
"""

TOKYO = "东京是日本的首都，人口约1400万。东京塔建于1958年，高333米。"

JOBS = """\
Unemployment in the region fell to 4.2 percent in March, down from 5.1 percent a year earlier, the
statistics office said on Tuesday. Between 3,000 and 6,000 jobs were added in manufacturing.
"""

WEBB = """\
The James Webb Space Telescope launched on 25 December 2021 from Kourou, French Guiana, aboard an
Ariane 5 rocket. Its primary mirror is 6.5 metres across and consists of 18 hexagonal segments.
"""

Q, S, N = Verdict.QUOTED, Verdict.SUPPORTED, Verdict.NOT_SUPPORTED
FACT = "fact"  # marks a case whose claim differs from the page in a number, date or name

HOLDOUT: list[tuple[str, str, Verdict, str]] = [
    (LISBON, "Lisbon had a population of 567,131 in 2023.", S, ""),
    (LISBON, "Lisbon had about 567,000 inhabitants in 2023.", S, ""),
    (LISBON, "The Lisbon metropolitan area has around 29 million people.", N, FACT),
    (LISBON, "The earthquake that destroyed Lisbon struck on 1 November 1755.", S, ""),
    (LISBON, "The earthquake that destroyed Lisbon struck on 1 November 1775.", N, FACT),
    (LISBON, "Reconstruction was led by the Marquis of Pombal.", Q, ""),
    (LISBON, "Reconstruction was led by the Duke of Saldanha.", N, FACT),
    (LISBON, "Lisbon is the westernmost capital in mainland Europe.", S, ""),
    (LISBON, "The city was largely destroyed by an earthquake on 1 November 1755", Q, ""),
    (LISBON, "Lisbon is the capital of Spain.", N, FACT),
    (LISBON, "Bananas are rich in potassium.", N, ""),
    (PYTHON, "Python 3.12, released in October 2023, removed distutils.", S, ""),
    (PYTHON, "Python 3.12 was released on October 2, 2022.", N, FACT),
    (PYTHON, "PEP 701 formalised the grammar of f-strings in Python 3.12.", S, ""),
    (PYTHON, "The distutils package had been deprecated since Python 3.8.", N, FACT),
    (PYTHON, "Python 3.12 removed the asyncore module.", N, ""),
    (TOKYO, "东京塔高333米。", S, ""),
    (TOKYO, "东京塔建于1968年。", N, FACT),
    (TOKYO, "东京是日本的首都", Q, ""),
    (JOBS, "Unemployment in the region fell to 4.2% in March.", S, ""),
    (JOBS, "Unemployment fell to 2.4% in March.", N, FACT),
    (JOBS, "Between 30,000 and 60,000 manufacturing jobs were added.", N, FACT),
    (JOBS, "Manufacturing added between 3,000 and 6,000 jobs.", S, ""),
    (WEBB, "JWST's mirror consists of 18 hexagonal segments.", S, ""),
    (WEBB, "The telescope launched aboard an Ariane 6 rocket.", N, FACT),
    (WEBB, "The James Webb Space Telescope launched from Kourou in French Guiana on 25 December 2021.", S, ""),
    (WEBB, "The telescope's primary mirror is 6.5 meters wide.", S, ""),
    (WEBB, "Its primary mirror is 6.5 metres across", Q, ""),
]


def test_holdout_never_passes_a_changed_fact_and_keeps_its_accuracy() -> None:
    verdicts = [check_claim(claim, page)[0] for page, claim, _, _ in HOLDOUT]
    wrongly_passed = [
        claim
        for (_, claim, _, kind), verdict in zip(HOLDOUT, verdicts, strict=True)
        if kind == FACT and verdict in (Q, S)
    ]
    assert wrongly_passed == []
    misses = [
        f"{claim!r}: expected {expected.value}, got {verdict.value}"
        for (_, claim, expected, _), verdict in zip(HOLDOUT, verdicts, strict=True)
        if verdict is not expected
    ]
    assert len(misses) <= 4, "\n".join(misses)
