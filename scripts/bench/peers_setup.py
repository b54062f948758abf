"""Installing the peers and giving each agent a home that points it at the fake provider.

Used by peers.py (see its docstring and scripts/bench/README.md). Each ``Agent`` carries the
argv to which a prompt is appended, the environment (HOME and the XDG directories in the
cache, keys and switches), the wire it speaks and its shell tool with the arguments of one
``true`` call.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

PEERS = {
    "@openai/codex": "0.171.0",
    "@mariozechner/pi-coding-agent": "0.73.1",
    "@anthropic-ai/claude-code": "2.1.332",
}
ANTHROPIC_MODEL = "claude-sonnet-4-6"
CODEX_MODEL = "gpt-5.5"  # in Codex's bundled catalog; its shell tool is exec_command
KEY = "bench-key"
NAMES = {
    "earshot": "earshot source",
    "frozen": "earshot frozen",
    "before": "earshot before",
    "codex": "Codex (npm)",
    "codex-native": "Codex (native)",
    "pi": "pi",
    "claude": "Claude Code",
}
DROP = ("PYTHONDONTWRITEBYTECODE", "ANTHROPIC_", "OPENAI_", "CLAUDE_", "CODEX_", "PI_")


@dataclass
class Agent:
    key: str
    argv: list[str]  # the prompt is appended
    wire: str  # "anthropic" or "responses"
    tool: str
    tool_args: dict[str, str]
    env: dict[str, str]
    version: str = ""


# --- installing the peers -------------------------------------------------------------


def installed_version(prefix: Path, package: str) -> str | None:
    manifest = prefix / "node_modules" / package / "package.json"
    try:
        version = json.loads(manifest.read_text()).get("version")
    except (OSError, ValueError):
        return None
    return version if isinstance(version, str) else None


def install_peers(prefix: Path) -> None:
    """``npm install`` the pinned peers into ``prefix`` unless they are there already."""
    if all(installed_version(prefix, p) == v for p, v in PEERS.items()):
        return
    if shutil.which("npm") is None:
        raise SystemExit("peers: npm not found; install Node.js (20 or newer) and npm")
    prefix.mkdir(parents=True, exist_ok=True)
    specs = [f"{package}@{version}" for package, version in PEERS.items()]
    print(f"peers: npm install --prefix {prefix} {' '.join(specs)}", file=sys.stderr)
    env = {**os.environ, "npm_config_update_notifier": "false", "npm_config_fund": "false"}
    subprocess.run(
        ["npm", "install", "--prefix", str(prefix), "--no-audit", "--save-exact", *specs],
        check=True,
        env=env,
        stdout=sys.stderr,
    )


# --- agents and their homes -------------------------------------------------------------


def _base_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(DROP)}
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        XDG_DATA_HOME=str(home / ".local/share"),
        XDG_CACHE_HOME=str(home / ".cache"),
        XDG_STATE_HOME=str(home / ".local/state"),
    )
    return env


def _fresh(home: Path) -> Path:
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    return home


def _earshot(key: str, exe: str, home: Path, base_url: str) -> Agent:
    env = _base_env(_fresh(home))
    env.update(ANTHROPIC_API_KEY=KEY, ANTHROPIC_BASE_URL=base_url)
    argv = [exe, "--model", f"anthropic/{ANTHROPIC_MODEL}", "--permission-mode", "yolo", "-p"]
    return Agent(key, argv, "anthropic", "bash", {"command": "true"}, env)


CODEX_CONFIG = """\
model = "{model}"
model_provider = "fake"
# No update check, analytics or feedback upload; the plugin marketplace (on by default)
# looks up its hosts at start-up.
check_for_update_on_startup = false

[analytics]
enabled = false

[feedback]
enabled = false

[features]
plugins = false

