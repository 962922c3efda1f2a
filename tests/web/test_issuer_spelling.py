"""An identity provider whose issuer ends in '/' (authentik does) signs people in: the ID token's `iss`
is compared with the issuer its discovery document names, exactly, whichever way the setting spells it."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest
from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey

from web.kit.identity.oidc import LoginError, OidcClient

ISSUER = "https://idp.example/application/o/onfile/"
KEY = RSAKey.generate_key(2048, parameters={"kid": "k1", "use": "sig", "alg": "RS256"})


def provider(request: httpx.Request) -> httpx.Response:
    if request.url.path.endswith("/.well-known/openid-configuration"):
        return httpx.Response(
            200,
            json={
                "issuer": ISSUER,
                "authorization_endpoint": f"{ISSUER}authorize",
                "token_endpoint": f"{ISSUER}token",
                "jwks_uri": f"{ISSUER}jwks",
                "id_token_signing_alg_values_supported": ["RS256"],
            },
        )
    return httpx.Response(200, json=KeySet([KEY]).as_dict(private=False))


def id_token(iss: str) -> str:
    now = int(time.time())
    claims: dict[str, Any] = {"iss": iss, "aud": "onfile", "sub": "ada", "exp": now + 300, "iat": now, "nonce": "n"}
    return jwt.encode({"alg": "RS256", "kid": "k1"}, claims, KEY)


def client(configured: str) -> OidcClient:
    return OidcClient(
        issuer=configured,
        client_id="onfile",
        client_secret="secret",
        redirect_uri="https://onfile.example/auth/callback",
        scopes="openid profile",
        tenant_claim="tenant",
        roles_claim="roles",
        http=httpx.AsyncClient(transport=httpx.MockTransport(provider)),
    )


@pytest.mark.parametrize("configured", [ISSUER, ISSUER.rstrip("/")])
async def test_a_token_from_an_issuer_ending_in_a_slash_is_accepted(configured: str) -> None:
    oidc = client(configured)

    claims = await oidc._validated_claims(id_token(ISSUER), "n")  # the check every sign-in and refresh runs

    assert claims["sub"] == "ada"
    await oidc.aclose()


async def test_a_token_from_another_issuer_is_still_refused() -> None:
    oidc = client(ISSUER)

    with pytest.raises(LoginError, match="could not be verified"):
        await oidc._validated_claims(id_token("https://idp.example/application/o/other/"), "n")
    await oidc.aclose()
