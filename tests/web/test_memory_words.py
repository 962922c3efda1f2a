"""The page's pure parts, table-driven: plain words, conversation links, the query, its order and pages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from store import Actor, MemoryOrigin
from store.persistence.registry import Origin
from tests.web.builders import make_record
from web.kit.words import author_kind, exact_time, relative_time, scope_words
from web.me.listing import PAGE_SIZE, MemoryQuery, select_entries
from web.me.on_file import OnFile, on_file_of
from web.me.views import conversation_link

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
ADA = Actor(id="ada", tenant_ref="berlin")


@pytest.mark.parametrize(
    ("elapsed", "words"),
    [
        (timedelta(seconds=-30), "just now"),
        (timedelta(seconds=59), "just now"),
        (timedelta(minutes=1), "a minute ago"),
        (timedelta(minutes=59), "59 minutes ago"),
        (timedelta(hours=1), "an hour ago"),
        (timedelta(hours=23, minutes=59), "23 hours ago"),
        (timedelta(days=1, hours=3), "yesterday"),
        (timedelta(days=3), "3 days ago"),
        (timedelta(days=30), "30 days ago"),
        (timedelta(days=45), "a month ago"),
        (timedelta(days=364), "12 months ago"),
        (timedelta(days=365), "a year ago"),
        (timedelta(days=800), "2 years ago"),
    ],
)
def test_relative_time_names_the_largest_whole_unit(elapsed: timedelta, words: str) -> None:
    assert relative_time(NOW - elapsed, NOW) == words


def test_the_exact_time_is_written_out_in_utc() -> None:
    berlin = datetime(2026, 9, 1, 11, 12, tzinfo=UTC).astimezone(ZoneInfo("Europe/Berlin"))

    assert exact_time(berlin) == "1 September 2026, 11:12 UTC"


@pytest.mark.parametrize(
    ("scope", "kind", "slug", "heading"),
    [
        ("actor:ada", "own", "you", "What you or your assistant noted about you"),
        ("tenant:berlin", "organisation", "organisation", "What your organisation holds"),
        ("global", "everyone", "everyone", "What holds for everyone"),
        ("depot:north", "shared", "shared-depot-north", "What your depot “north” holds"),
        ("cost_centre:4711", "shared", "shared-cost-centre-4711", "What your cost centre “4711” holds"),
        ("team", "shared", "shared-team", "What your team holds"),
        ("actor:bob", "shared", "shared-actor-bob", "What your actor “bob” holds"),
    ],
)
def test_every_scope_is_named_in_plain_words(scope: str, kind: str, slug: str, heading: str) -> None:
    words = scope_words(scope, ADA)

    assert (words.kind, words.slug, words.heading) == (kind, slug, heading)


@pytest.mark.parametrize(
    ("author", "scope", "actor_ref", "kind"),
    [
        ("agent", "actor:ada", "ada", "assistant"),
        ("agent", "tenant:berlin", None, "assistant"),
        ("human", "actor:ada", "ada", "you"),
        ("human", "actor:ada", None, "you"),
        ("human", "actor:ada", "lena", "administrator"),
        ("human", "tenant:berlin", "ada", "administrator"),
        ("human", "global", None, "administrator"),
    ],
)
def test_who_wrote_an_entry_follows_its_author_and_its_scope(
    author: str, scope: str, actor_ref: str | None, kind: str
) -> None:
    origin = MemoryOrigin(author="human" if author == "human" else "agent", actor_ref=actor_ref)

    assert author_kind(origin, scope, ADA) == kind


@pytest.mark.parametrize(
    ("template", "origin", "url"),
    [
        ("https://c.example/t/{thread_id}#{run_id}", Origin("thr 1", "run/2"), "https://c.example/t/thr%201#run%2F2"),
        ("https://c.example/t/{thread_id}#{run_id}", Origin("thr_1", None), "https://c.example/t/thr_1"),
        ("https://c.example/t/{thread_id}", Origin("thr_1", "run_1"), "https://c.example/t/thr_1"),
        ("", Origin("thr_1", "run_1"), None),
        ("https://c.example/t/{thread_id}", Origin(None, None), None),
    ],
)
def test_a_conversation_link_is_built_from_the_template_with_escaped_ids(
    template: str, origin: Origin, url: str | None
) -> None:
    assert conversation_link(template, origin) == url


@pytest.mark.parametrize(
    ("given", "href"),
    [
        ({}, "/"),
        ({"text": "  two   words  "}, "/?q=two+words"),
        ({"text": "x" * 500}, "/?q=" + "x" * 200),
        ({"author": "robot", "page": "-3"}, "/"),
        ({"author": "assistant", "page": "4", "group": "you"}, "/?group=you&author=assistant&page=4"),
        ({"order": "oldest", "origin": "gone", "text": "a&b"}, "/?q=a%26b&origin=gone&sort=oldest"),
        ({"order": "newest", "origin": "elsewhere", "match": "related"}, "/?match=related"),
        ({"order": "sideways", "text": "x", "match": "related", "page": "3"}, "/?q=x&match=related"),
    ],
)
def test_the_query_is_parsed_forgivingly_and_written_back_without_defaults(given: dict[str, str], href: str) -> None:
    assert MemoryQuery.parse(**given).href() == href


def entries(keys: list[str], pinned: frozenset[str] = frozenset()) -> OnFile:
    """One memory per key, the later keys written earlier."""
    records = [make_record(f"m_{k}", k, k, pinned=k in pinned, days_ago=n) for n, k in enumerate(keys)]
    return on_file_of(("actor:ada", "tenant:berlin", "global"), records)


@pytest.mark.parametrize(
    ("order", "first", "last"),
    [("newest", "k000", "k099"), ("oldest", "k099", "k000"), ("key", "k000", "k099")],
)
def test_a_chosen_group_pages_through_its_own_order(order: str, first: str, last: str) -> None:
    keys = [f"k{i:03d}" for i in range(PAGE_SIZE * 2)]
    on_file = entries(list(reversed(keys)) if order == "key" else keys, pinned=frozenset({"k099"}))

    one = select_entries(on_file, ADA, MemoryQuery.parse(group="you", order=order)).group("you")
    two = select_entries(on_file, ADA, MemoryQuery.parse(group="you", order=order, page="2")).group("you")

    assert one is not None
    assert two is not None
    assert (one.shown[0].key, two.shown[-1].key) == (first, last), "always-on entries are sorted like the rest"
    assert [e.key for e in one.shown + two.shown] == [e.key for e in one.matching]


def test_a_page_past_the_end_shows_the_last_page() -> None:
    selection = select_entries(entries([f"k{i:03d}" for i in range(PAGE_SIZE + 5)]), ADA, MemoryQuery.parse(page="9"))

    group = selection.group("you")

    assert group is not None
    assert [e.record for e in group.shown] == list(group.matching[:PAGE_SIZE]), (
        "a page number only applies to a chosen group"
    )
    chosen = select_entries(
        entries([f"k{i:03d}" for i in range(PAGE_SIZE + 5)]), ADA, MemoryQuery.parse(group="you", page="9")
    ).group("you")
    assert chosen is not None
    assert (chosen.page, chosen.pages, len(chosen.shown)) == (2, 2, 5)
