"""The dashboard and its APIs as one Litestar application: `create_app(settings)`."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

from jinja2 import StrictUndefined
from litestar import Litestar, MediaType, Request, Response, get, route
from litestar.datastructures import CacheControlHeader, State
from litestar.di import NamedDependency, Provide
from litestar.exceptions import NotFoundException
from litestar.logging import LoggingConfig
from litestar.openapi import OpenAPIConfig
from litestar.openapi.spec import Components
from litestar.plugins.htmx import HTMXPlugin, HTMXRequest
from litestar.plugins.jinja import JinjaTemplateEngine
from litestar.static_files import create_static_files_router
from litestar.template import TemplateConfig

from store.domain.scopes import ScopeResolverError
from store.persistence.outage import DATABASE_ERROR_TYPES
from web.admin.api import admin_api_router
from web.admin.routes import admin_pages_router
from web.agent.api import agent_router, bearer_scheme
from web.auth.demo_sign_in import DemoSignIn, require_demo_sign_in_matches
from web.auth.routes import callback, login, logout, signed_out
from web.housekeeping import pruning_every
from web.kit.area import not_elevated_page
from web.kit.errors import (
    LoginRequiredError,
    bad_request_handler,
    csrf_refusal,
    database_error_handler,
    internal_error_handler,
    log_failure,
    login_required_handler,
    method_not_allowed_handler,
    not_found_handler,
)
from web.kit.identity.elevation import NotElevatedError, provide_elevation
from web.kit.identity.oidc import OidcClient, TransactionSealer
from web.kit.identity.viewer import viewer_provider
from web.kit.identity.visit import provide_visit
from web.kit.json_bodies import log_refused_body, refuse_unfit_body
from web.kit.security import (
    bearer_presented,
    csrf_refused,
    refuse_control_characters,
    refuse_split_ids,
    request_path,
    security_headers,
    security_headers_hook,
)
from web.kit.session_api import csrf_scheme, session_scheme
from web.kit.words import shown_as_read
from web.me.chosen import confirm_forget_chosen, correct_memory, edit_memory, forget_chosen
from web.me.importing import apply_import, import_page, preview_import
from web.me.looked import looked_csv, looked_json, who_looked
from web.me.mine import (
    confirm_forget_all,
    export_csv,
    export_json,
    forget_all,
    forget_all_done,
    receipt_json,
    receipt_page,
)
from web.me.pages import (
    confirm_promotion,
    forget_on_page,
    keep_on_page,
    memories,
    memory_row,
    promote_on_page,
    returning,
    undo_forget,
)
from web.me.readback import delete_memory, list_memories
from web.me.waiting import pause_memory, settle_waiting, waiting_api, waiting_page
from web.openapi_document import REQUEST_BODIES, SCHEMA_PATH, ExactBodiesJsonRenderPlugin, names_nothing_in_the_schema
from web.services import PRUNE_EVERY, Services, open_services
from web.settings import Settings
from web.support.preview import support_router

__all__ = ("PROJECT_ROOT", "create_app")

PROJECT_ROOT = Path(__file__).resolve().parent.parent
OPERATOR_CHALLENGE = 'Bearer realm="onfile-operator"'


@route("/healthz", http_method=["GET", "HEAD"], name="healthz", include_in_schema=False)
async def healthz() -> dict[str, str]:
    """The process is up (a liveness probe). HEAD answers the same status and headers, with no body."""
    return {"status": "ok"}


@route(
    "/readyz",
    http_method=["GET", "HEAD"],
    name="readyz",
    include_in_schema=False,
    cache_control=CacheControlHeader(no_store=True),
)
async def readyz(services: NamedDependency[Services]) -> dict[str, str]:
    """Whether this process can answer turns: it reads from the database once (a 503 with the
    outage's words when it cannot). `/healthz` only says the process is up. HEAD: the same, no body."""
    await services.people.recent(limit=1)
    return {"status": "ready"}


@get("/metrics", name="metrics", media_type="text/plain; version=0.0.4", include_in_schema=False)
async def metrics(services: NamedDependency[Services]) -> str:
    """Memory's diagnostics as Prometheus counters (this process's): never a key or a fact."""
    return services.metrics.render()


def operators_only(request: Request[Any, Any, State], settings: Settings) -> bool:
    """Whether `request` is for what `ONFILE_OPERATOR_TOKENS` closes (the metrics and the API document)
    and lacks one of those tokens. Open to everyone while no token is set."""
    tokens = settings.operator_token_list
    path = request_path(request)
    closed = path == "/metrics" or path == SCHEMA_PATH or path.startswith(f"{SCHEMA_PATH}/")
    return bool(tokens) and closed and not bearer_presented(request.scope["headers"], tokens)


def settle_startup_objects() -> None:
    """Set aside everything alive once the service has started — modules, the embedding model, the
    routes, the compiled statements — from the garbage collector's full passes (`gc.freeze`).

    Those objects live as long as the process and are never garbage, yet each full collection would
    walk all of them (some 170,000): about 80 ms once every few thousand requests, a sixth of a
    replay's time on average and a stall for whichever request it falls on. Objects made afterwards are
    collected as before. Only a server process does this: a process that builds many applications
    (a test run) would set aside each one's garbage with them."""
    gc.collect()
    gc.freeze()


def _lifespan(
    settings: Settings, services: Services | None, oidc: OidcClient, *, serving: bool
) -> Callable[[Litestar], AbstractAsyncContextManager[None]]:
    """Open the services (unless handed ready ones), prune in the background, and close it all on stop."""

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        app.state.services = services or await open_services(settings)
        if serving:
            settle_startup_objects()
        try:
            async with pruning_every(app.state.services, PRUNE_EVERY):
                yield
        finally:
            await oidc.aclose()
            if services is None:
                await app.state.services.close()

    return lifespan


def create_app(
    settings: Settings,
    *,
    services: Services | None = None,
    demo_sign_in: DemoSignIn | None = None,
    serving: bool = False,
) -> Litestar:
    """The application. It opens its own services (database, repositories) on start and closes them on
    stop, unless the caller hands it ready ones (tests), which the caller then closes. `demo_sign_in`,
    the demo's people and its provider's form, is given exactly when `settings.demo_sign_in` is on.
    `serving`: the application is a server process's, which lives as long as the process, and sets its
    startup objects aside from the garbage collector once started (`settle_startup_objects`)."""
    settings.require_server_settings()
    require_demo_sign_in_matches(settings, demo_sign_in)
    if services is not None and services.settings != settings:
        msg = "create_app: the services were opened with other settings than the application's"
        raise ValueError(msg)
    oidc = OidcClient(
        issuer=settings.oidc_issuer,
        client_id=settings.oidc_client_id,
        client_secret=settings.oidc_client_secret,
        redirect_uri=f"{settings.base_url}/auth/callback",
        scopes=settings.oidc_scopes,
        tenant_claim=settings.oidc_tenant_claim,
        roles_claim=settings.oidc_roles_claim,
    )
    sealer = TransactionSealer(settings.secret_key)
    headers = security_headers(settings)

    def provide_services(state: State) -> Services:
        return state.services  # type: ignore[no-any-return]

    async def before_request(request: Request[Any, Any, State]) -> Response[Any] | None:
        refuse_control_characters(request)
        refuse_split_ids(request)
        if operators_only(request, settings):
            reason = (
                f"{request.url.path} is for this server's operators: present one of ONFILE_OPERATOR_TOKENS as "
                "Authorization: Bearer <token>."
            )
            challenge = {"WWW-Authenticate": OPERATOR_CHALLENGE}
            return Response({"error": reason}, status_code=401, headers=challenge, media_type=MediaType.JSON)
        if names_nothing_in_the_schema(request):
            raise NotFoundException
        if await csrf_refused(request, settings):
            return csrf_refusal(request)
        await refuse_unfit_body(request)
        return None

    def configure_jinja(engine: JinjaTemplateEngine) -> None:
        engine.engine.undefined = StrictUndefined
        engine.engine.finalize = shown_as_read
        # Templates are read once per process: a page includes its entry's template once per entry,
        # and checking each file's time on every include costs a page a few hundred stat calls.
        engine.engine.auto_reload = False

    return Litestar(
        route_handlers=[
            healthz,
            readyz,
            login,
            callback,
            logout,
            signed_out,
            list_memories,
            delete_memory,
            memories,
            forget_on_page,
            keep_on_page,
            import_page,
            preview_import,
            apply_import,
            undo_forget,
            confirm_forget_chosen,
            forget_chosen,
            edit_memory,
            correct_memory,
            export_json,
            export_csv,
            confirm_forget_all,
            forget_all,
            forget_all_done,
            receipt_page,
            receipt_json,
            confirm_promotion,
            promote_on_page,
            memory_row,
            who_looked,
            looked_csv,
            looked_json,
            pause_memory,
            waiting_page,
            settle_waiting,
            waiting_api,
            admin_pages_router,
            admin_api_router,
            support_router,
            agent_router,
            metrics,
            create_static_files_router(path="/static", directories=[PROJECT_ROOT / "static"], name="static"),
        ],
        dependencies={
            "services": Provide(provide_services, sync_to_thread=False),
            "oidc": Provide(lambda: oidc, sync_to_thread=False),
            "sealer": Provide(lambda: sealer, sync_to_thread=False),
            "demo_sign_in": Provide(lambda: demo_sign_in, sync_to_thread=False),
            "viewer": Provide(viewer_provider(oidc)),
            "elevation": Provide(provide_elevation),
            "visit": Provide(provide_visit),
            "returning": Provide(returning),
        },
        lifespan=[_lifespan(settings, services, oidc, serving=serving)],
        before_request=before_request,
        after_exception=[log_refused_body],
        before_send=[security_headers_hook(headers)],
        exception_handlers={
            LoginRequiredError: login_required_handler,
            # A part of the elevated area refusing someone: its 403 page (the JSON APIs answer their own).
            NotElevatedError: not_elevated_page,
            # People meet an unknown address or a form's target as a page; the JSON routes keep JSON.
            400: bad_request_handler,
            404: not_found_handler,
            405: method_not_allowed_handler,
            # A database outage is a 503 saying so, and service resumes when the database is back.
            **dict.fromkeys(DATABASE_ERROR_TYPES, database_error_handler),
            # Anything else that fails: logged, and said in OnFile's words (a failing scope resolver as such).
            ScopeResolverError: internal_error_handler,
            500: internal_error_handler,
        },
        request_class=HTMXRequest,
        plugins=[HTMXPlugin()],
        template_config=TemplateConfig(
            directory=PROJECT_ROOT / "templates", engine=JinjaTemplateEngine, engine_callback=configure_jinja
        ),
        openapi_config=OpenAPIConfig(
            title="OnFile",
            version="0.1.0",
            description="What an AI assistant has on file about people, and the people's own view of it.",
            path=SCHEMA_PATH,
            render_plugins=[ExactBodiesJsonRenderPlugin(REQUEST_BODIES)],
            components=Components(
                security_schemes={
                    "agentToken": bearer_scheme,
                    "dashboardSession": session_scheme,
                    "csrfToken": csrf_scheme,
                }
            ),
        ),
        # Tracebacks for real failures; a login that is needed, a 404 or a refusal is not one (a refused
        # body is one warning line, `log_refused_body`). Lines
        # go straight to the console handler, as uvicorn's access lines do: through Litestar's
        # default queue, every digest's log line would wake a listener thread, a thread handoff that
        # costs a new run more than writing the line.
        logging_config=LoggingConfig(
            log_exceptions="always",
            exception_logging_handler=log_failure,
            disable_stack_trace={LoginRequiredError, NotElevatedError, 400, 401, 403, 404, 405, 409, 410, 413, 415},
            root={"handlers": ["console"], "level": "INFO"},
            loggers={"litestar": {"level": "INFO", "handlers": ["console"], "propagate": False}},
        ),
    )
