"""ConfigEditor: key-by-key edits that keep every comment and untouched line, atomic saves,
validation at the field, and detection of edits made to the file by somebody else."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from websearch_tui.settings.config import ConfigError, load_config
from websearch_tui.settings.edit import ConfigChangedOnDisk, ConfigEditor

UNUSUAL = """\
# My websearch-tui setup   (hand written)

[search]
providers = [ "ddgs" ,  "exa",   # keyless first
    "brave" ]
mode="compare"          # side by side
timeout   =   45.0      # seconds
max_results = 7

# ---- providers ----
[providers.brave]   # the fast one
enabled = true      # keep on
base_url = 'https://api.search.brave.com'

[providers.grok]
search_mode = "web"   # web | x | both
"""


def _lines(text: str) -> list[str]:
    return text.splitlines()


@pytest.fixture
def config_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(UNUSUAL, encoding="utf-8")
    return path


def test_untouched_document_saves_byte_for_byte(config_file):
    editor = ConfigEditor.load(config_file)
    editor.save()
    assert config_file.read_text(encoding="utf-8") == UNUSUAL


def test_edits_change_only_their_lines_and_keep_comments(config_file):
    editor = ConfigEditor.load(config_file)
    editor.set("providers.brave", "enabled", False)
    editor.set("search", "timeout", 30)
    editor.set("providers.grok", "search_mode", "both")
    assert editor.dirty
    config = editor.save()
    assert not editor.dirty

    after = _lines(config_file.read_text(encoding="utf-8"))
    before = _lines(UNUSUAL)
    assert len(after) == len(before)
    changed = [(old, new) for old, new in zip(before, after, strict=True) if old != new]
    assert changed == [
        ("timeout   =   45.0      # seconds", "timeout   =   30      # seconds"),
        ("enabled = true      # keep on", "enabled = false      # keep on"),
        ('search_mode = "web"   # web | x | both', 'search_mode = "both"   # web | x | both'),
    ]
    assert config.providers["brave"].enabled is False
    assert config.search.timeout == 30
    assert load_config(config_file).providers["grok"].options["search_mode"] == "both"


def test_setting_the_same_value_is_not_an_edit(config_file):
    editor = ConfigEditor.load(config_file)
    editor.set("search", "max_results", 7)
    editor.set("providers.brave", "base_url", "https://api.search.brave.com")
    assert not editor.dirty


def test_new_tables_and_keys_are_appended_and_existing_text_kept(config_file):
    editor = ConfigEditor.load(config_file)
    editor.set("providers.searxng", "base_url", "http://localhost:8888")
    editor.set("ui", "theme", "nord")
    editor.set("providers.brave", "min_interval", 2)
    editor.save()
    text = config_file.read_text(encoding="utf-8")
    for line in _lines(UNUSUAL):
        assert line in text
    config = load_config(config_file)
    assert config.providers["searxng"].base_url == "http://localhost:8888"
    assert config.ui.theme == "nord"
    assert config.providers["brave"].min_interval == 2


def test_empty_value_removes_the_key_so_the_default_applies(config_file):
    editor = ConfigEditor.load(config_file)
    editor.set("search", "timeout", "")
    editor.set("providers.brave", "base_url", None)
    assert editor.get("search", "timeout") is None
    editor.save()
    text = config_file.read_text(encoding="utf-8")
    assert "timeout" not in text and "base_url" not in text
    assert "# side by side" in text and "# keep on" in text
    assert load_config(config_file).search.timeout == 60


@pytest.mark.parametrize(
    ("table", "key", "value", "reason"),
    [
        ("search", "timeout", 0, "timeout must be a number of seconds from 1 to 600"),
        ("search", "mode", "fastest", "mode must be one of"),
        ("search", "providers", ["brave", "bravo"], "unknown provider 'bravo'"),
        ("providers.brave", "base_url", "ftp://x", "must be an http(s) URL"),
        ("providers.brave", "enabled", "yes", "enabled must be true or false"),
        ("providers.grok", "search_mode", "everything", "search_mode must be one of web, x, both"),
        ("providers.brave", "min_interval", -1, "min_interval must be from 0 to 3600"),
        ("providers.nope", "enabled", True, "not a known provider"),
        ("ui", "theme", 3, "theme must be a theme name"),
        ("weird", "x", 1, "unknown settings table"),
    ],
)
def test_invalid_values_are_refused_with_the_reason_and_change_nothing(config_file, table, key, value, reason):
    editor = ConfigEditor.load(config_file)
    assert reason in editor.check(table, key, value)
    with pytest.raises(ConfigError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        editor.set(table, key, value)
    assert not editor.dirty
    assert editor.text() == UNUSUAL


def test_external_edit_is_detected_and_nothing_is_written(config_file):
    editor = ConfigEditor.load(config_file)
    editor.set("search", "max_results", 3)
    external = UNUSUAL.replace('mode="compare"', 'mode="auto"')
    config_file.write_text(external, encoding="utf-8")
    assert editor.changed_on_disk()
    with pytest.raises(ConfigChangedOnDisk, match="changed on disk"):
        editor.save()
    assert config_file.read_text(encoding="utf-8") == external
    assert editor.dirty  # the user's edit is still pending


def test_rebase_keeps_both_the_external_edit_and_the_pending_ones(config_file):
    editor = ConfigEditor.load(config_file)
    editor.set("search", "max_results", 3)
    config_file.write_text(UNUSUAL.replace('mode="compare"', 'mode="auto"'), encoding="utf-8")
    assert editor.rebase() == []
    config = editor.save()
    assert config.search.mode == "auto"
    assert config.search.max_results == 3
    assert "# keyless first" in config_file.read_text(encoding="utf-8")


def test_overwrite_replaces_an_externally_changed_file(config_file):
    editor = ConfigEditor.load(config_file)
    editor.set("search", "max_results", 3)
    config_file.write_text(UNUSUAL + "\n# added elsewhere\n", encoding="utf-8")
    editor.save(overwrite=True)
    assert "added elsewhere" not in config_file.read_text(encoding="utf-8")
    assert not editor.changed_on_disk()


def test_a_deleted_file_counts_as_changed(config_file):
    editor = ConfigEditor.load(config_file)
    config_file.unlink()
    assert editor.changed_on_disk()


def test_missing_file_is_created_with_its_directory_and_private_mode(tmp_path):
    path = tmp_path / "new" / "dir" / "config.toml"
    editor = ConfigEditor.load(path)
    assert editor.text() == ""
    assert not editor.changed_on_disk()
    editor.set("providers.brave", "enabled", False)
    editor.save()
    assert load_config(path).providers["brave"].enabled is False
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_save_keeps_the_file_mode_and_leaves_no_temp_file(config_file):
    os.chmod(config_file, 0o640)
    editor = ConfigEditor.load(config_file)
    editor.set("search", "max_results", 5)
    editor.save()
    assert stat.S_IMODE(config_file.stat().st_mode) == 0o640
    assert [p.name for p in config_file.parent.iterdir() if p.suffix != ".lock"] == ["config.toml"]


def test_a_failed_write_changes_nothing_and_names_the_file(config_file, monkeypatch):
    editor = ConfigEditor.load(config_file)
    editor.set("search", "max_results", 5)

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(ConfigError, match="cannot write the file"):
        editor.save()
    assert config_file.read_text(encoding="utf-8") == UNUSUAL
    assert [p.name for p in config_file.parent.iterdir() if p.suffix != ".lock"] == ["config.toml"]
    assert editor.dirty


def test_invalid_toml_is_a_config_error(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("[search\nmode = 1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid TOML"):
        ConfigEditor.load(path)


def test_save_refuses_a_document_made_invalid_by_hand(config_file):
    config_file.write_text(UNUSUAL.replace("max_results = 7", "max_results = 700"), encoding="utf-8")
    editor = ConfigEditor.load(config_file)
    editor.set("search", "mode", "auto")
    with pytest.raises(ConfigError, match="max_results"):
        editor.save()


def test_erasing_and_retyping_a_value_keeps_its_line_and_comment(config_file):
    editor = ConfigEditor.load(config_file)
    for typed in (4, "", None, 5, 50):  # what a field sends while the user replaces "45.0" with "50"
        editor.set("search", "timeout", typed)
    editor.set("search", "max_results", "")
    editor.set("search", "max_results", 8)
    editor.save()
    after = config_file.read_text(encoding="utf-8")
    assert after == UNUSUAL.replace("timeout   =   45.0", "timeout   =   50").replace(
        "max_results = 7", "max_results = 8"
    )


def test_setting_a_key_back_to_its_loaded_value_is_no_edit(config_file):
    editor = ConfigEditor.load(config_file)
    editor.set("providers.brave", "enabled", False)
    assert editor.dirty
    editor.set("providers.brave", "enabled", True)
    assert not editor.dirty
    assert editor.text() == UNUSUAL


def test_a_table_whose_only_new_key_was_cleared_again_is_not_written(config_file):
    editor = ConfigEditor.load(config_file)
    editor.set("ui", "theme", "nord")
    editor.set("ui", "theme", "")
    editor.set("providers.kagi", "api_version", "v0")
    editor.set("providers.kagi", "api_version", None)
    assert not editor.dirty
    editor.save()
    assert config_file.read_text(encoding="utf-8") == UNUSUAL


def test_a_symlinked_config_is_written_through_the_link(tmp_path):
    target = tmp_path / "dotfiles" / "websearch.toml"
    target.parent.mkdir()
    target.write_text(UNUSUAL, encoding="utf-8")
    link = tmp_path / "config.toml"
    link.symlink_to(target)
    editor = ConfigEditor.load(link)
    editor.set("search", "max_results", 4)
    editor.save()
    assert link.is_symlink()
    assert "max_results = 4" in target.read_text(encoding="utf-8")


def test_a_table_emptied_by_removals_goes_but_one_with_a_comment_stays(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('[ui]\ntheme = "nord"\n\n[providers.brave]\n# my proxy\nenabled = false\n', encoding="utf-8")
    editor = ConfigEditor.load(path)
    editor.set("ui", "theme", "")
    editor.set("providers.brave", "enabled", None)
    editor.save()
    assert path.read_text(encoding="utf-8") == "[providers.brave]\n# my proxy\n"


def test_a_read_only_config_is_refused_not_replaced(config_file: Path) -> None:
    editor = ConfigEditor.load(config_file)
    editor.set("search", "max_results", 7)
    before = config_file.read_bytes()
    config_file.chmod(0o444)
    with pytest.raises(ConfigError, match=r"read-only \(mode 0444\); nothing was written.*chmod u\+w"):
        editor.save()
    assert config_file.read_bytes() == before and config_file.stat().st_mode & 0o777 == 0o444


def test_two_editors_saving_at_once_never_lose_an_edit_silently(config_file: Path) -> None:
    import threading

    editors = [ConfigEditor.load(config_file) for _ in range(2)]
    editors[0].set("search", "max_results", 3)
    editors[1].set("search", "timeout", 30)
    outcomes: list[str] = []
    start = threading.Barrier(2)

    def save(editor: ConfigEditor) -> None:
        start.wait()
        try:
            editor.save()
            outcomes.append("saved")
        except ConfigChangedOnDisk:
            outcomes.append("told")

    threads = [threading.Thread(target=save, args=(e,)) for e in editors]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["saved", "told"]  # the second save sees the first one's write
    saved = load_config(config_file).search
    assert (saved.max_results == 3) != (saved.timeout == 30)  # exactly one edit was written


def test_a_save_killed_midway_leaves_no_lasting_temporary_file(config_file: Path) -> None:
    from websearch_tui.core import files

    leftover = files.temp_path(config_file)
    leftover.write_text("half a file", encoding="utf-8")  # what a kill -9 between write and rename leaves
    (config_file.parent / f".{config_file.name}.abc123.tmp").write_text("old pattern", encoding="utf-8")
    editor = ConfigEditor.load(config_file)
    editor.set("search", "max_results", 4)
    editor.save()
    assert not leftover.exists()
    files.remove_leftovers(config_file)
    assert [p.name for p in config_file.parent.iterdir() if p.suffix != ".lock"] == ["config.toml"]


def test_a_symlink_loop_is_a_config_error(tmp_path: Path) -> None:
    loop = tmp_path / "config.toml"
    loop.symlink_to(tmp_path / "other.toml")
    (tmp_path / "other.toml").symlink_to(loop)
    with pytest.raises(ConfigError):
        ConfigEditor.load(loop).save()
