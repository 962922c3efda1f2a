"""Data sealed for one session and one purpose: encrypted and authenticated with a key derived from the
secret key, the session and the purpose.

The browser carries it (in a cookie, a form, an address) and the server stores nothing: it cannot be
read there (it may hold a fact the person just forgot), forged, or replayed from another session or for
another purpose, and it opens only for as long as its purpose allows.
"""

from __future__ import annotations

import base64
import hashlib
import json
from datetime import datetime
from typing import Any

from cryptography.fernet import Fernet, InvalidToken

__all__ = ("seal", "unseal")


def seal(secret: str, session_id: str, purpose: str, data: dict[str, Any], now: datetime) -> str:
    return (
        _fernet(secret, session_id, purpose).encrypt_at_time(json.dumps(data).encode(), int(now.timestamp())).decode()
    )


def unseal(
    secret: str, session_id: str, purpose: str, token: str, now: datetime, *, seconds: int
) -> dict[str, Any] | None:
    """The sealed data, or None when the token is malformed, forged, for another session or purpose,
    or sealed more than `seconds` ago (or more than a minute ahead of `now`)."""
    try:
        plain = _fernet(secret, session_id, purpose).decrypt_at_time(
            token.encode(), ttl=seconds, current_time=int(now.timestamp())
        )
        data = json.loads(plain)
    except (InvalidToken, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _fernet(secret: str, session_id: str, purpose: str) -> Fernet:
    """Encryption and authentication with a key for this secret, session and purpose: a token may hold
    a forgotten fact, which must not be readable in the browser's cookie or page source, and opens
    only for the session it was made for."""
    key = hashlib.sha256(f"onfile-{purpose}\0{session_id}\0{secret}".encode()).digest()
    return Fernet(base64.urlsafe_b64encode(key))
