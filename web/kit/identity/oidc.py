"""The OpenID Connect relying party: discovery, the authorization code flow with PKCE, state and nonce,
ID token validation against the provider's keys, and asking again about a signed-in person (the
refresh grant, or the userinfo endpoint).

Every way this can fail raises `LoginError` with a sentence a person can act on; the web layer turns
it into a page that offers to try again.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import re
import secrets
import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import httpx
from authlib.integrations.base_client.errors import OAuthError

with warnings.catch_warnings():
    # authlib prefers the httpx2 package and falls back to httpx, which OnFile's stack fixes; the
    # fallback works, and saying so on every start only worries operators.
    warnings.filterwarnings("ignore", message="The httpx module is deprecated")
    from authlib.integrations.httpx_client import AsyncOAuth2Client
from authlib.oauth2.rfc6749.errors import OAuth2Error
from cryptography.fernet import Fernet, InvalidToken
from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from store import Actor
from store.domain.names import display_name
from web.kit.identity.roles import UnusableOrganisationError, actor_from_claims
from web.kit.identity.tokens import ProviderTokens

try:  # authlib's OAuth client runs on httpx2 wherever it is installed, and on httpx otherwise
    import httpx2

    _HTTP_ERRORS: tuple[type[Exception], ...] = (httpx.HTTPError, httpx2.HTTPError)
except ImportError:  # pragma: no cover - depends on what else is installed
    _HTTP_ERRORS = (httpx.HTTPError,)

__all__ = ("LoginError", "LoginTransaction", "OidcClient", "Person", "Reconfirmed", "TransactionSealer")

_DISCOVERY_TTL_S = 300
_LOGIN_TTL_S = 600
# Signing out asks whether the provider is there before sending the browser to it; a person waits for
# that answer, so it is not waited for long.
_SIGN_OUT_PROBE_S = 3
_UNREADABLE = "Your sign-in service answered with something OnFile cannot read."


class LoginError(Exception):
    """A login that cannot go on. `message` is for the person; `detail` for the log."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail


@dataclass(frozen=True, slots=True)
class LoginTransaction:
    """What the callback must match: kept sealed in a short-lived cookie, never in the URL."""

    state: str
    nonce: str
    code_verifier: str
    next_path: str


@dataclass(frozen=True, slots=True)
class Person:
    """Who logged in, as OnFile uses it. `name` is the ID token's `name` claim, else its
    `preferred_username`, else the person's id (never their email, which is no name and which the
    pages would then show to others), kept as `store.domain.names.display_name` keeps a name."""

    actor: Actor
    name: str
    email: str
    id_token: str
    tokens: ProviderTokens = field(default_factory=ProviderTokens)


@dataclass(frozen=True, slots=True)
class Reconfirmed:
    """What the provider says of a signed-in person when asked again: who they are now, the tokens to
    ask with next time, and a new ID token when it issued one."""

    actor: Actor
    tokens: ProviderTokens
    id_token: str | None


class TransactionSealer:
    """Encrypts and authenticates the login transaction with a key derived from the secret key, so it
    can live in a cookie and work on any worker."""

    def __init__(self, secret_key: str) -> None:
        key = hashlib.sha256(f"onfile-login:{secret_key}".encode()).digest()
        self._fernet = Fernet(base64.urlsafe_b64encode(key))

    def seal(self, transaction: LoginTransaction) -> str:
        payload = {
            "state": transaction.state,
            "nonce": transaction.nonce,
            "verifier": transaction.code_verifier,
            "next": transaction.next_path,
        }
        return self._fernet.encrypt(json.dumps(payload).encode()).decode()

    def unseal(self, sealed: str | None) -> LoginTransaction:
        if not sealed:
            raise LoginError("This sign-in started too long ago or in another browser.", "no login cookie")
        try:
            payload = json.loads(self._fernet.decrypt(sealed.encode(), ttl=_LOGIN_TTL_S))
        except (InvalidToken, ValueError) as error:
            raise LoginError("This sign-in started too long ago or in another browser.", repr(error)) from None
        return LoginTransaction(
            state=payload["state"],
            nonce=payload["nonce"],
            code_verifier=payload["verifier"],
            next_path=payload["next"],
        )


