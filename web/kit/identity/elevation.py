"""What the gate lets a signed-in person do beyond their own page: administer scopes, preview prompts.

Whether a person administers anything, or may preview prompts, is `store.admin`'s answer (through the
deployment's gate); this module only asks, once a request: the `elevation` dependency is resolved
before the handler and handed to it, and to whatever it calls. Every audience asks it: the personal
page (for the way into the elevated area, and for publishing one's own notes), the elevated area and
support.

A part of the area says once what it needs by providing `elevation` with its requirement
(`administrators_only`, `support_staff_only`) on its router: someone without it is refused with
`NotElevatedError` before any handler of that part runs, and one exception handler answers the
refusal — a page (`web.kit.area`) or `{"error"}` (`web.kit.session_api`). No handler checks for itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from litestar.di import NamedDependency

from web.kit.identity.sessions import Viewer
from web.services import Services

__all__ = (
    "ROLES_UNCONFIRMED",
    "Elevation",
    "Need",
    "NotElevatedError",
    "administrators_only",
    "confirmed_roles_only",
    "provide_elevation",
    "support_staff_only",
)

ROLES_UNCONFIRMED = (
    "Your organisation's sign-in service could not confirm your roles just now, so nothing administrative "
    "was done. Your own page still works; try again in a few minutes."
)
"""The refusal of every elevated act while the identity provider cannot confirm the person's roles."""

Need = Literal["administer", "preview"]
"""What a part of the elevated area needs: to administer a scope (shared facts, the audit trail,
people), or to preview prompts (support)."""


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


class NotElevatedError(Exception):
    """`viewer` may not use a part of the elevated area that needs to `need`; `elevation` is what they
    may do instead (the refusal page offers it)."""

    def __init__(self, need: Need, viewer: Viewer, elevation: Elevation) -> None:
        super().__init__(f"{viewer.actor.id} may not {need} here")
        self.need: Need = need
        self.viewer = viewer
        self.elevation = elevation


async def _elevation_of(services: Services, viewer: Viewer) -> Elevation:
    """The gate's answer for the viewer; nothing at all while their roles are unconfirmed, whatever a
    deployment's own gate would say of the person."""
    if not viewer.roles_confirmed:
        return Elevation(scopes=(), may_preview=False, roles_unconfirmed=True)
    admin, actor = services.admin, viewer.actor
    return Elevation(scopes=await admin.administered_scopes(actor), may_preview=await admin.may_preview(actor))


async def provide_elevation(services: NamedDependency[Services], viewer: NamedDependency[Viewer]) -> Elevation:
    """Once a request: the viewer's elevation (the scopes they administer, whether they may preview),
    for every handler that shows or uses it."""
    return await _elevation_of(services, viewer)


async def administrators_only(services: NamedDependency[Services], viewer: NamedDependency[Viewer]) -> Elevation:
    """The `elevation` of a part for administrators: someone who administers no scope is refused."""
    elevation = await _elevation_of(services, viewer)
    if not elevation.administers:
        raise NotElevatedError("administer", viewer, elevation)
    return elevation


async def support_staff_only(services: NamedDependency[Services], viewer: NamedDependency[Viewer]) -> Elevation:
    """The `elevation` of support's part: someone who may not preview prompts is refused."""
    elevation = await _elevation_of(services, viewer)
    if not elevation.may_preview:
        raise NotElevatedError("preview", viewer, elevation)
    return elevation


async def confirmed_roles_only(services: NamedDependency[Services], viewer: NamedDependency[Viewer]) -> Elevation:
    """The `elevation` of an act of the administrators' part that the store's verdict refuses in its own
    words (publishing through the API names the scope the person does not administer): only someone
    whose roles could not be confirmed is refused before it, since the verdict would not say why."""
    elevation = await _elevation_of(services, viewer)
    if elevation.roles_unconfirmed:
        raise NotElevatedError("administer", viewer, elevation)
    return elevation
