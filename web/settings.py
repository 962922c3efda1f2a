"""OnFile's settings: one frozen object, built from the environment, then `.env`, then defaults.

Every field is read from `ONFILE_<FIELD NAME IN CAPITALS>`. Parsing is strict: a value that does not
parse, or an `ONFILE_*` variable (in any capitals) that names no setting, fails at start-up with a
message saying which.
Nothing reads settings at import time; `create_app(settings)` receives them.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from datetime import timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from store.persistence import printable_url
from store.persistence.outage import DATABASE_ERROR_TYPES

__all__ = ("DATABASE_URL_FORMS", "PREFIX", "Settings", "SettingsError", "check_database_url", "read_dotenv")

PREFIX = "ONFILE_"

_SQLITE = "sqlite+aiosqlite"
_POSTGRESQL = "postgresql+asyncpg"
DATABASE_URL_FORMS = f"{_SQLITE}:///path/to/file.sqlite3 or {_POSTGRESQL}://user:password@host:port/database"
"""The database URLs OnFile takes: its two async drivers, nothing else."""


_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
TOKEN_LENGTH_AT_LEAST = 16
"""Characters of an agent or operator token at least: a bearer token is the whole of its check."""
_EMBEDDER_SPEC = re.compile(r"use-multilingual|none|https?://\S+|[A-Za-z_][\w.]*:[A-Za-z_]\w*")


class SettingsError(ValueError):
    """A setting is missing, malformed or unknown. The message names it."""


def _doc(text: str) -> dict[str, str]:
    return {"doc": text}


@lru_cache(maxsize=16)
def _token_list(tokens: str) -> tuple[str, ...]:
    return tuple(t.strip() for t in tokens.split(",") if t.strip())


@dataclass(frozen=True, slots=True)
class Settings:
    database_url: str = field(
        default="sqlite+aiosqlite:///onfile.sqlite3",
        metadata=_doc(
            "SQLAlchemy URL of the application database: sqlite+aiosqlite:///path (the embedded default is a "
            "file in the working directory; four slashes before an absolute path) or "
            "postgresql+asyncpg://user:password@host/db to share one across hosts. Other drivers are refused."
        ),
    )
    database_pool_size: int = field(
        default=40,
        metadata=_doc(
            "The most database connections each worker process has open: opened as requests need them, "
            "then kept. With PostgreSQL, workers × this must stay under the server's max_connections."
        ),
    )
    base_url: str = field(
        default="http://127.0.0.1:8000",
        metadata=_doc(
            "The address people reach the dashboard at, without a trailing slash. The login callback is "
            "built from it; when it is https, cookies are marked Secure."
        ),
    )
    secret_key: str = field(
        default="",
        metadata=_doc(
            "At least 32 characters, the same on every worker and host. Protects the login exchange "
            "cookie, the CSRF tokens and the identity provider's tokens a session keeps. Generate one with: "
            "python -c 'import secrets; print(secrets.token_urlsafe(32))'"
        ),
    )
    oidc_issuer: str = field(
        default="",
        metadata=_doc("Your OpenID Connect provider's issuer URL; its discovery document is read from it."),
    )
    oidc_client_id: str = field(default="", metadata=_doc("The client id OnFile is registered under."))
    oidc_client_secret: str = field(
        default="", metadata=_doc("The client secret (OnFile logs in as a confidential client).")
    )
    oidc_scopes: str = field(
        default="openid profile email", metadata=_doc("Space-separated scopes asked for at login.")
    )
    oidc_tenant_claim: str = field(
        default="tenant", metadata=_doc("The ID token claim that names a person's organisation.")
    )
    oidc_roles_claim: str = field(
        default="roles",
        metadata=_doc("The ID token claim that lists a person's roles; the groups claim is read as well."),
    )
    session_idle_minutes: int = field(
        default=120, metadata=_doc("A dashboard session ends after this many minutes without a request.")
    )
    session_max_hours: int = field(
        default=12, metadata=_doc("A dashboard session ends this many hours after login, however busy.")
    )
    role_recheck: timedelta = field(
        default=timedelta(minutes=5),
        metadata=_doc(
            "How often a dashboard session asks the identity provider again for the person's roles and "
            "organisation (with its refresh token, or its userinfo endpoint), as a whole number of seconds, "
            "minutes or hours: 90s, 5m, 1h. A role taken away there is gone here by then; while the provider "
            "cannot confirm them, elevated acts are refused and the person's own page keeps working."
        ),
    )
    conversation_url: str = field(
        default="",
        metadata=_doc(
            "Where a memory's conversation can be opened, with {thread_id} and {run_id} placeholders, "
            "e.g. https://chat.example.com/threads/{thread_id}#{run_id}. Empty: no links."
        ),
    )
    memory_enabled: bool = field(
        default=True,
        metadata=_doc(
            "Whether agents get memory at all. Off: the agent routes say memory is off, offer no tool and "
            "journal nothing; people can still read and forget what is on file."
        ),
    )
    agent_tokens: str = field(
        default="",
        metadata=_doc(
            "Comma-separated bearer tokens that agent runtimes present to the agent API, at least 16 characters "
            "each; list several to rotate them. Empty: the agent API refuses every call."
        ),
    )
    operator_tokens: str = field(
        default="",
        metadata=_doc(
            "Comma-separated bearer tokens that close /metrics and the API document (/schema) to the public, at "
            "least 16 characters each and none also an agent token: when set, both answer only a request "
            "presenting one of them (Authorization: Bearer <token>), and 401 to anyone else. Empty: both are "
            "open to whoever reaches the server."
        ),
    )
    journal_retention_hours: int = field(
        default=48,
        metadata=_doc(
            "How long a run's journal (its recorded memory digest and remember outcomes) is kept so the run "
            "can resume or replay; then it is pruned, and a run resuming later is told so. A forgotten "
            "memory can live on this long in the digests of runs already in flight."
        ),
    )
    scope_resolver: str = field(
        default="",
        metadata=_doc(
            "A deployment's own scope resolver as module:attribute (an instance, or a class to call with no "
            "arguments); it answers for every path: the prompt, the read-back, the verdicts and the preview. "
            "Empty: actor, then tenant, then global."
        ),
    )
    scope_resolver_timeout: timedelta = field(
        default=timedelta(seconds=5),
        metadata=_doc(
            "How long a deployment's scope resolver may take to answer, as a whole number of seconds, minutes "
            "or hours: 5s, 1m. Past it, the turn or page it was asked for is answered that it did not answer "
            "(as when it fails), instead of waiting with it."
        ),
    )
    admin_gate: str = field(
        default="",
        metadata=_doc(
            "A deployment's own answer to who administers which scope, as module:attribute (an instance, or "
            "a class to call with no arguments). Empty: the role names below."
        ),
    )
    admin_role: str = field(
        default="onfile-admin", metadata=_doc("The role that administers the person's own organisation.")
    )
    global_admin_role: str = field(
        default="onfile-global-admin", metadata=_doc("The role that administers the global scope.")
    )
    support_role: str = field(
        default="onfile-support",
        metadata=_doc("The role that may preview the exact prompt block for a person of their own organisation."),
    )
    support_all_tenants: bool = field(
        default=False,
        metadata=_doc(
            "Whether the support role answers for every organisation: true lets support staff preview anyone "
            "OnFile knows, and each look is then audited at the previewed person's organisation as well as the "
            "viewer's. Off: support staff see only the people of their own organisation."
        ),
    )
    approval_required: bool = field(
        default=False,
        metadata=_doc(
            "Whether what the assistant concludes about a person waits for their approval before it reaches "
            "any prompt, in an organisation whose administrators have not chosen (and for people of no "
            "organisation). Each organisation's administrators may choose otherwise in the elevated area."
        ),
    )
    demo_sign_in: bool = field(
        default=False,
        metadata=_doc(
            "The demo's own sign-in page: /login lists the demo people with a button each, and each button "
            "signs in through the identity provider, which must then be the local development one on loopback "
            "(onfile demo sets this). Signing out then ends on OnFile's signed-out page without the provider's. "
            "Never for a real deployment: off, /login goes straight to the provider."
        ),
    )
    max_memories: int = field(default=20, metadata=_doc("How many memories one turn's prompt carries at most."))
    max_fact_chars: int = field(
        default=240,
        metadata=_doc(
            "How many characters one fact may hold: what the assistant remembers, and what an administrator "
            "publishes or edits."
        ),
    )

    embedder: str = field(
        default="use-multilingual",
        metadata=_doc(
            "How memories are embedded, so a turn finds them by meaning as well as by words: use-multilingual "
            "(the Universal Sentence Encoder, sixteen languages; its weights ship inside the installed package "
            "and nothing is downloaded), none (words only), the http(s) address of an embedding service "
            'answering POST {"input": [texts]} with {"data": [{"embedding": [numbers]}]} (#name after the '
            "address asks for that model), or module:attribute naming a deployment's own Embedder. After "
            "changing it, run onfile db reembed --all."
        ),
    )

    def __post_init__(self) -> None:
        base = urlsplit(self.base_url)
        if base.scheme not in {"http", "https"} or not base.netloc or self.base_url.endswith("/"):
            msg = f"ONFILE_BASE_URL must be an http(s) address without a trailing slash, not {self.base_url!r}"
            raise SettingsError(msg)
        check_database_url(self.database_url)
        for name in (
            "database_pool_size",
            "session_idle_minutes",
            "session_max_hours",
            "max_memories",
            "max_fact_chars",
            "journal_retention_hours",
        ):
            if getattr(self, name) < 1:
                msg = f"{PREFIX}{name.upper()} must be at least 1"
                raise SettingsError(msg)
        for name in ("role_recheck", "scope_resolver_timeout"):
            if getattr(self, name) < timedelta(seconds=1):
                msg = f"{PREFIX}{name.upper()} must be at least 1s"
                raise SettingsError(msg)
        if not _EMBEDDER_SPEC.fullmatch(self.embedder.strip()):
            msg = (
                f"{PREFIX}EMBEDDER must be use-multilingual, none, an http(s) address or "
                f"package.module:attribute, not {self.embedder!r}"
            )
            raise SettingsError(msg)
        if self.conversation_url:
            _check_conversation_url(self.conversation_url)

    @property
    def sqlite_file(self) -> Path | None:
        """The file a SQLite URL names, relative to the working directory unless absolute; None for
        PostgreSQL, an in-memory database, or a `file:` URI (which SQLite resolves itself)."""
        prefix = f"{_SQLITE}:///"
        if not self.database_url.startswith(prefix):
            return None
        database = unquote(self.database_url.removeprefix(prefix).partition("?")[0])
        if database in {"", ":memory:"} or database.startswith("file:"):
            return None
        return Path(database)

    @property
    def sqlite_in_memory(self) -> bool:
        """Whether the URL names an in-memory SQLite database (nothing, or `:memory:`, after the slashes;
        or a `file:` URI with `mode=memory`): one per process, gone when it stops."""
        prefix = f"{_SQLITE}://"
        if not self.database_url.startswith(prefix):
            return False
        database, _, query = unquote(self.database_url.removeprefix(prefix)).partition("?")
        return database.removeprefix("/") == "" or ":memory:" in database or "mode=memory" in f"{database}?{query}"

    @property
    def secure_cookies(self) -> bool:
        """Whether people reach OnFile over HTTPS, however the scheme is spelt (`HTTPS://` too)."""
        return urlsplit(self.base_url).scheme == "https"

    @property
    def agent_token_list(self) -> tuple[str, ...]:
        """The configured agent tokens, blanks dropped."""
        return _token_list(self.agent_tokens)

    @property
    def operator_token_list(self) -> tuple[str, ...]:
        """The configured operator tokens, blanks dropped."""
        return _token_list(self.operator_tokens)

    def require_server_settings(self) -> None:
        """What serving the dashboard needs beyond the defaults; raises naming what is missing."""
        missing = [
            f"{PREFIX}{name.upper()}"
            for name in ("secret_key", "oidc_issuer", "oidc_client_id", "oidc_client_secret")
            if not getattr(self, name)
        ]
        if missing:
            msg = f"Set {', '.join(missing)} (see .env.example) before starting the dashboard."
            raise SettingsError(msg)
        if len(self.secret_key) < 32:
            msg = "ONFILE_SECRET_KEY must be at least 32 characters."
            raise SettingsError(msg)
        issuer = urlsplit(self.oidc_issuer)
        if issuer.scheme not in {"http", "https"} or not issuer.hostname:
            msg = f"{PREFIX}OIDC_ISSUER must be your identity provider's http(s) address, not {self.oidc_issuer!r}"
            raise SettingsError(msg)
        if "openid" not in self.oidc_scopes.split():
            msg = (
                f"{PREFIX}OIDC_SCOPES must include openid, or no sign-in gives OnFile an ID token to read: "
                f"not {self.oidc_scopes!r}"
            )
            raise SettingsError(msg)
        if self.demo_sign_in and (issuer.scheme != "http" or issuer.hostname not in _LOOPBACK):
            msg = (
                f"{PREFIX}DEMO_SIGN_IN is for the demo's local identity provider on loopback "
                f"(http://127.0.0.1:<port>), not {self.oidc_issuer!r}."
            )
            raise SettingsError(msg)
        for name, tokens in (("AGENT_TOKENS", self.agent_token_list), ("OPERATOR_TOKENS", self.operator_token_list)):
            if not all("!" <= character <= "~" for token in tokens for character in token):
                # an HTTP header carries ASCII: a token with anything else could never be presented
                msg = f"{PREFIX}{name}: each token must be printable ASCII with no space inside it."
                raise SettingsError(msg)
            short = next((n for n, token in enumerate(tokens, 1) if len(token) < TOKEN_LENGTH_AT_LEAST), None)
            if short is not None:
                which = f"token {short} of {len(tokens)}" if len(tokens) > 1 else "the token"
                msg = (
                    f"{PREFIX}{name}: each token must be at least {TOKEN_LENGTH_AT_LEAST} characters, and {which} "
                    f"has {len(tokens[short - 1])}; make one with: "
                    'python -c "import secrets; print(secrets.token_urlsafe(32))"'
                )
                raise SettingsError(msg)
        if shared := set(self.agent_token_list) & set(self.operator_token_list):
            msg = (
                f"{PREFIX}AGENT_TOKENS and {PREFIX}OPERATOR_TOKENS share a token ({len(shared)} of them): an agent "
                "runtime would then also read /metrics and /schema. Give each its own."
            )
            raise SettingsError(msg)

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """Every setting's environment variable."""
        return tuple(f"{PREFIX}{f.name.upper()}" for f in fields(cls))

    @classmethod
    def documentation(cls) -> dict[str, str]:
        return {f"{PREFIX}{f.name.upper()}": f.metadata["doc"] for f in fields(cls)}

    @classmethod
    def load(cls, environ: Mapping[str, str] | None = None, dotenv: Path | None = Path(".env")) -> Settings:
        """The environment first, then the `.env` file (when it exists), then the defaults."""
        values = read_dotenv(dotenv) if dotenv is not None and dotenv.is_file() else {}
        environment = os.environ if environ is None else environ
        values.update({k: v for k, v in environment.items() if k.upper().startswith(PREFIX)})
        return cls.from_mapping(values)

    @classmethod
    def from_mapping(cls, values: Mapping[str, str]) -> Settings:
        known = {f"{PREFIX}{f.name.upper()}": f for f in fields(cls)}
        unknown = sorted(k for k in values if k.upper().startswith(PREFIX) and k not in known)
        if unknown:
            # a name in other capitals is not read: say which one was meant, rather than ignore it
            meant = [f"{k} (did you mean {k.upper()}?)" if k.upper() in known else k for k in unknown]
            msg = f"Unknown setting {', '.join(meant)}; the settings are: {', '.join(known)}"
            raise SettingsError(msg)
        parsed: dict[str, Any] = {}
        for name, spec in known.items():
            if name in values:
                parsed[spec.name] = _parse(name, values[name], spec)
        return cls(**parsed)

    def replace(self, **changes: Any) -> Settings:
        return dataclasses.replace(self, **changes)


