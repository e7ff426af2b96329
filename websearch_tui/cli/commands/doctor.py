"""``websearch-tui doctor [PROVIDER...]``: one small live search per provider, all at once, and for
each whether it works and, if not, why and what to do (:mod:`websearch_tui.engine.doctor`)."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from websearch_tui.cli.common import UsageError, check_providers, fail, load_config
from websearch_tui.core.catalogue import SPECS

if TYPE_CHECKING:
    from websearch_tui.engine import doctor
    from websearch_tui.engine.engine import Engine
    from websearch_tui.settings.config import Config


def run(args: argparse.Namespace) -> int:
    """``doctor [PROVIDER...]``: one probe per provider (:mod:`websearch_tui.engine.doctor`); 0 when
    every check passed, 1 otherwise (also when nothing was named and nothing is ready).

    Raises:
        UsageError: an unknown provider id, an unusable config file.
    """
    from websearch_tui.engine import doctor

    named = _doctor_providers(args.providers)
    engine = _doctor_engine(load_config(args))
    checks = asyncio.run(_run_doctor(engine, named, args.timeout))
    if not checks:
        return fail(doctor.NOTHING_READY, 1)
    print(doctor.to_json(checks) if args.format == "json" else doctor.to_text(checks))
    return 0 if all(check.ok for check in checks) else 1


def _doctor_providers(ids: Sequence[str]) -> tuple[str, ...]:
    """``ids`` checked as for ``search -p``; the error lists every valid id."""
    try:
        return check_providers(ids)
    except UsageError as exc:
        message = str(exc)
        raise UsageError(message if "known:" in message else f"{message}; valid ids: {', '.join(SPECS)}") from None


def _doctor_engine(config: Config) -> Engine:
    """An engine for ``config`` that records nothing (its ``[history]`` switched off)."""
    from websearch_tui.engine.engine import Engine

    quiet = dataclasses.replace(config, history=dataclasses.replace(config.history, enabled=False))
    return Engine.from_config(quiet)


async def _run_doctor(engine: Engine, named: Sequence[str], timeout: float | None) -> list[doctor.Check]:
    """The checks of ``named`` (none: every ready provider), each within ``timeout`` seconds; the
    engine is closed at the end."""
    from websearch_tui.engine import doctor

    try:
        return await doctor.run_checks(engine, named, timeout=timeout)
    finally:
        await engine.aclose()
