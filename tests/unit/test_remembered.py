"""The TUI's remembered controls (websearch_tui.tui.common.remembered): one entry per config file, the
earlier single-entry file still read, the file's size bounded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.helpers import module_log
from websearch_tui.settings.config import config_path
from websearch_tui.tui.common import remembered
from websearch_tui.tui.common.remembered import Controls, config_key, load_controls, save_controls

REAL = Controls(("ddgs", "brave"), "auto", "week", 7)
TEST = Controls(("exa",), "compare", None, 3)


def test_each_config_file_remembers_its_own_controls(tmp_path: Path) -> None:
    state = tmp_path / "state" / "state.json"
    real, test = tmp_path / "real.toml", tmp_path / "test.toml"
    save_controls(REAL, state, config_file=real)
    assert load_controls(state, config_file=test) is None  # nothing remembered for it: the config's defaults
    save_controls(TEST, state, config_file=test)
    assert load_controls(state, config_file=real) == REAL  # the test session did not touch it
    assert load_controls(state, config_file=test) == TEST
    data = json.loads(state.read_text(encoding="utf-8"))
    assert data["version"] == 2 and list(data["configs"]) == [config_key(real), config_key(test)]
    assert data["configs"][config_key(real)] == {
        "providers": ["ddgs", "brave"],
        "mode": "auto",
        "recency": "week",
        "max_results": 7,
    }


def test_the_same_file_named_differently_is_one_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    state = tmp_path / "state.json"
    (tmp_path / "conf").mkdir()
    real = tmp_path / "conf" / "config.toml"
    real.write_text("", encoding="utf-8")
    (tmp_path / "link.toml").symlink_to(real)
    monkeypatch.chdir(tmp_path)
    save_controls(REAL, state, config_file=Path("conf/config.toml"))  # --config conf/config.toml
    assert load_controls(state, config_file=real) == REAL
    assert load_controls(state, config_file=tmp_path / "link.toml") == REAL
    assert config_key(Path("conf/../conf/config.toml")) == str(real.resolve())


def test_no_config_named_means_the_config_the_app_would_use(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    save_controls(REAL, state)  # Config(path=None): $WEBSEARCH_TUI_CONFIG (set by the test fixture)
    assert load_controls(state, config_file=config_path()) == REAL
    assert config_key() == str(config_path().resolve())


def test_an_earlier_single_entry_file_belongs_to_the_config_used_when_none_is_named(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    old = {"providers": ["ddgs", "brave"], "mode": "auto", "recency": "week", "max_results": 7}
    state.write_text(json.dumps(old), encoding="utf-8")
    assert load_controls(state) == REAL
    assert load_controls(state, config_file=config_path()) == REAL
    other = tmp_path / "test.toml"
    assert load_controls(state, config_file=other) is None  # a test config no longer inherits it
    save_controls(TEST, state, config_file=other)  # the next save rewrites the file, keeping the old entry
    data = json.loads(state.read_text(encoding="utf-8"))
    new = {"providers": ["exa"], "mode": "compare", "recency": None, "max_results": 3}
    assert data == {"version": 2, "configs": {config_key(): old, config_key(other): new}}
    assert load_controls(state) == REAL and load_controls(state, config_file=other) == TEST


def test_a_bad_entry_is_ignored_and_the_others_kept(tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    real, test = tmp_path / "real.toml", tmp_path / "test.toml"
    bad = {"providers": "exa", "mode": "auto", "recency": None, "max_results": 3}
    state.write_text(json.dumps({"version": 2, "configs": {config_key(real): bad}}), encoding="utf-8")
    assert load_controls(state, config_file=real) is None
    save_controls(TEST, state, config_file=test)
    assert load_controls(state, config_file=test) == TEST
    save_controls(REAL, state, config_file=real)
    assert load_controls(state, config_file=real) == REAL
    for text in ("not json", "[]", "{}", json.dumps({"configs": []})):
        state.write_text(text, encoding="utf-8")
        assert load_controls(state, config_file=real) is None
    save_controls(REAL, state, config_file=real)  # a file that is not a state file is replaced
    assert load_controls(state, config_file=real) == REAL


def test_the_oldest_configs_are_forgotten(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(remembered, "MAX_CONFIGS", 3)
    state = tmp_path / "state.json"
    configs = [tmp_path / f"c{n}.toml" for n in range(4)]
    for config in configs[:3]:
        save_controls(REAL, state, config_file=config)
    save_controls(TEST, state, config_file=configs[0])  # used again: the newest now
    save_controls(TEST, state, config_file=configs[3])
    kept = list(json.loads(state.read_text(encoding="utf-8"))["configs"])
    assert kept == [config_key(configs[n]) for n in (2, 0, 3)]
    assert load_controls(state, config_file=configs[1]) is None


def test_a_failed_save_is_logged_not_raised(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    with module_log(caplog, "websearch_tui.tui.common.remembered"):
        save_controls(REAL, blocker / "state.json", config_file=tmp_path / "c.toml")
    assert "could not remember the search controls" in caplog.text
