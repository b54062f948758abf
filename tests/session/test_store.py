"""Where sessions live, their ids, listing, and choosing one for -c/-r/--fork-session."""

from __future__ import annotations

import uuid
from pathlib import Path

import anyio
import pytest

from earshot.core.session import (
    SessionError,
    SessionNotFoundError,
    SessionStore,
    cwd_key,
    data_dir,
    new_session_id,
    open_session,
)
from tests.session.messages import assistant, texts, user


def test_data_dir_follows_xdg_and_defaults_to_local_share(tmp_path: Path) -> None:
    assert data_dir({"XDG_DATA_HOME": str(tmp_path)}) == tmp_path / "earshot"
    assert data_dir({}) == Path.home() / ".local" / "share" / "earshot"


def test_store_defaults_to_the_xdg_data_dir(project: Path, hermetic_env: Path) -> None:
    store = SessionStore(project)
    assert store.dir == hermetic_env / ".local/share/earshot/sessions" / cwd_key(project)


def test_cwd_key_names_the_resolved_directory(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    assert cwd_key(tmp_path / "a") == cwd_key(tmp_path / "a" / ".." / "a")
    assert cwd_key(tmp_path / "a") != cwd_key(tmp_path)
    assert len(cwd_key(tmp_path)) == 16


def test_session_ids_are_uuid7_and_sort_by_creation_even_within_a_millisecond() -> None:
    ids = [new_session_id() for _ in range(2000)]
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)
    parsed = uuid.UUID(ids[0])
    assert parsed.version == 7
    assert parsed.variant == uuid.RFC_4122


def test_continue_picks_the_newest_session_deterministically(store: SessionStore) -> None:
    made = []
    for _ in range(5):
        session = store.create(model="m/1")
        session.close()
        made.append(session.id)
    assert store.ids() == made
    assert store.latest_id() == made[-1]
    latest = store.latest()
    assert latest is not None
    with latest:
        assert latest.id == made[-1]


def test_continue_with_no_sessions_starts_a_new_one(project: Path, data: Path) -> None:
    assert SessionStore(project, data).latest() is None
    with open_session(project, model="m/1", continue_=True, data_dir=data) as session:
        assert session.origin == "new"
        assert session.model() == "m/1"


def test_prefix_resolution_unknown_and_ambiguous(store: SessionStore) -> None:
    a = store.create(model="m/1")
    b = store.create(model="m/1")
    a.close()
    b.close()
    assert store.resolve(a.id[:-4]) == store.path_for(a.id)
    common = next(i for i in range(36) if a.id[i] != b.id[i])
    with pytest.raises(SessionNotFoundError, match="ambiguous"):
        store.resolve(a.id[:common])
    with pytest.raises(SessionNotFoundError, match="no session 'ffff'"):
        store.resolve("ffff")


def test_resolve_everywhere_finds_another_directorys_session(tmp_path: Path, data: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    session = SessionStore(other, data).create(model="m/1")
    session.close()
    here = SessionStore(tmp_path, data)
    with pytest.raises(SessionNotFoundError):
        here.resolve(session.id)
    assert here.resolve(session.id[:20], everywhere=True) == session.path


def test_list_shows_title_turns_cost_newest_first(store: SessionStore) -> None:
    async def fill() -> tuple[str, str]:
        with store.create(model="anthropic/a") as first:
            await first.append_message(user("  \nfirst prompt line\nmore"))
            await first.append_message(assistant("ok"), cost_usd=0.5, model="anthropic/a")
            await first.append_message(user("second prompt"))
            await first.append_message(assistant("ok"), cost_usd=0.25)
        with store.create(model="openai/b") as second:
            pass
        return first.id, second.id

    first_id, second_id = anyio.run(fill)
    infos = store.list()
    assert [i.id for i in infos] == [second_id, first_id]
    info = infos[1]
    assert (info.title, info.turns, info.cost_usd, info.model) == (
        "first prompt line",
        2,
        0.75,
        "anthropic/a",
    )
    assert info.entries == 4
    assert info.cwd == str(store.cwd)
    assert info.updated >= info.created
    assert infos[0].title == ""
    assert info.to_json()["id"] == first_id


def test_list_all_spans_directories(tmp_path: Path, data: Path) -> None:
    ids = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        session = SessionStore(tmp_path / name, data).create(model="m/1")
        session.close()
        ids.append(session.id)
    store = SessionStore(tmp_path / "a", data)
    assert [i.id for i in store.list()] == ids[:1]
    assert [i.id for i in store.list_all()] == ids[::-1]


def test_open_session_flags(project: Path, data: Path) -> None:
    async def begin() -> str:
        with open_session(project, model="m/1", data_dir=data) as session:
            await session.append_message(user("hello"))
            await session.append_message(assistant("hi"))
            return session.id

    first = anyio.run(begin)
    with open_session(project, model="other/x", resume=first[:12], data_dir=data) as resumed:
        assert resumed.origin == "resumed" and resumed.id == first
        assert resumed.model() == "m/1"
        # --continue --fork-session works while the session is held by another writer.
        forked = open_session(project, model="other/x", continue_=True, fork=True, data_dir=data)
        with forked:
            assert forked.origin == "forked"
            assert forked.header.parent_session == first
            assert texts(forked.history()) == ["user:hello", "assistant:hi"]
    # The fork is now the newest session, so --continue picks it.
    with open_session(project, model="m/1", continue_=True, data_dir=data) as latest:
        assert latest.id == forked.id
    with pytest.raises(SessionError, match="not both"):
        open_session(project, model="m/1", resume=first, continue_=True, data_dir=data)
    with pytest.raises(SessionError, match="needs --resume"):
        open_session(project, model="m/1", fork=True, data_dir=data)


def test_files_that_are_not_sessions_are_ignored(store: SessionStore) -> None:
    session = store.create(model="m/1")
    session.close()
    (store.dir / "notes.jsonl").write_text("{}\n")
    (store.dir / "README").write_text("hi")
    assert store.ids() == [session.id]
    assert [i.id for i in store.list()] == [session.id]
