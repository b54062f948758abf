"""The live region's layout and keys.

::

    live text        the unfinished paragraph (markdown), its last lines only
    subagents        one block per running ``task`` call (``_children``)
    queued           messages typed while the agent works, until the agent takes them
    tail             a running command's last lines (a call's latest progress report)
    activity         spinner, what the agent is doing, time (the running tool's own while
                     one runs), "esc to interrupt"
    approval         a permission prompt: the tool, the real command or diff, the choices
    question         ask_user: the question and its choices
    side input       a denial's reason, or a free-text answer
    input            the message box (Enter sends; Alt-Enter, Ctrl-J or a trailing
                     backslash adds a line)
    status           model · mode · context % · cost · session, or a passing hint

Keys: Esc interrupts a turn (and clears the box when idle); Ctrl-C interrupts, clears a
draft, and twice on an empty box exits (``_keys``); Ctrl-D on an empty box exits;
Shift-Tab cycles the permission mode, never into yolo; Ctrl-O expands the last result.
A permission prompt takes y (allow once), a (allow this exact action for the session),
n (deny, with an optional reason); Enter alone denies: the default is never "allow". It
takes no key until it has been on screen ~300 ms with nothing typed (``_grace``): keys
typed before stay in the draft.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Literal

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition, has_focus
from prompt_toolkit.formatted_text import ANSI, StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.layout import (
    ConditionalContainer,
    FloatContainer,
    HSplit,
    Layout,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.output import ColorDepth
from prompt_toolkit.styles import Style

if TYPE_CHECKING:
    from earshot.tui.app import Tui

Decision = Literal["allow_once", "allow_session", "deny"]

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
MENU_ROWS = 8
FRAME_INTERVAL = 1 / 30  # the repaint cap, on every platform (ConPTY needs it on Windows)
STYLE = Style.from_dict(
    {
        "prompt": "bold ansicyan",
        "status": "ansibrightblack",
        "status.auto": "ansiyellow",
        "status.yolo": "bold ansired",
        "hint": "ansiyellow",
        "activity": "ansimagenta",
        "queued": "ansibrightblack italic",
        "tail": "ansibrightblack",
        "approval.title": "bold ansiyellow",
        "approval.keys": "bold",
        "question": "bold ansicyan",
        "child.head": "ansimagenta",
        "child": "ansibrightblack",
    }
)


def _rows(tui: Tui) -> int:
    return tui.output.get_size().rows


def _live(tui: Tui) -> ANSI:
    from earshot.tui.render import live_lines

    height = max(3, _rows(tui) - 8)
    text = tui.feed.live if tui.feed is not None else ""
    return ANSI(live_lines(tui._painter(), text, height))


def _children(tui: Tui) -> StyleAndTextTuples:
    from earshot.tui._children import live_rows

    if tui.feed is None:
        return []
    width = tui.output.get_size().columns
    out: StyleAndTextTuples = []
    height = max(4, _rows(tui) // 2)
    for style, row in live_rows(tui.feed.children, width, time.monotonic(), height):
        out += [("", "\n")] if out else []
        out.append((style, row))
    return out


def _queued(tui: Tui) -> StyleAndTextTuples:
    out: StyleAndTextTuples = []
    for text in tui.queued:
        first = text.strip().splitlines()[0] if text.strip() else ""
        if out:
            out.append(("", "\n"))
        width = tui.output.get_size().columns
        out.append(("class:queued", f"  ⧗ queued: {first[: max(10, width - 14)]}"))
    return out


def _tail(tui: Tui) -> StyleAndTextTuples:
    from earshot.tui.render import tail_text

    tails = list(tui.feed.tails.values()) if tui.feed is not None else []
    return [("class:tail", tail_text(tails, tui.output.get_size().columns))]


def _activity(tui: Tui) -> StyleAndTextTuples:
    now = time.monotonic()
    elapsed = now - tui.started
    frame = SPINNER[int(elapsed * 10) % len(SPINNER)]
    since = tui.feed.running_since if tui.feed is not None else None
    if since is not None and tui.approval is None:
        elapsed = now - since
    what = (tui.feed.activity if tui.feed is not None else "") or "working"
    if tui.approval is not None:
        what = "waiting for permission"
    elif tui.question is not None:
        what = "waiting for your answer"
    width = tui.output.get_size().columns
    text = f"{frame} {what[: max(10, width - 30)]} ({elapsed:.0f}s · esc to interrupt)"
    return [("class:activity", text)]


def _approval(tui: Tui) -> StyleAndTextTuples | ANSI:
    from earshot.tui.render import collapse, diff_text

    pending = tui.approval
    if pending is None:
        return []
    req = pending.request
    detail = req.request.detail or req.title
    height = max(3, _rows(tui) - 12)
    painter = tui._painter()
    if detail.startswith(("---", "diff ", "@@")):
        body = painter.render(diff_text(detail, height)).rstrip("\n")
    else:
        rows, hidden = collapse(detail, height)
        body = "\n".join("    " + row for row in rows)
        if hidden:
            body += f"\n    … {hidden} more lines"
    lines = [f"\x1b[1;33m? allow {req.call.name}?\x1b[0m  {req.reason}", body]
    if len(req.parts) > 1:
        lines.append("  this covers: " + "; ".join(req.parts)[: painter.width * 2])
    if pending.denying:
        lines.append("  deny: type a reason for the model (optional), Enter to send, Esc back")
    elif not pending.armed:
        lines.append("  … keys go to your message until you stop typing; then y / a / n")
    else:
        lines.append(
            "  \x1b[1m[y]\x1b[0m allow once · \x1b[1m[a]\x1b[0m allow for this session · "
            "\x1b[1m[n]\x1b[0m deny + reason · Enter denies"
        )
    return ANSI("\n".join(lines))


def _question(tui: Tui) -> StyleAndTextTuples:
    pending = tui.question
    if pending is None:
        return []
    q = pending.question
    out: StyleAndTextTuples = [("class:question", f"? {q.text}\n")]
    for index, choice in enumerate(q.choices, 1):
        out.append(("", f"  {index}. {choice}\n"))
    how = "type a number" if q.choices else ""
    if q.allow_free_text:
        how = f"{how} or an answer" if how else "type an answer"
    out.append(("class:status", f"  {how}, Enter to send, Esc to dismiss"))
    return out


def _status(tui: Tui) -> StyleAndTextTuples:
    from earshot.tui._keys import MODE_STYLE

    if tui.hint:
        return [("class:hint", tui.hint)]
    mode = tui.session.mode if tui.is_ready else ""
    return [(MODE_STYLE.get(mode, "class:status"), tui.status())]


def _side_prefix(tui: Tui) -> StyleAndTextTuples:
    return [("class:prompt", "reason › " if tui.approval is not None else "answer › ")]


def build_application(tui: Tui) -> Application[int]:
    running = Condition(lambda: tui.agent_running)
    approving = Condition(lambda: tui.approval is not None)
    asking = Condition(lambda: tui.question is not None)
    side_visible = Condition(
        lambda: tui.question is not None or (tui.approval is not None and tui.approval.denying)
    )
    live = Condition(lambda: tui.feed is not None and bool(tui.feed.live.strip()))

    approval_keys = _approval_keys(tui)
    approval_window = Window(
        FormattedTextControl(lambda: _approval(tui), focusable=True, key_bindings=approval_keys),
        dont_extend_height=True,
        wrap_lines=True,
    )
    side_window = Window(
        BufferControl(tui.side, key_bindings=_side_keys(tui)),
        height=1,
        get_line_prefix=lambda line, wrap: _side_prefix(tui),
    )
    input_window = Window(
        BufferControl(tui.buffer),
        height=Dimension(min=1, max=8),
        dont_extend_height=True,
        wrap_lines=True,
        get_line_prefix=lambda line, wrap: [
            ("class:prompt", "› " if line == 0 and not wrap else "  ")
        ],
    )
    tui.windows = {"approval": approval_window, "side": side_window, "input": input_window}
    body = HSplit(
        [
            ConditionalContainer(
                Window(FormattedTextControl(lambda: _live(tui)), dont_extend_height=True),
                filter=live,
            ),
            ConditionalContainer(
                Window(FormattedTextControl(lambda: _children(tui)), dont_extend_height=True),
                filter=Condition(lambda: tui.feed is not None and bool(tui.feed.children)),
            ),
            ConditionalContainer(
                Window(FormattedTextControl(lambda: _queued(tui)), dont_extend_height=True),
                filter=Condition(lambda: bool(tui.queued)),
            ),
            ConditionalContainer(
                Window(FormattedTextControl(lambda: _tail(tui)), dont_extend_height=True),
                filter=running & Condition(lambda: tui.feed is not None and bool(tui.feed.tails)),
            ),
            ConditionalContainer(
                Window(FormattedTextControl(lambda: _activity(tui)), height=1),
                filter=running,
            ),
            ConditionalContainer(approval_window, filter=approving),
            ConditionalContainer(
                Window(FormattedTextControl(lambda: _question(tui)), dont_extend_height=True),
                filter=asking,
            ),
            ConditionalContainer(side_window, filter=side_visible),
            input_window,
            # The completion menu is a row of the layout (up to MENU_ROWS), between the box
            # and the status line: the live region grows to hold it rather than drawing
            # one row of it over the status line.
            ConditionalContainer(
                CompletionsMenu(max_height=MENU_ROWS, scroll_offset=1),
                filter=Condition(lambda: tui.buffer.complete_state is not None),
            ),
            Window(FormattedTextControl(lambda: _status(tui)), height=1),
        ]
    )
    root = FloatContainer(content=body, floats=[])
    from earshot.tui.app import no_color

    app: Application[int] = Application(
        layout=Layout(root, focused_element=input_window),
        key_bindings=_global_keys(tui),
        style=STYLE,
        # No lexer highlights the input box (code is highlighted by rich, as ANSI): the
        # default Pygments rules would only make the first paint merge ~80 more styles.
        include_default_pygments_style=False,
        full_screen=False,
        mouse_support=False,
        min_redraw_interval=FRAME_INTERVAL,
        max_render_postpone_time=FRAME_INTERVAL,
        color_depth=ColorDepth.DEPTH_1_BIT if no_color() else None,
        input=tui.input,
        output=tui.output,
        erase_when_done=False,
    )
    app.ttimeoutlen = 0.05
    app.timeoutlen = 0.3
    return app


def _resolve(tui: Tui, decision: Decision, reason: str = "") -> None:
    from earshot.core.loop.approvals import Approval

    pending = tui.approval
    if pending is not None and not pending.future.done():
        pending.future.set_result(Approval(decision=decision, reason=reason))


def _approval_keys(tui: Tui) -> KeyBindings:
    kb = KeyBindings()

    @kb.add("y")
    def _allow_once(event: KeyPressEvent) -> None:
        _resolve(tui, "allow_once")

    @kb.add("a")
    def _allow_session(event: KeyPressEvent) -> None:
        _resolve(tui, "allow_session")

    @kb.add("n")
    def _deny_with_reason(event: KeyPressEvent) -> None:
        if tui.approval is not None:
            tui.approval.denying = True
            tui.side.reset()
            tui.focus("side")

    @kb.add("enter")
    def _deny(event: KeyPressEvent) -> None:
        _resolve(tui, "deny")

    @kb.add(Keys.Any)
    def _ignore(event: KeyPressEvent) -> None:
        """Other keys do nothing here: nothing typed by accident allows a call."""

    return kb


def _side_keys(tui: Tui) -> KeyBindings:
    kb = KeyBindings()

    @kb.add("enter")
    def _send(event: KeyPressEvent) -> None:
        text = tui.side.text.strip()
        if tui.approval is not None:
            _resolve(tui, "deny", text)
            return
        pending = tui.question
        if pending is None or pending.future.done():
            return
        q = pending.question
        if text.isdigit() and 1 <= int(text) <= len(q.choices):
            pending.future.set_result(q.choices[int(text) - 1])
        elif (text and q.allow_free_text) or text in q.choices:
            pending.future.set_result(text)

    @kb.add("escape", eager=True)
    def _back(event: KeyPressEvent) -> None:
        if tui.approval is not None:
            tui.approval.denying = False
            tui.focus("approval")
            return
        pending = tui.question
        if pending is not None and not pending.future.done():
            pending.future.set_result(None)

    return kb


def _global_keys(tui: Tui) -> KeyBindings:
    kb = KeyBindings()
    in_input = has_focus(tui.buffer)
    empty = Condition(lambda: not tui.buffer.text)

    @kb.add("enter", filter=in_input)
    def _submit(event: KeyPressEvent) -> None:
        buffer = tui.buffer
        if buffer.complete_state is not None and buffer.complete_state.current_completion:
            before = buffer.text
            buffer.apply_completion(buffer.complete_state.current_completion)
            if buffer.text != before:
                return  # the choice is in the box; Enter again sends it
        buffer.cancel_completion()
        if buffer.document.text_before_cursor.endswith("\\") and buffer.cursor_position == len(
            buffer.text
        ):
            buffer.delete_before_cursor(1)
            buffer.insert_text("\n")
            return
        tui.submit()

    @kb.add("escape", "enter", filter=in_input)
    @kb.add("c-j", filter=in_input)
    def _newline(event: KeyPressEvent) -> None:
        tui.buffer.insert_text("\n")

    @kb.add("escape", filter=~approving_or_side(tui))
    def _escape(event: KeyPressEvent) -> None:
        if tui.buffer.complete_state is not None:
            tui.buffer.cancel_completion()
        elif tui.agent_running:
            tui.interrupt()
        else:
            tui.buffer.reset()

    @kb.add("escape", filter=has_focus_approval(tui))
    def _escape_approval(event: KeyPressEvent) -> None:
        tui.interrupt()

    @kb.add("c-c")
    def _ctrl_c(event: KeyPressEvent) -> None:
        tui.ctrl_c()

    @kb.add("c-d", filter=in_input & empty)
    def _ctrl_d(event: KeyPressEvent) -> None:
        tui.exit()

    @kb.add("c-o")
    def _expand(event: KeyPressEvent) -> None:
        from earshot.tui._keys import expand_last

        expand_last(tui)

    @kb.add("s-tab")
    def _mode(event: KeyPressEvent) -> None:
        tui.cycle_mode()

    @kb.add(Keys.BracketedPaste, filter=in_input)
    def _paste(event: KeyPressEvent) -> None:
        tui.paste(event.data)

    return kb


def approving_or_side(tui: Tui) -> Condition:
    return Condition(lambda: tui.approval is not None or tui.question is not None)


def has_focus_approval(tui: Tui) -> Condition:
    return Condition(lambda: tui.approval is not None and not tui.approval.denying)


__all__ = ["STYLE", "build_application"]
