"""Settings merge across scopes, and a bad file is named precisely and left untouched."""

from __future__ import annotations

from pathlib import Path

import pytest

from earshot._base.jsonfile import parse_json_object
from earshot.core.config.settings import SettingsError, load_settings


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_scopes_merge_user_then_project_then_local(tmp_path: Path, hermetic_env: Path) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    cwd = project / "src" / "pkg"
    cwd.mkdir(parents=True)
    _write(
        hermetic_env / ".config/earshot/settings.json",
        '{"model": "anthropic/a", "providers": {"ollama": {"base_url": "http://h:1/v1",'
        ' "headers": {"X-A": "1"}}}}',
    )
    _write(
        project / ".earshot/settings.json",
        '{"providers": {"ollama": {"headers": {"X-B": "2"}}},'
        ' "models": {"ollama": {"qwen3:8b": {"context": 32768}}}}',
    )
    _write(
        project / ".earshot/settings.local.json",
        '{"model": "ollama/qwen3:8b", "models": {"ollama": {"qwen3:8b": {"tool_call": true}}}}',
    )
    settings = load_settings(cwd)
    assert [f.scope for f in settings.files] == ["user", "project", "local"]
    assert settings.model == "ollama/qwen3:8b"
    ollama = settings.provider("ollama")
    assert ollama is not None
    assert ollama.base_url == "http://h:1/v1"
    assert dict(ollama.headers) == {"X-A": "1", "X-B": "2"}
    assert settings.models["ollama"]["qwen3:8b"] == {"context": 32768, "tool_call": True}


def test_malformed_settings_name_file_line_and_column(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    path = tmp_path / ".earshot/settings.json"
    text = '{\n  "model": "anthropic/a",\n  "providers": {\n    "groq": {"base_url": }\n  }\n}\n'
    _write(path, text)
    with pytest.raises(SettingsError) as info:
        load_settings(tmp_path)
    assert str(info.value).startswith(f"{path}:4:")
    assert path.read_text() == text


def test_wrong_field_type_names_the_field(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _write(tmp_path / ".earshot/settings.json", '{"providers": {"groq": {"base_url": 5}}}')
    with pytest.raises(SettingsError, match=r'"providers.groq".base_url'):
        load_settings(tmp_path)


def test_api_keys_in_settings_are_refused_with_the_fix(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _write(tmp_path / ".earshot/settings.json", '{"providers": {"groq": {"api_key": "gsk"}}}')
    with pytest.raises(SettingsError, match="earshot auth login groq"):
        load_settings(tmp_path)


def test_truncated_json_points_at_its_end() -> None:
    with pytest.raises(Exception, match=r"x.json:2:"):
        parse_json_object(b'{"a":\n  1', Path("x.json"))


def test_top_level_must_be_an_object() -> None:
    with pytest.raises(Exception, match="JSON object"):
        parse_json_object(b"[1, 2]", Path("x.json"))


def test_undo_file_size_cap_is_a_setting(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _write(tmp_path / ".earshot/settings.json", '{"undo": {"maxFileBytes": 2048}}')
    assert load_settings(tmp_path).undo_max_file_bytes == 2048
    _write(tmp_path / ".earshot/settings.json", '{"undo": {"maxFileBytes": "big"}}')
    with pytest.raises(SettingsError, match=r'"undo.maxFileBytes"'):
        load_settings(tmp_path)


def test_idle_timeout_and_pass_env_are_read_and_checked(tmp_path: Path, hermetic_env: Path) -> None:
    (tmp_path / ".git").mkdir()
    _write(hermetic_env / ".config/earshot/settings.json", '{"idleTimeoutMs": 120000}')
    _write(tmp_path / ".earshot/settings.local.json", '{"passEnv": ["GITHUB_TOKEN"]}')
    settings = load_settings(tmp_path)
    assert (settings.idle_timeout_ms, settings.pass_env) == (120_000, ["GITHUB_TOKEN"])
    _write(tmp_path / ".earshot/settings.local.json", '{"idleTimeoutMs": "2m"}')
    with pytest.raises(SettingsError, match=r"idleTimeoutMs.*milliseconds"):
        load_settings(tmp_path)


def test_a_checked_in_project_file_cannot_pass_credentials_to_commands(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    path = tmp_path / ".earshot/settings.json"
    _write(path, '{"passEnv": ["ANTHROPIC_API_KEY"]}')
    with pytest.raises(SettingsError) as info:
        load_settings(tmp_path)
    assert str(info.value).startswith(f'{path}: "passEnv"')
    assert "never from a checked-in project file" in str(info.value)


def test_a_bad_subagent_depth_names_the_file_and_field(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    _write(tmp_path / ".earshot/settings.json", '{"subagentDepth": -1}')
    with pytest.raises(SettingsError, match=r'settings.json: "subagentDepth": must be a whole'):
        load_settings(tmp_path)
    _write(tmp_path / ".earshot/settings.json", '{"subagentDepth": 3}')
    assert load_settings(tmp_path).subagent_depth == 3
