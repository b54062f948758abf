"""The effort scale as settings and the session see it: parsing, scopes, per-model entries,
the order of sources, and what a person is told."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from earshot.core.config.settings import SettingsError, load_settings
from earshot.core.effort import EffortPolicy
from earshot.providers.effort import choose, parse_effort
from earshot.providers.models import EffortOption, ModelInfo
from earshot.providers.target import Target


def _write(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def target(info: ModelInfo | None) -> Target:
    return Target(
        provider="openai",
        wire="openai-responses",
        base_url="https://vendor.invalid/v1",
        model="m",
        auth="bearer",
        info=info,
    )


def test_levels_parse_case_insensitively_and_none_means_off() -> None:
    assert parse_effort("HIGH") == "high"
    assert parse_effort(" none ") == "off"
    with pytest.raises(ValueError, match="use one of off, low, medium, high, max"):
        parse_effort("minimal")


def test_settings_scopes_and_per_model_efforts(tmp_path: Path, hermetic_env: Path) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    _write(hermetic_env / ".config/earshot/settings.json", {"reasoningEffort": "low"})
    _write(
        project / ".earshot/settings.json",
        {"models": {"openai": {"gpt-5": {"reasoningEffort": "max", "context": 1000}}}},
    )
    _write(project / ".earshot/settings.local.json", {"reasoningEffort": "high"})
    settings = load_settings(project)
    assert settings.reasoning_effort == "high"
    assert settings.model_efforts == {"openai/gpt-5": "max"}
    # The effort is not a catalog field: only the rest of the entry overrides the catalog.
    assert settings.models == {"openai": {"gpt-5": {"context": 1000}}}


def test_an_entry_holding_only_an_effort_overrides_no_catalog_model(
    tmp_path: Path, hermetic_env: Path
) -> None:
    _write(
        tmp_path / ".earshot/settings.json", {"models": {"x": {"y": {"reasoningEffort": "low"}}}}
    )
    settings = load_settings(tmp_path)
    assert settings.models == {}
    assert settings.model_efforts == {"x/y": "low"}


def test_a_bad_effort_setting_names_the_file_and_field(tmp_path: Path, hermetic_env: Path) -> None:
    path = tmp_path / ".earshot/settings.json"
    _write(path, {"models": {"openai": {"o3": {"reasoningEffort": "turbo"}}}})
    with pytest.raises(SettingsError) as bad:
        load_settings(tmp_path)
    assert str(path) in str(bad.value)
    assert '"models.openai.o3.reasoningEffort"' in str(bad.value)
    assert "not 'turbo'" in str(bad.value)


def test_the_chosen_level_beats_the_model_setting_which_beats_the_global_one() -> None:
    policy = EffortPolicy(per_model={"openai/a": "max"}, setting="low")
    assert policy.level_for("openai/a") == "max"
    assert policy.level_for("openai/b") == "low"
    policy.chosen = "off"
    assert policy.level_for("openai/a") == "off"
    assert EffortPolicy().level_for("openai/a") is None


def test_the_default_applies_to_reasoning_models_only() -> None:
    reasoning = ModelInfo(id="m", provider="openai", reasoning=True)
    plain = ModelInfo(id="m", provider="openai")
    thinking = choose(None, target(reasoning))
    assert (thinking.level, thinking.request, thinking.defaulted) == ("medium", "medium", True)
    assert choose(None, target(plain)).request is None
    assert choose(None, target(None)).request is None  # no catalog facts: nothing by default
    assert choose("high", target(None)).request == "high"  # named: passed through


def test_a_mapped_level_shows_both_and_says_why() -> None:
    info = ModelInfo(
        id="m",
        provider="openai",
        reasoning=True,
        reasoning_options=[EffortOption(values=["low", "high"])],
    )
    choice = choose("max", target(info))
    assert choice.label == "max→high"
    assert choice.summary == (
        "max (reasoning.effort high); "
        "openai/m has no max effort; the nearest it offers, high, is sent"
    )
    ignored = choose("high", target(ModelInfo(id="m", provider="openai")))
    assert ignored.label == ""
    assert ignored.note == "openai/m does not reason; effort high is ignored"
