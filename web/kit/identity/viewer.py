"""The `viewer` dependency: who the request is for, or a login first."""

from __future__ import annotations

from typing import Any

from litestar import Request
from litestar.datastructures import State
from litestar.di import NamedDependency

from web.kit.errors import LoginRequiredError
from web.kit.identity.oidc import OidcClient
from web.kit.identity.sessions import SESSION_COOKIE, Viewer, load_viewer
from web.services import Services

__all__ = ("provide_viewer",)


async def provide_viewer(
    request: Request[Any, Any, State], services: NamedDependency[Services], oidc: NamedDependency[OidcClient]
) -> Viewer:
    """Once a request: the session's viewer, their roles asked for again at the provider when due."""
    viewer = await load_viewer(services, request.cookies.get(SESSION_COOKIE), provider=oidc)
    if viewer is None:
        raise LoginRequiredError
    return viewer
