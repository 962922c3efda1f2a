"""Plain words for the elevated area: whom a fact applies to, roles, and audit actions.

People read whom a fact applies to in words ("Everyone in your organisation", "Everyone at Berlin"),
never as the token the JSON endpoints use (`tenant:berlin`), and a role by what it lets them do
("administrator", "support"), never as the identity provider's role string.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from store import GLOBAL_SCOPE, Actor
from web.kit.words import scope_words, shared_scope_name
from web.settings import Settings

__all__ = (
    "ScopeLabel",
    "action_words",
    "not_administered_words",
    "organisation_name",
    "role_words",
    "scope_label",
    "scope_slug",
)

_ACTIONS = {
    "write": "Published",
    "edit": "Edited",
    "import": "Imported from their own file",
    "delete": "Deleted",
    "pin": "Made always on",
    "unpin": "No longer always on",
    "promote": "Promoted",
    "preview": "Previewed a prompt",
    "erase": "Erased a person",
    "erase-refused": "Tried to erase a person, and was refused",
    "move": "Moved a person between organisations",
    "approval": "Changed whether people approve what the assistant concludes",
    "lifetime": "Changed how long what the assistant concludes is kept",
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
        audience = f"everyone at {organisation_name(value)}"
    elif scope == GLOBAL_SCOPE:
        audience = "everyone, in every organisation"
    elif kind not in {"tenant", "actor"}:  # a scope the deployment minted: named, never "your"
        audience = f"everyone in {shared_scope_name(scope, whose='the')}"
    else:
        audience = scope_words(scope, actor).held_for
    return ScopeLabel(token=scope, name=audience[:1].upper() + audience[1:], audience=audience)


def not_administered_words(scope: str, actor: Actor) -> str:
    """Why nothing was published at `scope`, in the area's words: the store's reason names scope
    tokens and ids, which the JSON API answers and a page never shows."""
    kind, _, value = scope.partition(":")
    if scope != GLOBAL_SCOPE and not _SCOPE_TOKEN.fullmatch(scope):  # nothing the page offers
        return "That is not one of the groups this page offers, so nothing was published. Choose one from the list."
    if kind == "actor" and value == actor.id:
        return "Your own notes are written by your assistant and kept on your own page: nothing was published."
    if kind == "actor":
        return "That is one person's own place: only their assistant writes there. Nothing was published."
    audience = scope_label(scope, actor).audience
    return f"You do not administer what applies to {audience}, so nothing was published there."


_SCOPE_TOKEN = re.compile(r"[a-z][a-z0-9_-]{0,30}:[^\s:]{1,200}")


def scope_slug(scope: str) -> str:
    """A scope token as an element id and a CSS-safe name: `tenant:berlin` → `tenant-berlin`."""
    cleaned = "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in scope.lower()).strip("-")
    return cleaned or "scope"


def organisation_name(tenant_ref: str) -> str:
    """An organisation as a page names it: its reference, capitalised (`berlin` → "Berlin")."""
    return tenant_ref[:1].upper() + tenant_ref[1:]


def role_words(roles: tuple[str, ...], settings: Settings) -> str:
    """What a person's roles let them do here, in words ("administrator", "support"): the roles OnFile
    does not use are left out, and someone with none of its roles has "no OnFile role"."""
    named = {
        settings.admin_role: "administrator",
        settings.global_admin_role: "administrator for everyone",
        settings.support_role: "support",
    }
    words = list(dict.fromkeys(named[r] for r in roles if r in named))
    return ", ".join(words) if words else "no OnFile role"


def action_words(action: str) -> str:
    return _ACTIONS.get(action, action)
