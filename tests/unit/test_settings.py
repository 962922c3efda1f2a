"""Settings: strict parsing, the environment over `.env` over defaults, and documentation that cannot drift."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest

from web.app import PROJECT_ROOT
from web.settings import Settings, SettingsError, read_dotenv


def test_env_example_lists_exactly_the_settings_with_their_defaults() -> None:
    example = read_dotenv(PROJECT_ROOT / ".env.example")

    assert tuple(example) == Settings.names()
    assert Settings.from_mapping(example) == Settings()


def test_docs_deploy_documents_every_setting_and_no_other() -> None:
    deploy = (PROJECT_ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")

    documented = set(re.findall(r"`(ONFILE_[A-Z_]+)`", deploy))
    assert documented == set(Settings.names())


def test_the_environment_wins_over_dotenv_which_wins_over_defaults(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text('ONFILE_MAX_MEMORIES=30\nONFILE_BASE_URL="https://onfile.example.com"\n# a comment\n\n')

    settings = Settings.load({"ONFILE_MAX_MEMORIES": "40", "PATH": "/bin"}, dotenv)

    assert settings.max_memories == 40
    assert settings.base_url == "https://onfile.example.com"
    assert settings.secure_cookies
    assert settings.max_fact_chars == 240


@pytest.mark.parametrize(
    ("base_url", "secure"), [("HTTPS://onfile.example.com", True), ("http://127.0.0.1:8000", False)]
)
def test_cookies_are_secure_for_an_https_address_however_its_scheme_is_spelt(base_url: str, secure: bool) -> None:
    assert Settings(base_url=base_url).secure_cookies is secure


def test_a_missing_dotenv_is_fine() -> None:
    assert Settings.load({}, Path("/nonexistent/.env")) == Settings()


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"ONFILE_MAX_MEMORY": "3"}, "Unknown setting ONFILE_MAX_MEMORY"),
        ({"ONFILE_MAX_MEMORIES": "twenty"}, "ONFILE_MAX_MEMORIES must be a whole number"),
        ({"ONFILE_MAX_MEMORIES": "0"}, "ONFILE_MAX_MEMORIES must be at least 1"),
        ({"ONFILE_BASE_URL": "http://x/"}, "without a trailing slash"),
        ({"ONFILE_BASE_URL": "ftp://x"}, "http(s) address"),
        ({"ONFILE_CONVERSATION_URL": "https://chat/{run_id}"}, "holding {thread_id}, perhaps {run_id}, and no other"),
        ({"ONFILE_CONVERSATION_URL": "https://chat/{thread_id}/{nope}"}, "and no other placeholder"),
        ({"ONFILE_CONVERSATION_URL": "https://chat/{thread_id}/{"}, "and no other placeholder"),
        ({"ONFILE_CONVERSATION_URL": "javascript:alert(1)//{thread_id}"}, "must be an http(s) address (or a path)"),
        ({"ONFILE_MEMORY_ENABLED": "maybe"}, "must be true or false (or 1/0, yes/no, on/off), not 'maybe'"),
        ({"onfile_secret_key": "x" * 32}, "Unknown setting onfile_secret_key (did you mean ONFILE_SECRET_KEY?)"),
        ({"Onfile_Foo": "x"}, "Unknown setting Onfile_Foo;"),
        ({"ONFILE_ROLE_RECHECK": "300"}, "ONFILE_ROLE_RECHECK must be a whole number of seconds, minutes or hours"),
        ({"ONFILE_ROLE_RECHECK": "5 minutes"}, "such as 90s, 5m or 1h, not '5 minutes'"),
        ({"ONFILE_ROLE_RECHECK": "1.5h"}, "such as 90s, 5m or 1h"),
        ({"ONFILE_ROLE_RECHECK": "0s"}, "ONFILE_ROLE_RECHECK must be at least 1s"),
        ({"ONFILE_SCOPE_RESOLVER_TIMEOUT": "0s"}, "ONFILE_SCOPE_RESOLVER_TIMEOUT must be at least 1s"),
        ({"ONFILE_SCOPE_RESOLVER_TIMEOUT": "5"}, "ONFILE_SCOPE_RESOLVER_TIMEOUT must be a whole number of seconds"),
    ],
)
def test_bad_values_fail_at_start_up_naming_the_setting(values: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=re.escape(message)):
        Settings.from_mapping(values)


@pytest.mark.parametrize(
    ("raw", "duration"),
    [("90s", timedelta(seconds=90)), ("5m", timedelta(minutes=5)), (" 1h ", timedelta(hours=1))],
)
def test_a_duration_is_a_whole_number_with_its_unit(raw: str, duration: timedelta) -> None:
    assert Settings.from_mapping({"ONFILE_ROLE_RECHECK": raw}).role_recheck == duration


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("nonsense", "ONFILE_DATABASE_URL is not a database URL ('nonsense'); use sqlite+aiosqlite:///"),
        ("", "ONFILE_DATABASE_URL is not a database URL (''); use sqlite+aiosqlite:///"),
        ("postgresql+asyncpg://u:hunter2@h:port/db", "is not a database URL ('postgresql+asyncpg://u:***@h:port/db')"),
        (
            "sqlite:///x.db",
            "ONFILE_DATABASE_URL must use OnFile's async driver: sqlite+aiosqlite:///x.db, not sqlite:///x.db",
        ),
        ("sqlite+pysqlite:////srv/x.db", "driver: sqlite+aiosqlite:////srv/x.db, not sqlite+pysqlite:////srv/x.db"),
        ("postgresql://u:hunter2@h/db", "driver: postgresql+asyncpg://u:***@h/db, not postgresql://u:***@h/db"),
        ("postgresql+psycopg2://h/db", "driver: postgresql+asyncpg://h/db, not postgresql+psycopg2://h/db"),
        ("mysql+aiomysql://u:hunter2@h/db", "must name a SQLite or PostgreSQL database"),
    ],
)
def test_a_database_url_that_does_not_parse_or_names_another_driver_is_refused_naming_the_setting(
    url: str, message: str
) -> None:
    with pytest.raises(SettingsError, match=re.escape(message)) as refused:
        Settings.from_mapping({"ONFILE_DATABASE_URL": url})

    assert "hunter2" not in str(refused.value)


@pytest.mark.parametrize(
    "url",
    [
        "sqlite+aiosqlite:///onfile.sqlite3",
        "sqlite+aiosqlite:////var/lib/onfile/onfile.sqlite3",
        "sqlite+aiosqlite://",
        "postgresql+asyncpg://onfile:secret@db.example.com:5432/onfile",
        "postgresql+asyncpg:///onfile",
    ],
)
def test_the_two_async_drivers_are_accepted(url: str) -> None:
    assert Settings.from_mapping({"ONFILE_DATABASE_URL": url}).database_url == url


@pytest.mark.parametrize(
    ("url", "file"),
    [
        ("sqlite+aiosqlite:///onfile.sqlite3", Path("onfile.sqlite3")),
        ("sqlite+aiosqlite:////var/lib/onfile/my%20data.sqlite3?timeout=5", Path("/var/lib/onfile/my data.sqlite3")),
        ("sqlite+aiosqlite://", None),
        ("sqlite+aiosqlite:///:memory:", None),
        ("sqlite+aiosqlite:///file:onfile.sqlite3?uri=true", None),
        ("postgresql+asyncpg://onfile@db/onfile", None),
    ],
)
def test_a_sqlite_url_names_the_file_housekeeping_expects_to_find(url: str, file: Path | None) -> None:
    assert Settings(database_url=url).sqlite_file == file


def test_a_malformed_dotenv_line_is_reported_with_its_line_number(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text("ONFILE_MAX_MEMORIES=3\nnot a setting\n")

    with pytest.raises(SettingsError, match=r"\.env:2: expected KEY=value"):
        read_dotenv(dotenv)


def test_serving_needs_a_long_secret_and_a_provider() -> None:
    with pytest.raises(SettingsError, match="ONFILE_SECRET_KEY, ONFILE_OIDC_ISSUER"):
        Settings().require_server_settings()
    with pytest.raises(SettingsError, match="at least 32 characters"):
        Settings(
            secret_key="short", oidc_issuer="http://i", oidc_client_id="c", oidc_client_secret="s"
        ).require_server_settings()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"oidc_issuer": "banana"},
            "ONFILE_OIDC_ISSUER must be your identity provider's http(s) address, not 'banana'",
        ),
        ({"oidc_issuer": "http://"}, "ONFILE_OIDC_ISSUER must be your identity provider's http(s) address"),
        ({"oidc_scopes": "profile email"}, "ONFILE_OIDC_SCOPES must include openid"),
        ({"oidc_scopes": ""}, "ONFILE_OIDC_SCOPES must include openid"),
    ],
)
def test_a_provider_no_sign_in_could_work_with_is_refused_at_start_up(changes: dict[str, str], message: str) -> None:
    settings = Settings(
        secret_key="s" * 32, oidc_issuer="http://i", oidc_client_id="c", oidc_client_secret="s"
    ).replace(**changes)

    with pytest.raises(SettingsError, match=re.escape(message)):
        settings.require_server_settings()


@pytest.mark.parametrize(
    "url",
    [
        "https://chat.example.com/t/{thread_id}",
        "/conversations/{thread_id}",
        "https://c/{thread_id}?again={thread_id}",
        "https://chat.example.com/threads/{thread_id}#{run_id}",
    ],
)
def test_a_conversation_address_with_only_the_thread_placeholder_is_accepted(url: str) -> None:
    assert Settings.from_mapping({"ONFILE_CONVERSATION_URL": url}).conversation_url == url


@pytest.mark.parametrize(
    ("agent", "operator", "said"),
    [
        ("short", "", "ONFILE_AGENT_TOKENS: each token must be at least 16 characters, and the token has 5;"),
        (
            "a-long-enough-agent-token, fifteen-chars-x",
            "",
            "ONFILE_AGENT_TOKENS: each token must be at least 16 characters, and token 2 of 2 has 15;",
        ),
        ("", "op-short", "ONFILE_OPERATOR_TOKENS: each token must be at least 16 characters"),
        (
            "shared-token-0123456789, agent-only-0123456789",
            "shared-token-0123456789",
            "ONFILE_AGENT_TOKENS and ONFILE_OPERATOR_TOKENS share a token (1 of them)",
        ),
    ],
)
def test_a_guessable_or_shared_token_is_refused_at_start_up(agent: str, operator: str, said: str) -> None:
    settings = Settings(
        secret_key="s" * 32,
        oidc_issuer="http://i",
        oidc_client_id="c",
        oidc_client_secret="s",
        agent_tokens=agent,
        operator_tokens=operator,
    )

    with pytest.raises(SettingsError, match=re.escape(said)):
        settings.require_server_settings()


def test_tokens_of_sixteen_characters_each_their_own_are_taken() -> None:
    settings = Settings(
        secret_key="s" * 32,
        oidc_issuer="http://i",
        oidc_client_id="c",
        oidc_client_secret="s",
        agent_tokens="agent-0123456789, agent-abcdefghij",
        operator_tokens="operator-0123456",
    )

    settings.require_server_settings()


@pytest.mark.parametrize("tokens", ["tök-ü", "good-token, two words", "tab\tinside"])
def test_an_agent_token_no_header_can_carry_is_refused_at_start_up(tokens: str) -> None:
    settings = Settings(
        secret_key="s" * 32, oidc_issuer="http://i", oidc_client_id="c", oidc_client_secret="s", agent_tokens=tokens
    )

    with pytest.raises(SettingsError, match="ONFILE_AGENT_TOKENS: each token must be printable ASCII"):
        settings.require_server_settings()


@pytest.mark.parametrize(
    ("line", "value"),
    [
        pytest.param("ONFILE_SECRET_KEY=changeme   # TODO: generate a real key", "changeme", id="inline-comment"),
        pytest.param("ONFILE_SECRET_KEY=abc#def", "abc#def", id="a-hash-inside-a-word-is-the-value's"),
        pytest.param('ONFILE_SECRET_KEY="abc #def"  # quoted', "abc #def", id="quoted-hash"),
        pytest.param("ONFILE_SECRET_KEY='a b'", "a b", id="single-quotes"),
        pytest.param("export ONFILE_SECRET_KEY=exported", "exported", id="export"),
        pytest.param("  export   ONFILE_SECRET_KEY = spaced  ", "spaced", id="spaces"),
        pytest.param("ONFILE_SECRET_KEY=", "", id="empty"),
        pytest.param("ONFILE_SECRET_KEY= # set later", "", id="only-a-comment"),
        pytest.param("ONFILE_SECRET_KEY=\t# none", "", id="only-a-comment-after-a-tab"),
        pytest.param("export\tONFILE_SECRET_KEY=tabbed", "tabbed", id="export-and-a-tab"),
    ],
)
def test_a_dotenv_line_is_read_as_a_shell_would_read_it(tmp_path: Path, line: str, value: str) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text(f"{line}\n")

    assert read_dotenv(dotenv) == {"ONFILE_SECRET_KEY": value}


@pytest.mark.parametrize(
    "line", ['ONFILE_SECRET_KEY="never closed', "ONFILE_SECRET_KEY='a' b", "=value", "exportONFILE_SECRET_KEY=x"]
)
def test_a_dotenv_line_that_cannot_be_read_is_refused_with_its_line_number(tmp_path: Path, line: str) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text(f"# settings\n{line}\n")

    with pytest.raises(SettingsError, match=r"\.env:2: "):
        read_dotenv(dotenv)


def test_a_weak_key_hidden_by_a_comment_is_too_short_to_start(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text("ONFILE_SECRET_KEY=changeme   # TODO: generate a real key, at least 32 characters\n")
    provider = {
        "ONFILE_OIDC_ISSUER": "https://id.example.com",
        "ONFILE_OIDC_CLIENT_ID": "onfile",
        "ONFILE_OIDC_CLIENT_SECRET": "s3cr3t",
    }

    with pytest.raises(SettingsError, match="ONFILE_SECRET_KEY must be at least 32 characters"):
        Settings.load(provider, dotenv).require_server_settings()
