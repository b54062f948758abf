"""The shared request cases every wire adapter's outgoing body is pinned against.

Each adapter test builds ``case.request`` for its own target and compares
``wire.build_call(...).body`` with a snapshot file, so any change in what earshot sends to a
vendor shows as a diff. Provider metadata in the history is namespaced for every test
provider at once; each adapter must replay its own namespace and ignore the others.
"""

from __future__ import annotations

from dataclasses import dataclass

from earshot.providers.models import BudgetOption, EffortOption, ModelInfo
from earshot.providers.types import (
    ImagePart,
    JSONValue,
    Message,
    ModelRequest,
    ReasoningPart,
    TextPart,
    ToolCallPart,
    ToolResultPart,
    ToolSpec,
)

PNG_1PX = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9aw"
    "AAAABJRU5ErkJggg=="
)

READ_TOOL = ToolSpec(
    name="read_file",
    description="Read a file from the working tree.",
    input_schema={
        "type": "object",
        "properties": {"path": {"type": "string", "description": "Path to read"}},
        "required": ["path"],
        "additionalProperties": False,
    },
)
LIST_TOOL = ToolSpec(
    name="list_dir",
    description="List the working directory.",
    input_schema={"type": "object", "properties": {}},
)

# Reasoning and signatures as each test provider recorded them on an earlier turn.
REPLAY_METADATA_REASONING: dict[str, JSONValue] = {
    "anthropic": {"signature": "sig-anthropic-1"},
    "openai": {
        "item_id": "rs_1",
        "encrypted_content": "enc-openai-1",
        "summary": ["Thinking about the file."],
    },
    "deepseek": {"field": "reasoning_content"},
    "amazon-bedrock": {"signature": "sig-bedrock-1"},
}
REPLAY_METADATA_CALL: dict[str, JSONValue] = {
    "google": {"thoughtSignature": "sig-google-1"},
    "openai": {"item_id": "fc_1"},
}


@dataclass(frozen=True)
class Case:
    name: str
    request: ModelRequest


def _plain() -> ModelRequest:
    return ModelRequest(
        model="test-model",
        system="You are terse.",
        messages=[Message(role="user", parts=[TextPart(text="Say hi")])],
        max_output_tokens=256,
    )


def _tools() -> ModelRequest:
    return ModelRequest(
        model="test-model",
        system="You are a coding agent.",
        messages=[
            Message(
                role="user",
                parts=[
                    TextPart(text="What is in this picture and in a.txt?"),
                    ImagePart(media_type="image/png", data=PNG_1PX),
                    ImagePart(media_type="image/jpeg", url="https://example.com/cat.jpg"),
                ],
            )
        ],
        tools=[READ_TOOL, LIST_TOOL],
        tool_choice="auto",
        max_output_tokens=1024,
    )


def _tool_results_with_images() -> ModelRequest:
    return ModelRequest(
        model="test-model",
        system="You are a coding agent.",
        messages=[
            Message(role="user", parts=[TextPart(text="Show me a.png and list the dir.")]),
            Message(
                role="assistant",
                parts=[
                    TextPart(text="Reading both."),
                    TextPart(text=""),
                    ToolCallPart(id="call_1", name="read_file", input={"path": "a.png"}),
                    ToolCallPart(id="call_2", name="list_dir", input={}),
                ],
            ),
            Message(
                role="tool",
                parts=[
                    ToolResultPart(
                        call_id="call_1",
                        name="read_file",
                        content=[
                            TextPart(text="a.png (1x1)"),
                            ImagePart(media_type="image/png", data=PNG_1PX),
                        ],
                    ),
                    ToolResultPart(
                        call_id="call_2",
                        name="list_dir",
                        content=[TextPart(text="permission denied")],
                        is_error=True,
                    ),
                ],
            ),
            Message(role="user", parts=[TextPart(text="Thanks; now summarise.")]),
        ],
        tools=[READ_TOOL, LIST_TOOL],
        max_output_tokens=1024,
    )


def _reasoning_replay() -> ModelRequest:
    return ModelRequest(
        model="test-model",
        system="You are a coding agent.",
        messages=[
            Message(role="user", parts=[TextPart(text="Read a.txt")]),
            Message(
                role="assistant",
                parts=[
                    ReasoningPart(
                        text="Thinking about the file.",
                        provider_metadata=REPLAY_METADATA_REASONING,
                    ),
                    ReasoningPart(
                        text="", provider_metadata={"anthropic": {"redacted_data": "opaque-blob"}}
                    ),
                    ToolCallPart(
                        id="call_9",
                        name="read_file",
                        input={"path": "a.txt"},
                        provider_metadata=REPLAY_METADATA_CALL,
                    ),
                ],
            ),
            Message(
                role="tool",
                parts=[
                    ToolResultPart(
                        call_id="call_9", name="read_file", content=[TextPart(text="hello")]
                    )
                ],
            ),
        ],
        tools=[READ_TOOL],
        reasoning_effort="high",
        max_output_tokens=8192,
    )


CASES: list[Case] = [
    Case("plain", _plain()),
    Case("tools", _tools()),
    Case("tool_results_with_images", _tool_results_with_images()),
    Case("reasoning_replay", _reasoning_replay()),
]


def model_info(provider: str, *, effort: bool = True, budget: bool = False) -> ModelInfo:
    """A reasoning, vision, tool-calling model for ``provider`` with the given reasoning
    options (effort levels and/or a thinking budget)."""
    options: list[EffortOption | BudgetOption] = []
    if effort:
        options.append(EffortOption(values=["low", "medium", "high"]))
    if budget:
        options.append(BudgetOption(min=1024, max=32000))
    return ModelInfo(
        id="test-model",
        provider=provider,
        name="Test Model",
        context=200_000,
        max_output=32_000,
        vision=True,
        reasoning=True,
        tool_call=True,
        reasoning_options=list(options),
    )
