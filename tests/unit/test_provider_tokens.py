"""The provider's tokens a session keeps: sealed with a key of the server's, readable only with it."""

from __future__ import annotations

import pytest

from web.kit.identity.tokens import ProviderTokens, TokenSealer

SECRET = "token-sealer-secret-key-long-enough-0123456789"
TOKENS = ProviderTokens(refresh_token="refresh-zebraquartz", access_token="access-quokkamint")


def test_sealed_tokens_read_back_and_show_neither_token() -> None:
    sealer = TokenSealer(SECRET)

    sealed = sealer.seal(TOKENS)

    assert "zebraquartz" not in sealed
    assert "quokkamint" not in sealed
    assert sealer.unseal(sealed) == TOKENS


def test_a_missing_token_stays_missing() -> None:
    sealer = TokenSealer(SECRET)

    assert sealer.unseal(sealer.seal(ProviderTokens(access_token="a"))) == ProviderTokens(access_token="a")


@pytest.mark.parametrize(
    "sealed",
    [
        None,
        "",
        42,
        "not-sealed-at-all",
        TokenSealer("another-secret-key-long-enough-0123456789").seal(TOKENS),
    ],
)
def test_tokens_sealed_otherwise_or_not_at_all_read_as_none(sealed: object) -> None:
    assert TokenSealer(SECRET).unseal(sealed) == ProviderTokens()


def test_a_sealed_payload_of_another_shape_reads_as_none() -> None:
    sealer = TokenSealer(SECRET)
    fernet = sealer._fernet

    assert sealer.unseal(fernet.encrypt(b"[1, 2]").decode()) == ProviderTokens()
    assert sealer.unseal(fernet.encrypt(b'{"refresh": 7, "access": ["x"]}').decode()) == ProviderTokens()
