"""The identity provider's tokens a session keeps to ask about the person again, and how they are kept:
encrypted and authenticated with a key derived from the secret key, never as issued.

A refresh token is a credential: whoever holds it can ask the provider for the person's tokens. So
the database (and every backup of it) holds them only sealed; a changed secret key leaves them
unreadable, and the session ends at its next role recheck: the person signs in again.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass

from cryptography.fernet import Fernet, InvalidToken

__all__ = ("ProviderTokens", "TokenSealer")


@dataclass(frozen=True, slots=True)
class ProviderTokens:
    """What the provider issued at sign-in or at the last refresh. Either may be missing: a provider
    that issues no refresh token is asked through its userinfo endpoint, for as long as the access
    token lasts."""

    refresh_token: str | None = None
    access_token: str | None = None


class TokenSealer:
    def __init__(self, secret_key: str) -> None:
        key = hashlib.sha256(f"onfile-session-tokens:{secret_key}".encode()).digest()
        self._fernet = Fernet(base64.urlsafe_b64encode(key))

    def seal(self, tokens: ProviderTokens) -> str:
        payload = {"refresh": tokens.refresh_token, "access": tokens.access_token}
        return self._fernet.encrypt(json.dumps(payload).encode()).decode()

    def opens(self, sealed: object) -> bool:
        """Whether `sealed` is missing (a session that never kept tokens) or sealed under this key: false
        for tokens sealed under another secret key, or tampered with."""
        if sealed is None:
            return True
        try:
            self._fernet.decrypt(str(sealed).encode())
        except InvalidToken:
            return False
        return True

    def unseal(self, sealed: object) -> ProviderTokens:
        """The tokens, or none when `sealed` is missing, forged, or sealed under another secret key."""
        if not isinstance(sealed, str):
            return ProviderTokens()
        try:
            payload = json.loads(self._fernet.decrypt(sealed.encode()))
        except (InvalidToken, ValueError):
            return ProviderTokens()
        if not isinstance(payload, dict):
            return ProviderTokens()
        refresh, access = payload.get("refresh"), payload.get("access")
        return ProviderTokens(
            refresh_token=refresh if isinstance(refresh, str) else None,
            access_token=access if isinstance(access, str) else None,
        )
