"""What the gate lets a signed-in person do beyond their own page: administer scopes, preview prompts.

Whether a person administers anything, or may preview prompts, is `store.admin`'s answer (through the
deployment's gate); this module only asks, once a request: the `elevation` dependency
(`provide_elevation`) is resolved before the handler and handed to it, and to whatever it calls.
Every audience asks it: the personal page (for the way into the elevated area, and for publishing
one's own notes), the elevated area and support.
"""

from __future__ import annotations

from dataclasses import dataclass

from litestar.di import NamedDependency

from web.kit.identity.sessions import Viewer
from web.services import Services

__all__ = ("ROLES_UNCONFIRMED", "Elevation", "elevation_of", "provide_elevation")

ROLES_UNCONFIRMED = (
    "Your organisation's sign-in service could not confirm your roles just now, so nothing administrative "
    "was done. Your own page still works; try again in a few minutes."
)
"""The refusal of every elevated act while the identity provider cannot confirm the person's roles."""


@dataclass(frozen=True, slots=True)
class Elevation:
    """What the gate lets a person do here: the scopes they administer (narrowest first) and whether
    they may preview prompts. `roles_unconfirmed`: nothing, because the identity provider could not
    confirm their roles at the session's last recheck."""

    scopes: tuple[str, ...]
    may_preview: bool
    roles_unconfirmed: bool = False

    @property
    def administers(self) -> bool:
        return bool(self.scopes)


async def elevation_of(services: Services, viewer: Viewer) -> Elevation:
    """The gate's answer for the viewer; nothing at all while their roles are unconfirmed, whatever a
    deployment's own gate would say of the person."""
    if not viewer.roles_confirmed:
        return Elevation(scopes=(), may_preview=False, roles_unconfirmed=True)
    admin, actor = services.admin, viewer.actor
    return Elevation(scopes=await admin.administered_scopes(actor), may_preview=await admin.may_preview(actor))


async def provide_elevation(services: NamedDependency[Services], viewer: NamedDependency[Viewer]) -> Elevation:
    """Once a request: the viewer's elevation (the scopes they administer, whether they may preview),
    for every handler that shows or uses it."""
    return await elevation_of(services, viewer)
