"""``earshot sessions list|show|export|import``.

Exit statuses: 0 done; 2 a session id that matches none or several, an unknown export
format, or a file that cannot be imported (the message says what to do). JSON field names
of ``list --json`` are what scripts rely on: add fields, never rename them.
"""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path

import msgspec

from earshot.core.session import (
    MessageEntry,
    SessionError,
    SessionInfo,
    SessionStore,
    Transcript,
    Tree,
    short_ids,
)
from earshot.core.session.codec import encode_line
from earshot.core.session.importers import import_session as do_import
from earshot.providers.types import (
    ImagePart,
    JSONValue,
    Message,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)

USAGE_ERROR = 2
EXPORT_FORMATS = ("markdown", "jsonl")


def _fail(message: str) -> int:
    sys.stderr.write(f"earshot: {message}\n")
    return USAGE_ERROR


def _local(stamp: str) -> str:
    """An ISO UTC timestamp as local ``YYYY-MM-DD HH:MM`` (as given when unparseable)."""
    try:
        moment = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


def _table(headers: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]
    lines = [headers, *rows]
    return (
        "\n".join(
            "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in lines
        )
        + "\n"
    )


def list_sessions(
    *, all: bool, as_json: bool, cwd: Path | None = None, data_dir: Path | None = None
) -> int:
    """Sessions of the working directory (every directory with ``all``), newest first."""
    store = SessionStore(cwd or Path.cwd(), data_dir)
    infos: list[SessionInfo] = store.list_all() if all else store.list()
    if as_json:
        records: list[JSONValue] = [info.to_json() for info in infos]
        sys.stdout.write(
            msgspec.json.format(msgspec.json.encode(records), indent=2).decode() + "\n"
        )
        return 0
    if not infos:
        where = "any directory" if all else str(store.cwd)
        sys.stdout.write(f"no sessions in {where}\n")
        return 0
    short = short_ids([info.id for info in infos])
    headers = ["ID", "UPDATED", "TURNS", "COST", "TITLE"] + (["DIRECTORY"] if all else [])
    rows = [
        [
            short[info.id],
            _local(info.updated),
            str(info.turns),
            f"${info.cost_usd:.4f}",
            info.title or "(no prompt)",
        ]
        + ([info.cwd] if all else [])
        for info in infos
    ]
    sys.stdout.write(_table(headers, rows))
    return 0


def _load(store: SessionStore, id_or_prefix: str) -> Transcript:
    return store.load(id_or_prefix, everywhere=True)


def _clip(text: str, lines: int) -> str:
    parts = text.rstrip("\n").split("\n")
    if len(parts) <= lines:
        return "\n".join(parts)
    return "\n".join([*parts[:lines], f"… {len(parts) - lines} more lines"])


def _one_line(value: JSONValue, width: int = 120) -> str:
    text = msgspec.json.encode(value).decode()
    return text if len(text) <= width else text[: width - 1] + "…"


def _render_brief(message: Message) -> list[str]:
    out = [f"[{message.role}]"]
    for part in message.parts:
        if isinstance(part, TextPart) and part.text.strip():
            out.append(_clip(part.text, 12))
        elif isinstance(part, ReasoningPart) and part.text.strip():
            out.append("(reasoning) " + _clip(part.text, 3))
        elif isinstance(part, ImagePart):
            out.append(f"(image {part.media_type})")
        elif isinstance(part, ToolCallPart):
            out.append(f"→ {part.name} {_one_line(part.input)}")
        elif isinstance(part, ToolResultPart):
            text = "".join(c.text for c in part.content if isinstance(c, TextPart))
            first = text.strip().split("\n", 1)[0][:100]
            mark = "error" if part.is_error else f"{text.count(chr(10)) + 1} lines"
            out.append(f"← {part.name} ({mark}): {first}")
    return out


def _with_children(tree: Tree, to: str | None, indent: str = "") -> list[str]:
    """The branch ending at ``to`` (None: the current one), briefly; under each ``task``
    call, the transcript of the subagent it ran, indented, at any depth."""
    children = {root.call_id: (root, last) for root, last in tree.subagents(to)}
    out: list[str] = []
    for message in tree.history(to):
        out += [indent + line if line else indent.rstrip() for line in _render_brief(message)]
        for part in message.parts:
            if isinstance(part, ToolCallPart) and part.id in children:
                root, last = children[part.id]
                entries = [e for e in tree.path(last) if isinstance(e, MessageEntry)]
                calls = sum(e.message.role == "assistant" for e in entries)
                cost = sum(e.cost_usd or 0.0 for e in entries)
                out.append(
                    f"{indent}  ┌ subagent {root.agent}: {root.description}   "
                    f"{calls} model call(s)   cost ${cost:.4f}"
                )
                out += _with_children(tree, last, indent + "  │ ")
                out.append(f"{indent}  └")
        out.append(indent.rstrip())
    return out


