"""Plain words for the elevated area: scopes as administrators read them, roles, and audit actions.

An administrator still reads a scope in words first ("Everyone in your organisation"); the token
(`tenant:berlin`) is shown beside it, because it is what the JSON endpoints and the audit trail use.
"""

from __future__ import annotations

from dataclasses import dataclass

from store import GLOBAL_SCOPE, Actor
from web.kit.words import scope_words
from web.settings import Settings

__all__ = ("ScopeLabel", "action_words", "role_words", "scope_label", "scope_slug")

_ACTIONS = {
    "write": "Published",
    "edit": "Edited",
    "delete": "Deleted",
    "pin": "Made always on",
    "unpin": "No longer always on",
    "promote": "Promoted",
    "preview": "Previewed a prompt",
    "erase": "Erased a person",
    "move": "Moved a person between organisations",
    "approval": "Changed whether people approve what the assistant concludes",
}


@dataclass(frozen=True, slots=True)
class ScopeLabel:
    token: str
    name: str
    """Who a fact here applies to, as a heading: "Everyone in your organisation"."""
    audience: str
    """The same in running text: "everyone in your organisation"."""


def scope_label(scope: str, actor: Actor) -> ScopeLabel:
    """`scope` named for `actor`. A tenant that is not the actor's own (a deployment's gate may let
    someone administer several) is named by its reference."""
    kind, _, value = scope.partition(":")
    if kind == "tenant" and value != actor.tenant_ref:
        audience = f"everyone in the organisation “{value}”"
    elif scope == GLOBAL_SCOPE:
        audience = "everyone, in every organisation"
    else:
        audience = scope_words(scope, actor).held_for
    return ScopeLabel(token=scope, name=audience[:1].upper() + audience[1:], audience=audience)


def scope_slug(scope: str) -> str:
    """A scope token as an element id and a CSS-safe name: `tenant:berlin` → `tenant-berlin`."""
    cleaned = "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in scope.lower()).strip("-")
    return cleaned or "scope"


def role_words(roles: tuple[str, ...], settings: Settings) -> str:
    """A person's roles as the preview's person picker shows them."""
    named = {
        settings.admin_role: "administers their organisation",
        settings.global_admin_role: "administers what holds for everyone",
        settings.support_role: "support",
    }
    if not roles:
        return "no roles"
    return "; ".join(f"{named[r]} ({r})" if r in named else r for r in roles)


def action_words(action: str) -> str:
    return _ACTIONS.get(action, action)
