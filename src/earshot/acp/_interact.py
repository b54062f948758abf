"""What the agent asks the person in the editor: permission prompts and ask_user questions.

::

    approve(ApprovalRequest)  session/request_permission: the call with rawInput.detail (the
                              real command or unified diff) and, for a file change, the
                              whole old and new text; options allow once, allow this exact
                              action for the session, reject. A cancelled request, an option
                              earshot did not offer, or an editor that cannot answer is a
                              denial: only an offered allow option allows.
    ask(Question)             elicitation/create in form mode, one string field "answer"
                              (choices as a one-of when free text is not allowed); decline
                              or cancel is a dismissed question. A client that did not
                              declare form elicitation gets no request: the tool's result
                              says the question cannot be asked here.

The gate decides first and deny rules are never asked about; an answer can only allow
the call it was asked about (or, for "this session", exactly what the gate showed).
"""

from __future__ import annotations

import logging

from acp import RequestError
from acp.interfaces import Client
from acp.schema import (
    AcceptElicitationResponse,
    AllowedOutcome,
    ElicitationFormSessionMode,
    ElicitationSchema,
    ElicitationStringPropertySchema,
    EnumOption,
    PermissionOption,
    ToolCallUpdate,
)

from earshot.acp._tools import kind_of
from earshot.acp._updates import Turn, raw_input
from earshot.core.loop.approvals import Approval, ApprovalRequest
from earshot.core.tools.base import Question, ToolError

log = logging.getLogger("earshot.acp")

ALLOW_ONCE = "allow_once"
ALLOW_SESSION = "allow_session"
REJECT = "reject"

OPTIONS = (
    PermissionOption(option_id=ALLOW_ONCE, name="Allow once", kind="allow_once"),
    PermissionOption(
        option_id=ALLOW_SESSION, name="Allow this exact action for the session", kind="allow_always"
    ),
    PermissionOption(option_id=REJECT, name="Reject", kind="reject_once"),
)

CANNOT_ASK = (
    "The question cannot be asked: the editor connected to earshot over ACP does not show "
    "forms (it did not declare form elicitation). Do not ask again. Proceed on your best "
    "judgment and state the assumptions you made, so the user can correct them."
)


class Prompter:
    """The approve and ask callbacks of one session. ``turn`` is the running turn's
    translator (for the call's diff); ``asking`` the ask_user calls now running."""

    def __init__(self, client: Client | None, session_id: str, *, forms: bool) -> None:
        self.client = client
        self.session_id = session_id
        self.forms = forms
        self.turn: Turn | None = None
        self.asking: list[str] = []

    async def approve(self, request: ApprovalRequest) -> Approval:
        call, detail = request.call, request.request.detail
        if self.turn is not None:
            tool_call = self.turn.permission_call(
                call, request.title, detail, request.request.change
            )
        else:
            tool_call = ToolCallUpdate(
                tool_call_id=call.id,
                title=request.title,
                kind=kind_of(call.name),
                status="pending",
                raw_input=raw_input(call, detail),
            )
        if self.client is None:
            return Approval(decision="deny", reason="no editor is connected to answer")
        try:
            response = await self.client.request_permission(
                session_id=self.session_id, tool_call=tool_call, options=list(OPTIONS)
            )
        except (ConnectionError, RequestError) as exc:
            log.warning("permission request for %s failed: %s", call.name, exc)
            return Approval(decision="deny", reason="the editor did not answer the request")
        outcome = response.outcome
        if not isinstance(outcome, AllowedOutcome):
            return Approval(decision="deny", reason="the permission request was cancelled")
        if outcome.option_id == ALLOW_ONCE:
            return Approval(decision="allow_once")
        if outcome.option_id == ALLOW_SESSION:
            return Approval(decision="allow_session")
        return Approval(decision="deny", reason="rejected in the editor")

    async def ask(self, question: Question) -> str | None:
        if not self.forms or self.client is None:
            raise ToolError(CANNOT_ASK, "the editor cannot show questions")
        field = ElicitationStringPropertySchema(type="string", title="Answer")
        if question.choices and not question.allow_free_text:
            field.one_of = [EnumOption(const=c, title=c) for c in question.choices]
        elif question.choices:
            field.description = "For example: " + "; ".join(question.choices)
        schema = ElicitationSchema(type="object", properties={"answer": field}, required=["answer"])
        call_id = self.asking[0] if len(self.asking) == 1 else None
        mode = ElicitationFormSessionMode(
            session_id=self.session_id, tool_call_id=call_id, requested_schema=schema
        )
        try:
            response = await self.client.create_elicitation(message=question.text, mode=mode)
        except (ConnectionError, RequestError) as exc:
            log.warning("elicitation failed: %s", exc)
            raise ToolError(
                f"The editor could not show the question ({exc}). Proceed on your best "
                "judgment and state your assumptions.",
                "question not shown",
            ) from exc
        if not isinstance(response, AcceptElicitationResponse):
            return None
        answer = (response.content or {}).get("answer")
        if answer is None:
            return ""
        if isinstance(answer, list):
            return ", ".join(str(a) for a in answer)
        return str(answer)


__all__ = ["ALLOW_ONCE", "ALLOW_SESSION", "CANNOT_ASK", "OPTIONS", "REJECT", "Prompter"]