def _check_conversation_url(url: str) -> None:
    """An http(s) address, or one relative to the dashboard, holding `{thread_id}`, perhaps `{run_id}`,
    and no other placeholder (an unknown one would be left in every link as it is written)."""
    placeholders = set(re.findall(r"\{[^{}]*\}?|\}", url))
    scheme = urlsplit(url).scheme
    usable = "{thread_id}" in placeholders and placeholders <= _LINK_PLACEHOLDERS
    if not usable or scheme not in {"", "http", "https"}:
        msg = (
            f"{PREFIX}CONVERSATION_URL must be an http(s) address (or a path) holding {{thread_id}}, perhaps "
            f"{{run_id}}, and no other placeholder, not {url!r}"
        )
        raise SettingsError(msg)


_LINK_PLACEHOLDERS = frozenset({"{thread_id}", "{run_id}"})


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
_DURATION = re.compile(r"(\d{1,9})([smh])")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours"}


def _parse(name: str, raw: str, spec: dataclasses.Field[Any]) -> Any:
    if spec.type in {"bool", bool}:
        value = raw.strip().lower()
        if value not in _TRUE | _FALSE:
            msg = f"{name} must be true or false (or 1/0, yes/no, on/off), not {raw!r}"
            raise SettingsError(msg)
        return value in _TRUE
    if spec.type in {"int", int}:
        try:
            return int(raw.strip())
        except ValueError:
            msg = f"{name} must be a whole number, not {raw!r}"
            raise SettingsError(msg) from None
    if spec.type in {"timedelta", timedelta}:
        duration = _DURATION.fullmatch(raw.strip())
        if duration is None:
            msg = f"{name} must be a whole number of seconds, minutes or hours such as 90s, 5m or 1h, not {raw!r}"
            raise SettingsError(msg)
        return timedelta(**{_UNITS[duration[2]]: int(duration[1])})
    return raw.strip()