[model_providers.fake]
name = "fake provider"
base_url = "{base_url}/v1"
env_key = "FAKE_PROVIDER_KEY"
wire_api = "responses"
"""


def _codex(key: str, exe: Path, home: Path, base_url: str) -> Agent:
    env = _base_env(_fresh(home))
    (home / ".codex").mkdir()
    config = CODEX_CONFIG.format(model=CODEX_MODEL, base_url=base_url)
    (home / ".codex" / "config.toml").write_text(config)
    env["FAKE_PROVIDER_KEY"] = KEY
    argv = [
        str(exe),
        "exec",
        "--strict-config",  # a key this version does not know is an error, not ignored
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
    ]
    return Agent(key, argv, "responses", "exec_command", {"cmd": "true"}, env)


def _pi(exe: Path, home: Path, base_url: str) -> Agent:
    env = _base_env(_fresh(home))
    agent_dir = home / ".pi" / "agent"
    agent_dir.mkdir(parents=True)
    models = {
        "providers": {
            "fake": {
                "baseUrl": base_url,
                "api": "anthropic-messages",
                "apiKey": "FAKE_PROVIDER_KEY",
                "models": [{"id": ANTHROPIC_MODEL, "contextWindow": 200000, "maxTokens": 32000}],
            }
        }
    }
    (agent_dir / "models.json").write_text(json.dumps(models, indent=2))
    env.update(FAKE_PROVIDER_KEY=KEY, PI_OFFLINE="1")  # no update check, no install ping
    argv = [str(exe), "--provider", "fake", "--model", ANTHROPIC_MODEL, "-p"]
    return Agent("pi", argv, "anthropic", "bash", {"command": "true"}, env)


def _claude(exe: Path, home: Path, base_url: str, model: str) -> Agent:
    env = _base_env(_fresh(home))
    env.update(
        ANTHROPIC_API_KEY=KEY,
        ANTHROPIC_BASE_URL=base_url,
        # telemetry, error reports, the auto-updater and every other non-essential request
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
    )
    argv = [str(exe), *(["--model", model] if model else []), "--allowedTools", "Bash", "-p"]
    return Agent("claude", argv, "anthropic", "Bash", {"command": "true"}, env)


def make_agents(
    wanted: list[str],
    cache: Path,
    frozen: Path,
    base_url: str,
    claude_model: str,
    before: Path | None = None,
) -> tuple[list[Agent], list[str]]:
    modules = cache / "peers" / "node_modules"
    homes = cache / "homes"
    notes: list[str] = []
    agents: list[Agent] = []
    for key in wanted:
        home = homes / key
        if key == "earshot":
            agents.append(
                _earshot(key, str(Path(sys.executable).with_name("earshot")), home, base_url)
            )
        elif key == "frozen":
            if frozen.is_file():
                agents.append(_earshot(key, str(frozen), home, base_url))
            else:
                notes.append(f"earshot frozen: no binary at {frozen} (scripts/build makes one)")
        elif key == "before":
            if before is not None and before.is_file():
                agents.append(_earshot(key, str(before), home, base_url))
            else:
                notes.append(f"earshot before: no executable at {before} (--before PATH)")
        elif key == "codex":
            agents.append(_codex(key, modules / ".bin" / "codex", home, base_url))
        elif key == "codex-native":
            native = next((modules / "@openai").glob("codex-*/vendor/*/bin/codex"), None)
            if native is None:
                notes.append("Codex (native): no platform binary under @openai/codex-*")
            else:
                agents.append(_codex(key, native, home, base_url))
        elif key == "pi":
            agents.append(_pi(modules / ".bin" / "pi", home, base_url))
        elif key == "claude":
            agents.append(_claude(modules / ".bin" / "claude", home, base_url, claude_model))
        else:
            raise SystemExit(f"peers: unknown agent {key!r} (one of {', '.join(NAMES)})")
    for agent in agents:
        agent.version = _version(agent)
    return agents, notes


def _version(agent: Agent) -> str:
    done = subprocess.run(
        [agent.argv[0], "--version"],
        capture_output=True,
        text=True,
        env=agent.env,
        check=False,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    lines = (done.stdout or done.stderr).strip().splitlines()
    return lines[-1].strip() if lines else "?"


def make_work(cache: Path) -> Path:
    work = _fresh(cache / "work")
    (work / "README.md").write_text("# bench\n\nA small repository for the peers benchmark.\n")
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=work, check=True)
    subprocess.run([*git, "add", "."], cwd=work, check=True)
    subprocess.run([*git, "commit", "-qm", "start"], cwd=work, check=True)
    return work