class OidcClient:
    """One provider, as a confidential client. Discovery and keys are cached; an ID token signed with a
    key the cache does not know makes it fetch the keys again once (the provider rotated them)."""

    def __init__(
        self,
        *,
        issuer: str,
        client_id: str,
        client_secret: str,
        redirect_uri: str,
        scopes: str,
        tenant_claim: str,
        roles_claim: str,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self.issuer = issuer.rstrip("/")
        self._client_id = client_id
        self._client_secret = client_secret
        self._redirect_uri = redirect_uri
        self._scopes = scopes
        self._tenant_claim = tenant_claim
        self._roles_claim = roles_claim
        self._http = http or httpx.AsyncClient(timeout=10)
        self._metadata: dict[str, Any] | None = None
        self._metadata_at = 0.0
        self._keys: KeySet | None = None

    async def aclose(self) -> None:
        await self._http.aclose()

    async def begin(self, next_path: str) -> tuple[str, LoginTransaction]:
        """The provider's authorization URL and the transaction the callback must match."""
        metadata = await self.metadata()
        transaction = LoginTransaction(
            state=secrets.token_urlsafe(24),
            nonce=secrets.token_urlsafe(24),
            code_verifier=secrets.token_urlsafe(48),
            next_path=next_path,
        )
        async with self._oauth() as client:
            url, _ = client.create_authorization_url(
                metadata["authorization_endpoint"],
                state=transaction.state,
                nonce=transaction.nonce,
                code_verifier=transaction.code_verifier,
            )
        return url, transaction

    async def complete(self, transaction: LoginTransaction, params: Mapping[str, str]) -> Person:
        """Check the callback against the transaction, exchange the code and validate the ID token. A
        refusal that carries a state is checked against it first: one that belongs to another sign-in is
        not this provider's answer (RFC 6749, 4.1.2.1). Some providers send a refusal without the state;
        it is said as a refusal, in OnFile's words or as a bare error code (`_provider_refused`)."""
        if params.get("error") and not params.get("state"):
            raise _provider_refused(params["error"], params.get("error_description", ""))
        if not params.get("state") or not secrets.compare_digest(params["state"], transaction.state):
            raise LoginError(
                "This sign-in response does not belong to the sign-in you started, so it was not used.",
                "state mismatch",
            )
        if params.get("error"):
            raise _provider_refused(params["error"], params.get("error_description", ""))
        code = params.get("code")
        if not code:
            raise LoginError("Your sign-in service sent no sign-in code back.", "callback without code")
        metadata = await self.metadata()
        try:
            async with self._oauth() as client:
                token = await client.fetch_token(
                    metadata["token_endpoint"], code=code, code_verifier=transaction.code_verifier
                )
        except (OAuth2Error, OAuthError) as error:
            raise LoginError(
                "Your sign-in service did not accept the sign-in code; it may have expired or been used already.",
                repr(error),
            ) from None
        except _HTTP_ERRORS as error:
            raise _unreachable(error) from None
        id_token = token.get("id_token")
        if not isinstance(id_token, str):
            raise LoginError("Your sign-in service did not say who you are (no ID token).", "no id_token")
        claims = await self._validated_claims(id_token, transaction.nonce)
        return self._person(claims, id_token, _tokens(token, ProviderTokens()))

    async def reconfirm(self, subject: str, tokens: ProviderTokens) -> Reconfirmed:
        """Ask the provider again who `subject` is: with the refresh token when there is one (a new ID
        token is validated like the first; without one, userinfo is asked with the new access token),
        otherwise at userinfo with the access token. Raises `LoginError` when the provider cannot be
        reached, refuses, or answers for someone else."""
        metadata = await self.metadata()
        id_token: str | None = None
        if tokens.refresh_token:
            try:
                async with self._oauth() as client:
                    token = await client.refresh_token(metadata["token_endpoint"], refresh_token=tokens.refresh_token)
            except (OAuth2Error, OAuthError) as error:
                raise LoginError("Your sign-in service no longer accepts this session.", repr(error)) from None
            except _HTTP_ERRORS as error:
                raise _unreachable(error) from None
            except ValueError as error:  # an answer that is not JSON: a proxy's error page, say
                raise LoginError(_UNREADABLE, repr(error)) from None
            tokens = _tokens(token, tokens)
            if isinstance(token.get("id_token"), str):
                id_token = token["id_token"]
        if id_token is not None:
            claims = await self._validated_claims(id_token, None)
        elif tokens.access_token:
            claims = await self._userinfo(metadata, tokens.access_token)
        else:
            raise LoginError("Your sign-in service gave this session nothing to ask again with.", "no tokens")
        if str(claims.get("sub", "")) != subject:
            raise LoginError("Your sign-in service answered for someone else.", f"sub {claims.get('sub')!r}")
        try:
            actor = actor_from_claims(claims, tenant_claim=self._tenant_claim, roles_claim=self._roles_claim)
        except UnusableOrganisationError as error:
            raise _organisation_refused(error) from None
        return Reconfirmed(actor=actor, tokens=tokens, id_token=id_token)

    async def end_session_url(self, id_token: str | None, post_logout_redirect_uri: str) -> str | None:
        """Where to send a person to end their session at the provider, when it advertises that and
        answers now: the discovery document is fetched afresh, so a provider that went down leaves the
        person on OnFile's own page rather than sending them to one that does not answer."""
        try:
            async with asyncio.timeout(_SIGN_OUT_PROBE_S):
                endpoint = (await self.metadata(fresh=True)).get("end_session_endpoint")
        except (LoginError, TimeoutError):
            return None
        if not endpoint:
            return None
        query = {"post_logout_redirect_uri": post_logout_redirect_uri, "client_id": self._client_id}
        if id_token:
            query["id_token_hint"] = id_token
        return f"{endpoint}{'&' if '?' in endpoint else '?'}{urlencode(query)}"

    async def metadata(self, *, fresh: bool = False) -> dict[str, Any]:
        """The provider's discovery document, cached for a few minutes (`fresh`: fetched now)."""
        if not fresh and self._metadata is not None and time.monotonic() - self._metadata_at < _DISCOVERY_TTL_S:
            return self._metadata
        document = await self._get_json(f"{self.issuer}/.well-known/openid-configuration")
        if str(document.get("issuer", "")).rstrip("/") != self.issuer:
            raise LoginError(
                "Your sign-in service is not configured the way OnFile expects.",
                f"discovery issuer {document.get('issuer')!r} is not {self.issuer!r}",
            )
        for needed in ("authorization_endpoint", "token_endpoint", "jwks_uri"):
            if not document.get(needed):
                raise LoginError("Your sign-in service is not configured the way OnFile expects.", f"no {needed}")
        self._metadata, self._metadata_at = document, time.monotonic()
        return document

    async def _keyset(self, *, refresh: bool) -> KeySet:
        if self._keys is None or refresh:
            document = await self._get_json((await self.metadata())["jwks_uri"])
            try:
                self._keys = KeySet.import_key_set(document)  # type: ignore[arg-type]
            except (JoseError, ValueError, KeyError, TypeError) as error:
                raise LoginError("Your sign-in service published keys OnFile cannot read.", repr(error)) from None
        return self._keys

    async def _validated_claims(self, id_token: str, nonce: str | None) -> dict[str, Any]:
        """The claims of a token this provider signed for this client, unexpired; at sign-in (`nonce`)
        for this sign-in. A token from a refresh carries no nonce of its own to check."""
        metadata = await self.metadata()
        algorithms = metadata.get("id_token_signing_alg_values_supported") or ["RS256"]
        algorithms = [a for a in algorithms if a != "none"]
        try:
            try:
                decoded = jwt.decode(id_token, await self._keyset(refresh=False), algorithms=algorithms)
            except JoseError:
                # Perhaps the provider rotated its keys since they were fetched: fetch once more.
                decoded = jwt.decode(id_token, await self._keyset(refresh=True), algorithms=algorithms)
            registry = jwt.JWTClaimsRegistry(
                leeway=60,
                # exactly the issuer the provider's discovery names, as OpenID Connect asks: some
                # providers (authentik) end it with a '/', which the configured issuer may not
                iss={"essential": True, "value": str(metadata["issuer"])},
                aud={"essential": True, "value": self._client_id},
                sub={"essential": True},
                exp={"essential": True},
            )
            if nonce is not None:
                registry.options["nonce"] = {"essential": True, "value": nonce}
            registry.validate(decoded.claims)
        except (JoseError, ValueError) as error:
            raise LoginError("Your sign-in could not be verified, so it was not used.", repr(error)) from None
        return dict(decoded.claims)

    async def _userinfo(self, metadata: Mapping[str, Any], access_token: str) -> dict[str, Any]:
        endpoint = metadata.get("userinfo_endpoint")
        if not endpoint:
            raise LoginError("Your sign-in service is not configured the way OnFile expects.", "no userinfo_endpoint")
        try:
            response = await self._http.get(endpoint, headers={"Authorization": f"Bearer {access_token}"})
        except httpx.HTTPError as error:
            raise _unreachable(error) from None
        if response.status_code in {401, 403}:
            raise LoginError("Your sign-in service no longer accepts this session.", f"userinfo {response.status_code}")
        return _json_document(response, endpoint)

    def _person(self, claims: Mapping[str, Any], id_token: str, tokens: ProviderTokens) -> Person:
        try:
            actor = actor_from_claims(claims, tenant_claim=self._tenant_claim, roles_claim=self._roles_claim)
        except UnusableOrganisationError as error:
            raise _organisation_refused(error) from None
        name = display_name(claims.get("name")) or display_name(claims.get("preferred_username")) or actor.id
        return Person(
            actor=actor,
            name=name,
            email=str(claims.get("email") or ""),
            id_token=id_token,
            tokens=tokens,
        )

    def _oauth(self) -> AsyncOAuth2Client:
        return AsyncOAuth2Client(
            client_id=self._client_id,
            client_secret=self._client_secret,
            scope=self._scopes,
            redirect_uri=self._redirect_uri,
            code_challenge_method="S256",
            timeout=10,
        )

    async def _get_json(self, url: str) -> dict[str, Any]:
        try:
            response = await self._http.get(url)
        except httpx.HTTPError as error:
            raise _unreachable(error) from None
        return _json_document(response, url)


def _json_document(response: httpx.Response, url: str) -> dict[str, Any]:
    try:
        response.raise_for_status()
        document = response.json()
    except httpx.HTTPError as error:
        raise _unreachable(error) from None
    except ValueError as error:
        raise LoginError(_UNREADABLE, repr(error)) from None
    if not isinstance(document, dict):
        raise LoginError(_UNREADABLE, url)
    return document


def _tokens(answer: Mapping[str, Any], before: ProviderTokens) -> ProviderTokens:
    """The tokens to keep from a token endpoint's answer: what it issued, else what was kept before (a
    refresh that issues no new refresh token leaves the old one in use)."""
    refresh, access = answer.get("refresh_token"), answer.get("access_token")
    return ProviderTokens(
        refresh_token=refresh if isinstance(refresh, str) else before.refresh_token,
        access_token=access if isinstance(access, str) else before.access_token,
    )


def _unreachable(error: Exception) -> LoginError:
    return LoginError(
        "OnFile could not reach your organisation's sign-in service. It may be down; try again in a moment.",
        repr(error),
    )


def _provider_refused(error: str, description: str) -> LoginError:
    if error in {"access_denied", "consent_required", "interaction_required", "login_required"}:
        return LoginError("The sign-in was cancelled or not allowed, so you are not signed in.", error)
    if _ERROR_CODE.fullmatch(error) is None:  # not an error code: not words to put on OnFile's page
        return LoginError("Your sign-in service refused the sign-in.", f"{error!r}: {description}")
    return LoginError(f"Your sign-in service refused the sign-in ({error}).", description)


_ERROR_CODE = re.compile(r"[a-z_]{1,64}")
"""What an OAuth error code looks like (`invalid_request`, `server_error`, …)."""


def _organisation_refused(error: UnusableOrganisationError) -> LoginError:
    return LoginError(
        "Your sign-in service names your organisation in a way OnFile cannot use (several values, or not plain "
        f"text), so you are not signed in. Ask whoever manages your sign-in to send one organisation in the "
        f"“{error.claim}” claim.",
        str(error),
    )
