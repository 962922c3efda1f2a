"""The view-models of the prompt preview (`/support/preview`): the form, and what the model would see.

The block is shown exactly as `store.admin.Administration.preview` rendered it — the same bytes the
agent API returns for the same person and text. Everything else here is that preview in words. People
are named by the names their logins gave (`names`, by id), with their ids.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from store import Actor, Author, own_scope
from store.admin import Preview
from store.domain.administration import LEFT_OUT_EXPLANATIONS, UNPIN_OR_RAISE, LeftOut, LeftOutReason
from web.kit.area import AreaView
from web.kit.area_words import organisation_name, role_words, scope_label
from web.kit.views import OptionView
from web.kit.words import person_name
from web.settings import Settings

__all__ = (
    "EntryLine",
    "FieldProblem",
    "LeftOutGroup",
    "LeftOutLine",
    "OverrideLine",
    "PreviewFormView",
    "PreviewPage",
    "PreviewResultView",
    "ScopeLine",
    "actor_words",
    "preview_form",
    "preview_result",
)


@dataclass(frozen=True, slots=True)
class FieldProblem:
    """What is wrong with the preview form, and the field it is about (`person`, `actor_id`,
    `thread_id` or `text`), where the page shows it."""

    field: str
    message: str


@dataclass(frozen=True, slots=True)
class PreviewFormView:
    people: tuple[OptionView, ...]
    """The people to choose from: their id, and `actor_words` of them."""
    person: str
    actor_id: str
    thread_id: str
    text: str
    everywhere: bool
    """Whether support answers for every organisation here (the list then holds everyone's people)."""
    more: bool
    """Whether more people could be previewed than the list holds (the most recently seen are listed)."""
    error: str
    error_field: str
    """The field the error is shown next to (its `name`), or "" when there is no error."""


@dataclass(frozen=True, slots=True)
class ScopeLine:
    position: int
    token: str
    words: str


@dataclass(frozen=True, slots=True)
class OverrideLine:
    scope: str
    held_for: str
    """Whom `scope` holds for, in words: "everyone at Berlin"."""
    text: str
    author: str


@dataclass(frozen=True, slots=True)
class EntryLine:
    key: str
    text: str
    scope: str
    held_for: str
    author: str
    pinned: bool
    overrides: tuple[OverrideLine, ...]


@dataclass(frozen=True, slots=True)
class LeftOutLine:
    key: str
    text: str
    scope: str
    held_for: str
    pinned: bool
    reason: str


@dataclass(frozen=True, slots=True)
class LeftOutGroup:
    """What was left out for one reason: open on the page when it is short enough to read at a glance."""

    reason: str
    title: str
    explanation: str
    lines: tuple[LeftOutLine, ...]

    @property
    def open(self) -> bool:
        return len(self.lines) <= LEFT_OUT_OPEN_AT_MOST


@dataclass(frozen=True, slots=True)
class PreviewResultView:
    actor: str
    memory_on: bool
    block: str
    chars: int
    tokens_estimate: int
    scopes: tuple[ScopeLine, ...]
    entries: tuple[EntryLine, ...]
    omitted: int
    pinned_omitted: int
    recalled: bool
    selection: str
    """How the entries were chosen, in one sentence."""
    left_out: tuple[LeftOutGroup, ...]
    """By reason: for space, then not relevant, then expired; only the reasons that occur."""
    pinned_warning: str

    @property
    def left_out_count(self) -> int:
        return sum(len(group.lines) for group in self.left_out)

    @property
    def expired(self) -> int:
        """What expired: on file, but no longer among what applies (so not among the `omitted`)."""
        return sum(len(group.lines) for group in self.left_out if group.reason == "expired")


@dataclass(frozen=True, slots=True)
class PreviewPage:
    area: AreaView
    form: PreviewFormView
    result: PreviewResultView | None = None


def actor_words(actor: Actor, settings: Settings, names: Mapping[str, str]) -> str:
    """`Ada Lovelace (ada) · Berlin · no OnFile role`."""
    tenant = organisation_name(actor.tenant_ref) if actor.tenant_ref else "no organisation"
    return f"{person_name(actor.id, names).text} · {tenant} · {role_words(actor.roles, settings)}"


def preview_form(
    people: Sequence[Actor],
    settings: Settings,
    *,
    names: Mapping[str, str],
    everywhere: bool = False,
    more: bool = False,
    person: str = "",
    actor_id: str = "",
    thread_id: str = "",
    text: str = "",
    problem: FieldProblem | None = None,
) -> PreviewFormView:
    return PreviewFormView(
        people=tuple(OptionView(p.id, actor_words(p, settings, names), p.id == person) for p in people),
        person=person,
        actor_id=actor_id,
        thread_id=thread_id,
        text=text,
        everywhere=everywhere,
        more=more,
        error=problem.message if problem else "",
        error_field=problem.field if problem else "",
    )


def _author(author: Author) -> str:
    return "a person" if author == "human" else "the assistant"


def _scope_words(scope: str, actor: Actor, names: Mapping[str, str]) -> str:
    if scope == own_scope(actor):
        return f"{person_name(actor.id, names).text} alone"
    return scope_label(scope, Actor(actor.id)).audience


LEFT_OUT_OPEN_AT_MOST = 20
_LEFT_OUT_TITLES: dict[LeftOutReason, str] = {
    "budget": "Left out for space",
    "relevance": "Not relevant to this turn's text",
    "expired": "Expired",
}


def _left_out_groups(left_out: Sequence[LeftOut], actor: Actor, names: Mapping[str, str]) -> tuple[LeftOutGroup, ...]:
    groups = []
    for reason, title in _LEFT_OUT_TITLES.items():
        lines = tuple(
            LeftOutLine(
                key=o.entry.key,
                text=o.entry.text,
                scope=o.entry.scope,
                held_for=_scope_words(o.entry.scope, actor, names),
                pinned=o.entry.pinned,
                reason=o.reason,
            )
            for o in left_out
            if o.reason == reason
        )
        if lines:
            groups.append(LeftOutGroup(reason, title, LEFT_OUT_EXPLANATIONS[reason], lines))
    return tuple(groups)


def preview_result(
    preview: Preview, settings: Settings, *, memory_on: bool, names: Mapping[str, str]
) -> PreviewResultView:
    digest, actor = preview.digest, preview.actor
    if digest.recalled:
        selection = (
            "Chosen by the message: ranked by its words and by their meaning, the block filled to the "
            "ceiling, and always-on facts added."
        )
    elif digest.omitted:
        selection = "Everything listed, then cut to the ceiling: always-on first, the widest and stalest dropped."
    else:
        selection = "Everything that applies fits: nothing was left out."
    dropped = digest.pinned_omitted
    return PreviewResultView(
        actor=actor_words(actor, settings, names),
        memory_on=memory_on,
        block=preview.block,
        chars=preview.chars,
        tokens_estimate=preview.tokens_estimate,
        scopes=tuple(ScopeLine(i, s, _scope_words(s, actor, names)) for i, s in enumerate(digest.scopes, start=1)),
        entries=tuple(
            EntryLine(
                key=e.key,
                text=e.text,
                scope=e.scope,
                held_for=_scope_words(e.scope, actor, names),
                author=_author(e.author),
                pinned=e.pinned,
                overrides=tuple(
                    OverrideLine(o.scope, _scope_words(o.scope, actor, names), o.text, _author(o.author))
                    for o in e.overrides
                ),
            )
            for e in digest.entries
        ),
        omitted=digest.omitted,
        pinned_omitted=dropped,
        recalled=digest.recalled,
        selection=selection,
        left_out=_left_out_groups(preview.left_out, actor, names),
        pinned_warning=(
            f"{dropped:,} always-on {'fact was' if dropped == 1 else 'facts were'} dropped from this block: more "
            f"keys are pinned for {names.get(actor.id, actor.id)} than a prompt carries ({settings.max_memories:,}). "
            f"The organisation's standing policies are not all reaching the assistant. {UNPIN_OR_RAISE}"
            if dropped
            else ""
        ),
    )
