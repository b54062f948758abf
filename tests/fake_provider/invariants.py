"""Protocol invariants over a recorded request body: every tool call answered exactly once.

What "answered" means on each wire::

    anthropic         an assistant message's tool_use blocks are answered by tool_result
                      blocks (tool_use_id) in the NEXT message, a user message, where the
                      tool_result blocks come before any other block
    openai_chat       an assistant message's tool_calls are answered by the role "tool"
                      messages (tool_call_id) that directly follow it
    openai_responses  a function_call item is answered by a LATER function_call_output item
                      with the same call_id
    gemini            a model turn's functionCall parts are answered by functionResponse parts
                      in the NEXT content, a user turn (matched by id when the call has one,
                      else by name)

A result anywhere else, or a second result for one call, is an orphan. One
``AssertionError`` lists every problem found, each naming the call or result and where it is.
"""

from __future__ import annotations

from collections import Counter
from typing import Literal

from earshot.providers.types import JSONValue
from tests.fake_provider._request import RecordedRequest

Wire = Literal["anthropic", "openai_chat", "openai_responses", "gemini"]
WIRES: tuple[Wire, ...] = ("anthropic", "openai_chat", "openai_responses", "gemini")
_ALIASES: dict[str, Wire] = {
    "anthropic": "anthropic",
    "openai_chat": "openai_chat",
    "chat": "openai_chat",
    "openai_responses": "openai_responses",
    "responses": "openai_responses",
    "gemini": "gemini",
    "google": "gemini",
}


def normalize_wire(wire: str) -> Wire:
    """``wire`` as a ``Wire``; also accepts the reference folder names and short forms."""
    try:
        return _ALIASES[wire.replace("-", "_").lower()]
    except KeyError:
        raise ValueError(f"unknown wire {wire!r}; expected one of {WIRES!r}") from None


def detect_wire(request: RecordedRequest) -> Wire | None:
    """The wire a request was sent on, judged by its path; None if the path names none."""
    path = request.path
    if path.endswith("/chat/completions"):
        return "openai_chat"
    if path.endswith("/messages"):
        return "anthropic"
    if path.endswith("/responses"):
        return "openai_responses"
    if path.endswith((":streamGenerateContent", ":generateContent")):
        return "gemini"
    return None


def assert_tool_results_paired(request: RecordedRequest, wire: str) -> int:
    """Fail unless every tool call in the request's history has exactly one result, placed
    where ``wire`` requires, and no result lacks its call. Returns the number of calls."""
    name = normalize_wire(wire)
    body = request.json()
    problems: list[str] = []
    match name:
        case "anthropic":
            calls = _check_anthropic(body, problems)
        case "openai_chat":
            calls = _check_chat(body, problems)
        case "openai_responses":
            calls = _check_responses(body, problems)
        case "gemini":
            calls = _check_gemini(body, problems)
    if problems:
        raise AssertionError(f"{name} request {request.path}: " + "; ".join(problems))
    return calls


def _check_anthropic(body: dict[str, JSONValue], problems: list[str]) -> int:
    messages = _list(body.get("messages"))
    expected: list[tuple[str, str]] = []
    calls_at = ""
    total = 0
    for index, raw in enumerate(messages):
        message = _obj(raw)
        where = f"messages[{index}]"
        blocks = [_obj(block) for block in _list(message.get("content"))]
        if message.get("role") == "user":
            results = [_str(b.get("tool_use_id")) for b in blocks if b.get("type") == "tool_result"]
            leading = 0
            while leading < len(blocks) and blocks[leading].get("type") == "tool_result":
                leading += 1
            if leading < len(results):
                problems.append(f"{where}: tool_result blocks must come before any other block")
            _pair(expected, results, calls_at, where, problems)
        else:
            _pair(expected, [], calls_at, where, problems)
        expected = [
            (_str(b.get("id")), _str(b.get("name"))) for b in blocks if b.get("type") == "tool_use"
        ]
        calls_at = where
        total += len(expected)
    _pair(expected, [], calls_at, "the end of messages", problems)
    return total


