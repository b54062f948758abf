"""``WebFetch(domain:...)`` rules compare hosts as the HTTP client connects to them.

Each request is built by the real ``web_fetch`` tool from a URL and decided by a real gate,
so the host the gate sees is the host the client would connect to.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from earshot.core.permissions import Mode, PermissionGate
from earshot.core.permissions.hosts import canonical_host, host_pattern
from earshot.core.tools import web_fetch
from earshot.core.tools.base import ToolContext, ToolError
from earshot.core.tools.state import ToolState
from tests.permissions.helpers import ruleset


def decide(tmp_path: Path, url: str, *, deny: list[str], mode: Mode = "yolo") -> str:
    """The gate's outcome, or "refused" when the tool refuses a URL it could not fetch."""
    gate = PermissionGate(ruleset(tmp_path, deny=deny), mode, tmp_path)
    ctx = ToolContext(cwd=tmp_path, state=ToolState())
    try:
        request = web_fetch.TOOL.prepare({"url": url}, ctx).request
    except ToolError:
        return "refused"
    return gate.check(request, read_only=False).outcome


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example/x",
        "https://EVIL.Example/x",
        "https://evil.example./x",
        "https://evil.example../x",
        "https://evil\u3002example/x",  # ideographic full stop
        "https://evil\uff0eexample/x",  # fullwidth full stop
        "https://evil\uff61example/x",  # halfwidth ideographic full stop
        "https://\uff45vil.example/x",  # fullwidth e
        "https://user:pw@evil.example/x",
        "https://safe.example@evil.example/x",
        "https://safe.example%2f@evil.example/x",
        "https://evil.example:8443/x",
        "https://evil.example:443/x",
        "http://evil.example:80@evil.example/",
        "https://sub.evil.example/x",
    ],
)
def test_a_denied_host_is_denied_however_the_url_spells_it(tmp_path: Path, url: str) -> None:
    deny = ["WebFetch(domain:evil.example)", "WebFetch(domain:*.evil.example)"]
    assert decide(tmp_path, url, deny=deny) in ("deny", "refused")


@pytest.mark.parametrize(
    "url",
    [
        "https://evil.example.safe.example/",
        "https://safe.example/evil.example",
        "https://evil.example@safe.example/",
        "https://notevil.example/",
    ],
)
def test_other_hosts_are_not_caught(tmp_path: Path, url: str) -> None:
    assert decide(tmp_path, url, deny=["WebFetch(domain:evil.example)"]) == "allow"


def test_unicode_hosts_compare_by_their_idna_form(tmp_path: Path) -> None:
    deny = ["WebFetch(domain:b\u00fccher.example)"]
    assert decide(tmp_path, "https://xn--bcher-kva.example/", deny=deny) == "deny"
    assert decide(tmp_path, "https://B\u00dcCHER.example/", deny=deny) == "deny"
    punycode = ["WebFetch(domain:xn--bcher-kva.example)"]
    assert decide(tmp_path, "https://b\u00fccher.example/", deny=punycode) == "deny"


LOOPBACK_URLS = [
    "http://localhost/",
    "http://LOCALHOST./",
    "http://127.0.0.1/",
    "http://127.1/",
    "http://127.0.0.2:8080/",
    "http://0x7f.1/",
    "http://0x7f000001/",
    "http://2130706433/",
    "http://[::1]/",
    "http://[0:0:0:0:0:0:0:1]:3000/",
    "http://[::ffff:127.0.0.1]/",
    "http://0.0.0.0/",
    "http://[::]/",
    "http://app.localhost/",
]


@pytest.mark.parametrize("rule", ["localhost", "127.0.0.1", "[::1]", "::1", "0x7f.1", "2130706433"])
@pytest.mark.parametrize("url", LOOPBACK_URLS)
def test_every_loopback_spelling_matches_a_rule_naming_any_of_them(
    tmp_path: Path, rule: str, url: str
) -> None:
    assert decide(tmp_path, url, deny=[f"WebFetch(domain:{rule})"]) == "deny"


@pytest.mark.parametrize(
    ("rule", "url"),
    [
        ("10.0.0.1", "http://10.1/"),
        ("10.0.0.1", "http://0xa.0.0.1/"),
        ("10.0.0.1", "http://167772161/"),
        ("169.254.169.254", "http://0xa9fea9fe/"),
        ("169.254.169.254", "http://[::ffff:a9fe:a9fe]/"),
        ("fe80::1", "http://[FE80:0::1]/"),
    ],
)
def test_ip_literals_match_in_every_form_the_resolver_reads(
    tmp_path: Path, rule: str, url: str
) -> None:
    assert decide(tmp_path, url, deny=[f"WebFetch(domain:{rule})"]) == "deny"


def test_hosts_have_one_spelling() -> None:
    assert canonical_host("Example.COM.") == "example.com"
    assert canonical_host("[::1]") == "localhost"
    assert canonical_host("0x7f.1") == "localhost"
    assert canonical_host("10.1") == "10.0.0.1"
    assert canonical_host("0177.0.0.1") == "localhost"  # httpx refuses it; the resolver not
    assert canonical_host("b\u00fccher\u3002example") == "xn--bcher-kva.example"
    assert host_pattern("*.Example.COM.") == "*.example.com"
    assert host_pattern("*.localhost") == "localhost"


@pytest.mark.parametrize("url", ["http://0177.0.0.1/", "https://\uff45vil.example/"])
def test_a_url_the_client_cannot_read_is_refused_before_the_gate(tmp_path: Path, url: str) -> None:
    ctx = ToolContext(cwd=tmp_path, state=ToolState())
    with pytest.raises(ToolError, match="cannot read"):
        web_fetch.TOOL.prepare({"url": url}, ctx)


def test_a_session_grant_covers_the_host_in_every_spelling(tmp_path: Path) -> None:
    gate = PermissionGate(ruleset(tmp_path), "ask", tmp_path)
    ctx = ToolContext(cwd=tmp_path, state=ToolState())
    first = web_fetch.TOOL.prepare({"url": "https://Docs.Example./a"}, ctx).request
    assert gate.check(first, read_only=False).outcome == "ask"
    gate.grant_session(first)
    again = web_fetch.TOOL.prepare({"url": "https://docs\u3002example/b"}, ctx).request
    assert gate.check(again, read_only=False).outcome == "allow"


@pytest.mark.parametrize(
    "url",
    ["https://EVIL.example./x", "https://evil\u3002example/", "http://0x7f.1/", "http://[::1]:9/"],
)
def test_permissions_check_and_web_fetch_agree(
    tmp_path: Path, hermetic_env: Path, url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from earshot.cli.permissions_cmd import check

    deny = ["WebFetch(domain:evil.example)", "WebFetch(domain:127.0.0.1)"]
    (tmp_path / ".earshot").mkdir()
    (tmp_path / ".earshot/settings.json").write_text(json.dumps({"permissions": {"deny": deny}}))
    assert check(f"WebFetch({url})", mode="yolo", as_json=True, cwd=tmp_path) == 0
    said = json.loads(capsys.readouterr().out)["decision"]
    assert said == decide(tmp_path, url, deny=deny) == "deny"
