"""``auth_headers``: the one place a request gets its credential, for every auth style.

Called by ``providers.stream`` for each attempt, after the request is final (URL with its
query, body bytes), because SigV4 signs exactly those::

    x-api-key | x-goog-api-key   the key in a header of that name      (nothing without a key)
    bearer                       authorization: Bearer <key>           (nothing without a key)
    api-key                      Azure: api-key: <key>; without a key an Entra ID bearer token
                                 (AZURE_OPENAI_AD_TOKEN or the Azure CLI's)
    google-adc                   authorization: Bearer <application default credentials token>
    aws-sigv4                    a Bedrock API key as a bearer token, else SigV4 over the
                                 request with the AWS credential chain's keys
    none                         nothing

The cloud styles import their modules here, on first use: a non-cloud model never loads
them. Failures are ``ProviderError("auth")`` naming where credentials were looked for.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import assert_never

from earshot.providers.target import Target


def key_headers(target: Target) -> dict[str, str] | None:
    """The credential when it needs no I/O (a key, or no credential at all); None when it
    has to be fetched or computed (``auth_headers`` does that)."""
    key = target.api_key.reveal() if target.api_key else ""
    match target.auth:
        case "x-api-key" | "x-goog-api-key":
            return {target.auth: key} if key else {}
        case "bearer":
            return {"authorization": f"Bearer {key}"} if key else {}
        case "api-key":
            if key or target.wire != "azure-openai":
                return {"api-key": key} if key else {}
            return None
        case "aws-sigv4":
            return {"authorization": f"Bearer {key}"} if key else None
        case "google-adc":
            return None
        case "none":
            return {}
        case _:
            assert_never(target.auth)


async def auth_headers(
    target: Target, *, method: str, url: str, headers: Mapping[str, str], body: bytes
) -> dict[str, str]:
    known = key_headers(target)
    if known is not None:
        return known
    if target.auth == "api-key":
        from earshot.providers.cloud import azure

        token = await azure.bearer_token()
        return {"authorization": f"Bearer {token.reveal()}"}
    if target.auth == "google-adc":
        from earshot.providers.cloud import google

        secret, _ = await google.access_token()
        return {"authorization": f"Bearer {secret.reveal()}"}
    from earshot.providers.cloud import aws, sigv4

    found = await aws.resolve()
    if found.bearer is not None:
        return {"authorization": f"Bearer {found.bearer.reveal()}"}
    assert found.credentials is not None
    return sigv4.sign(
        method=method,
        url=url,
        headers=headers,
        body=body,
        credentials=found.credentials,
        region=target.cloud.get("region") or found.region,
        service="bedrock",
    )


__all__ = ["auth_headers", "key_headers"]