_SCHEME = re.compile(r"([A-Za-z0-9_+]+)://")
_PASSWORD = re.compile(r"(://[^:/@?]*:)[^@/]*@")
_SUGGESTIONS = {"sqlite": _SQLITE, "postgresql": _POSTGRESQL, "postgres": _POSTGRESQL}
_UNPARSEABLE: tuple[type[Exception], ...] = (ValueError, *DATABASE_ERROR_TYPES)  # a bad port is a ValueError


def check_database_url(url: str, name: str = f"{PREFIX}DATABASE_URL") -> None:
    """Refuse a URL that does not parse or names a backend or driver OnFile cannot use; the message
    names the setting (or flag), shows the URL with any password masked, and for a known backend with
    another driver (`sqlite:///…`, `postgresql+psycopg2://…`) spells out the URL to use instead."""
    scheme = _SCHEME.match(url)
    try:
        shown = printable_url(url) if scheme else ""
    except _UNPARSEABLE:
        shown = ""
    if scheme is None or not shown:
        masked = _PASSWORD.sub(r"\1***@", url)
        msg = f"{name} is not a database URL ({masked!r}); use {DATABASE_URL_FORMS}"
        raise SettingsError(msg)
    driver = scheme[1]
    if "\x00" in unquote(url):  # no file or server name can hold one; the drivers would fail with a traceback
        msg = f"{name} holds a NUL character (%00), which no file or database name can: {shown}"
        raise SettingsError(msg)
    if driver in {_SQLITE, _POSTGRESQL}:
        return
    suggested = _SUGGESTIONS.get(driver.partition("+")[0])
    if suggested is None:
        msg = f"{name} must name a SQLite or PostgreSQL database ({DATABASE_URL_FORMS}), not {shown}"
    else:
        msg = f"{name} must use OnFile's async driver: {suggested}{shown.removeprefix(driver)}, not {shown}"
    raise SettingsError(msg)