def show(id: str, *, cwd: Path | None = None, data_dir: Path | None = None) -> int:
    """A session's facts, its branches, then its current branch, briefly, with the
    subagents' transcripts nested under the ``task`` calls that ran them."""
    store = SessionStore(cwd or Path.cwd(), data_dir)
    try:
        transcript = _load(store, id)
    except SessionError as exc:
        return _fail(str(exc))
    header, tree = transcript.header, transcript.tree
    entries = tree.entries()
    messages = [e for e in entries if isinstance(e, MessageEntry)]
    cost = sum(e.cost_usd or 0.0 for e in messages)
    turns = sum(e.message.role == "user" and not tree.is_side(e.id) for e in messages)
    facts = [
        ("session", header.id),
        ("file", str(transcript.path)),
        ("directory", header.cwd),
        ("created", _local(header.timestamp)),
        ("model", tree.model() or header.model or "-"),
        ("turns", f"{turns}   cost ${cost:.4f}   entries {len(entries)}"),
    ]
    if header.parent_session:
        facts.append(("forked from", f"{header.parent_session} at {header.parent_entry or '-'}"))
    if header.imported_from:
        facts.append(
            ("imported from", f"{header.imported_from.format} {header.imported_from.path}")
        )
    out = [f"{name:<14}{value}" for name, value in facts]
    branches = tree.branches()
    if len(branches) > 1:
        out.append(f"{'branches':<14}{len(branches)}")
        out += [
            f"  {'*' if b.current else ' '} {b.head}  {b.messages} messages  {b.preview}"
            for b in branches
        ]
    out += [f"warning: {w}" for w in transcript.warnings()]
    out.append("")
    out += _with_children(tree, None)
    sys.stdout.write("\n".join(out).rstrip("\n") + "\n")
    return 0


def _markdown(transcript: Transcript) -> str:
    header, tree = transcript.header, transcript.tree
    history = tree.history()
    title = next(
        (
            "".join(p.text for p in m.parts if isinstance(p, TextPart)).strip().split("\n")[0]
            for m in history
            if m.role == "user"
        ),
        "",
    )
    out = [
        f"# {title or 'earshot session'}",
        "",
        f"- session: `{header.id}`",
        f"- directory: `{header.cwd}`",
        f"- created: {header.timestamp}",
        f"- model: {tree.model() or header.model or '-'}",
        "",
    ]
    out += _markdown_branch(tree, None, "##")
    return "\n".join(out).rstrip("\n") + "\n"


def _markdown_branch(tree: Tree, to: str | None, heading: str) -> list[str]:
    """The messages of the branch ending at ``to``; under each ``task`` call, the
    subagent's transcript in a ``<details>`` block, its headings one level deeper."""
    children = {root.call_id: (root, last) for root, last in tree.subagents(to)}
    fence = "````"
    out: list[str] = []
    for message in tree.history(to):
        out += [f"{heading} {message.role}", ""]
        for part in message.parts:
            if isinstance(part, TextPart):
                out += [part.text, ""]
            elif isinstance(part, ReasoningPart) and part.text:
                out += [
                    "<details><summary>reasoning</summary>",
                    "",
                    part.text,
                    "",
                    "</details>",
                    "",
                ]
            elif isinstance(part, ImagePart):
                out += [f"*(image, {part.media_type})*", ""]
            elif isinstance(part, ToolCallPart):
                arguments = msgspec.json.format(msgspec.json.encode(part.input), indent=2).decode()
                out += [f"**{part.name}** `{part.id}`", "", f"{fence}json", arguments, fence, ""]
                if part.id in children:
                    root, last = children[part.id]
                    summary = f"subagent {root.agent}: {root.description}"
                    out += [f"<details><summary>{summary}</summary>", ""]
                    out += _markdown_branch(tree, last, heading + "#")
                    out += ["</details>", ""]
            elif isinstance(part, ToolResultPart):
                state = " (error)" if part.is_error else ""
                text = "\n".join(c.text for c in part.content if isinstance(c, TextPart))
                out += [f"result of `{part.call_id}`{state}:", "", fence, text, fence, ""]
    return out


def export(id: str, *, format: str, cwd: Path | None = None, data_dir: Path | None = None) -> int:
    """Print a session: ``markdown`` (its current branch, for reading, with its subagents'
    transcripts under their ``task`` calls) or ``jsonl`` (every readable line, the whole
    tree, for tools)."""
    if format not in EXPORT_FORMATS:
        return _fail(f"unknown export format {format!r}; choose one of {', '.join(EXPORT_FORMATS)}")
    store = SessionStore(cwd or Path.cwd(), data_dir)
    try:
        transcript = _load(store, id)
    except SessionError as exc:
        return _fail(str(exc))
    if format == "markdown":
        sys.stdout.write(_markdown(transcript))
    else:
        lines = [encode_line(transcript.header)] + [
            encode_line(e) for e in transcript.tree.entries()
        ]
        sys.stdout.write(b"".join(lines).decode("utf-8"))
    for warning in transcript.warnings():
        sys.stderr.write(f"earshot: warning: {warning}\n")
    return 0


def import_session(path: Path, *, cwd: Path | None = None, data_dir: Path | None = None) -> int:
    """Import a Claude Code, pi or earshot session file as a new session."""
    try:
        report = do_import(path, cwd=(cwd or Path.cwd()).resolve(), data_dir=data_dir)
    except (SessionError, FileNotFoundError) as exc:
        return _fail(str(exc))
    sys.stdout.write(
        f"imported the {report.format} session as {report.session_id} "
        f"({report.messages} messages) for {report.cwd}\n"
    )
    for line in report.dropped:
        sys.stdout.write(f"dropped: {line}\n")
    for note in report.notes:
        sys.stdout.write(f"note: {note}\n")
    sys.stdout.write(f"continue it with: earshot --resume {report.session_id[:13]}\n")
    return 0


__all__ = ["EXPORT_FORMATS", "export", "import_session", "list_sessions", "show"]