def _check_chat(body: dict[str, JSONValue], problems: list[str]) -> int:
    expected: list[tuple[str, str]] = []
    results: list[str] = []
    calls_at = ""
    total = 0
    for index, raw in enumerate(_list(body.get("messages"))):
        message = _obj(raw)
        if message.get("role") == "tool":
            results.append(_str(message.get("tool_call_id")))
            continue
        where = f"messages[{index}]"
        _pair(expected, results, calls_at, f"the tool messages before {where}", problems)
        results = []
        expected = []
        for raw_call in _list(message.get("tool_calls")):
            call = _obj(raw_call)
            expected.append((_str(call.get("id")), _str(_obj(call.get("function")).get("name"))))
        calls_at = where
        total += len(expected)
    _pair(expected, results, calls_at, "the tool messages at the end", problems)
    return total


def _check_responses(body: dict[str, JSONValue], problems: list[str]) -> int:
    calls: dict[str, tuple[int, str]] = {}
    answered: Counter[str] = Counter()
    for index, raw in enumerate(_list(body.get("input"))):
        item = _obj(raw)
        call_id = _str(item.get("call_id"))
        if item.get("type") == "function_call":
            if call_id in calls:
                problems.append(f"input[{index}]: call_id {call_id!r} is used by two calls")
            calls[call_id] = (index, _str(item.get("name")))
        elif item.get("type") == "function_call_output":
            if call_id not in calls:
                problems.append(
                    f"orphan function_call_output {call_id!r} at input[{index}]: "
                    "no earlier function_call has that call_id"
                )
            elif answered[call_id]:
                problems.append(f"function_call {call_id!r} answered again at input[{index}]")
            answered[call_id] += 1
    for call_id, (index, name) in calls.items():
        if not answered[call_id]:
            problems.append(
                f"function_call {call_id!r} ({name}) at input[{index}] "
                "has no later function_call_output"
            )
    return len(calls)


def _check_gemini(body: dict[str, JSONValue], problems: list[str]) -> int:
    expected: list[tuple[str, str]] = []
    by_id = False
    calls_at = ""
    total = 0
    for index, raw in enumerate(_list(body.get("contents"))):
        content = _obj(raw)
        where = f"contents[{index}]"
        parts = [_obj(part) for part in _list(content.get("parts"))]
        if content.get("role") == "user":
            results = [
                _str(_obj(part["functionResponse"]).get("id" if by_id else "name"))
                for part in parts
                if "functionResponse" in part
            ]
            _pair(expected, results, calls_at, where, problems)
        else:
            _pair(expected, [], calls_at, where, problems)
        calls = [_obj(part["functionCall"]) for part in parts if "functionCall" in part]
        by_id = any(_str(call.get("id")) for call in calls)
        key = "id" if by_id else "name"
        expected = [(_str(call.get(key)), _str(call.get("name"))) for call in calls]
        calls_at = where
        total += len(expected)
    _pair(expected, [], calls_at, "the end of contents", problems)
    return total


def _pair(
    calls: list[tuple[str, str]],
    results: list[str],
    calls_at: str,
    results_at: str,
    problems: list[str],
) -> None:
    """Match result keys against calls ((key, name) pairs) as multisets; report mismatches."""
    wanted = Counter(key for key, _ in calls)
    got = Counter(results)
    missing = wanted - got
    for key, name in calls:
        if missing[key] > 0:
            missing[key] -= 1
            problems.append(
                f"tool call {key!r} ({name}) in {calls_at} has no result in {results_at}"
            )
    for key, count in (got - wanted).items():
        if key in wanted:
            problems.append(
                f"tool call {key!r} in {calls_at} is answered {count + wanted[key]} times "
                f"in {results_at}"
            )
        else:
            before = f"in {calls_at}" if calls_at else "before it"
            problems.append(f"orphan tool result {key!r} in {results_at}: no tool call {before}")


def _obj(value: JSONValue) -> dict[str, JSONValue]:
    return value if isinstance(value, dict) else {}


def _list(value: JSONValue) -> list[JSONValue]:
    return value if isinstance(value, list) else []


def _str(value: JSONValue) -> str:
    return value if isinstance(value, str) else ""
