"""The application for `uvicorn --factory web.asgi:app`, with settings from the environment and `.env`.
Every worker builds its own from the same settings, so several workers share nothing but the database."""

from __future__ import annotations

from litestar import Litestar

from web.app import create_app
from web.demo.sign_in import demo_sign_in_for
from web.settings import Settings

__all__ = ("app",)


def app() -> Litestar:
    settings = Settings.load()
    return create_app(settings, demo_sign_in=demo_sign_in_for(settings), serving=True)
