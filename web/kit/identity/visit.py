"""The `visit` dependency: who a dashboard request is for and what they may do here, in one value.

The services, the signed-in viewer and their elevation are each resolved once a request by their own
dependencies; a handler asks for the `visit` and hands it on, so no handler or helper of the dashboard
lists the three again. Under a part of the elevated area, `elevation` is that part's requirement
(`web.kit.identity.elevation`), so the visit a handler gets is already past it.
"""

from __future__ import annotations

from dataclasses import dataclass

from litestar.di import NamedDependency

from web.kit.identity.elevation import Elevation
from web.kit.identity.sessions import Viewer
from web.services import Services

__all__ = ("Visit", "provide_visit")


@dataclass(frozen=True, slots=True)
class Visit:
    """A signed-in person's request: the services it is answered with, the viewer and their elevation."""

    services: Services
    viewer: Viewer
    elevation: Elevation


async def provide_visit(
    services: NamedDependency[Services], viewer: NamedDependency[Viewer], elevation: NamedDependency[Elevation]
) -> Visit:
    return Visit(services, viewer, elevation)