def read_dotenv(path: Path) -> dict[str, str]:
    """`KEY=value` lines, as shells and most `.env` readers take them: blank lines and lines starting
    with `#` skipped, and `export ` before a key allowed. A value in single or double quotes is what
    is between them (a `#` in it included) and may be followed by a comment only; an unquoted value
    ends where a comment begins — a `#` that starts it or follows a space — so `KEY=value  # why` is
    `value` and `KEY= # later` is empty. A line that cannot be read is refused, naming it."""
    values: dict[str, str] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        key, sep, value = stripped.partition("=")
        key = _EXPORT.sub("", key.strip())
        if not sep or not key:
            msg = f"{path}:{number}: expected KEY=value"
            raise SettingsError(msg)
        if PREFIX in key.upper() and not key.upper().startswith(PREFIX):  # `exportONFILE_…`, `XONFILE_…`
            msg = f"{path}:{number}: {key!r} is not a setting's name; did you mean {key[key.upper().index(PREFIX) :]}?"
            raise SettingsError(msg)
        value = value.strip()
        if value[:1] in ("'", '"'):
            closing = value.find(value[0], 1)
            rest = value[closing + 1 :].strip() if closing > 0 else "?"
            if rest and not rest.startswith("#"):
                msg = f"{path}:{number}: {key}'s quoted value must be closed and end the line (a # comment may follow)"
                raise SettingsError(msg)
            value = value[1:closing]
        else:
            value = _INLINE_COMMENT.split(value, maxsplit=1)[0].rstrip()
        values[key] = value
    return values


_INLINE_COMMENT = re.compile(r"(?:^|\s)#")
_EXPORT = re.compile(r"^export\s+")
