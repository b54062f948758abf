"""A scripted model that thinks as hard as it is asked: ``thinking_turn()`` is a responder
(``FakeProvider.script`` takes it like a reply) that reads the reasoning fields of the
request it answers, on any wire, and reports that many reasoning tokens.

How hard it thinks (reasoning tokens)::

    a named level (reasoning.effort, reasoning_effort, output_config.effort, thinkingLevel)
        none 0 · minimal 256 · low 1024 · medium 2048 · high 4096 · xhigh 6144 · max 8192
    a thinking budget (budget_tokens, thinkingBudget)       a quarter of the budget
    adaptive thinking with no effort                        the vendor's default, high
    no reasoning fields, or thinking disabled               0, and no reasoning block

The numbers are the fake's own; they make what each level costs visible end to end
(request -> reply -> usage -> price), not a claim about any vendor.
"""

from __future__ import annotations

from collections.abc import Mapping

from tests.fake_provider import anthropic, gemini, openai_chat, openai_responses
from tests.fake_provider._replies import Reply
from tests.fake_provider._request import RecordedRequest
from tests.fake_provider._server import Responder
from tests.fake_provider.invariants import detect_wire

LEVEL_TOKENS: dict[str, int] = {
    "none": 0,
    "minimal": 256,
    "low": 1024,
    "medium": 2048,
    "high": 4096,
    "xhigh": 6144,
    "max": 8192,
}
ANSWER_TOKENS = 7


def reasoning_tokens(body: Mapping[str, object]) -> int:
    """How many tokens the fake thinks for a request body of any wire."""
    thinking = body.get("thinking")
    if isinstance(thinking, dict):
        kind = thinking.get("type")
        if kind == "enabled":
            return int(str(thinking.get("budget_tokens", 0))) // 4
        if kind == "adaptive":
            config = body.get("output_config")
            effort = config.get("effort") if isinstance(config, dict) else None
            return LEVEL_TOKENS.get(str(effort or "high"), 0)
        return 0
    reasoning = body.get("reasoning")
    if isinstance(reasoning, dict):
        return LEVEL_TOKENS.get(str(reasoning.get("effort", "medium")), 0)
    if isinstance(body.get("reasoning_effort"), str):
        return LEVEL_TOKENS.get(str(body["reasoning_effort"]), 0)
    generation = body.get("generationConfig")
    config = generation.get("thinkingConfig") if isinstance(generation, dict) else None
    if isinstance(config, dict):
        if "thinkingLevel" in config:
            return LEVEL_TOKENS.get(str(config["thinkingLevel"]).lower(), 0)
        if "thinkingBudget" in config:
            return int(str(config["thinkingBudget"])) // 4
    return 0


def thinking_turn(text: str = "Done.") -> Responder:
    """A responder: reasoning sized by the request's effort, then ``text``."""

    def respond(request: RecordedRequest) -> Reply:
        body = request.json()
        assert isinstance(body, dict)
        tokens = reasoning_tokens(body)
        thought = f"Thinking with {tokens} tokens."
        output = tokens + ANSWER_TOKENS
        match detect_wire(request):
            case "anthropic":
                usage = anthropic.Usage(output_tokens=output, thinking_tokens=tokens)
                if not tokens:
                    return anthropic.text_turn(text, usage=usage)
                return anthropic.reasoning_turn(thought, text, usage=usage)
            case "openai_responses":
                r_usage = openai_responses.Usage(output_tokens=output, reasoning_tokens=tokens)
                return openai_responses.reasoning_turn(
                    thought if tokens else "", text, usage=r_usage
                )
            case "openai_chat":
                c_usage = openai_chat.Usage(completion_tokens=output, reasoning_tokens=tokens)
                if not tokens:
                    return openai_chat.text_turn(text, usage=c_usage)
                return openai_chat.reasoning_turn(thought, text, usage=c_usage)
            case "gemini":
                g_usage = gemini.Usage(thoughts_token_count=tokens)
                if not tokens:
                    return gemini.text_turn(text, usage=g_usage)
                return gemini.reasoning_turn(thought, text, usage=g_usage)
            case None:
                raise AssertionError(f"no wire answers {request.path}")

    return respond


__all__ = ["ANSWER_TOKENS", "LEVEL_TOKENS", "reasoning_tokens", "thinking_turn"]
