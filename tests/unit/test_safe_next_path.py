"""The login's return address never leaves the site, whatever is put in `?next=`: a property over
any text, and the classic open-redirect spellings by name. (The flow itself, through a real identity
provider, is in tests/web/test_login.py.)"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from web.kit.security import safe_next_path

BASE = "https://onfile.example.com/"
REDIRECTS = [
    "https://evil.example/",
    "//evil.example/x",
    "///evil.example",
    "/\\evil.example",
    "\\\\evil.example",
    "/\\/evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r\n//evil.example",
    " //evil.example",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "http:evil.example",
    "https:/evil.example",
    "/%0d%0aLocation:%20https://evil.example",
    "\x00//evil.example",
]
# What a browser may also do with the address: drop tabs and line breaks, read a backslash as a slash.
hostile = st.text(alphabet=st.sampled_from(["/", "\\", ":", ".", "@", "?", "#", "%", "\t", "\n", " ", "a", "é"]))


def lands_here(address: str) -> bool:
    for seen in (address, address.replace("\t", "").replace("\n", "").replace("\r", "").replace("\\", "/")):
        landed = urlsplit(urljoin(BASE, seen))
        if (landed.scheme, landed.netloc) != ("https", "onfile.example.com"):
            return False
    return True


@pytest.mark.parametrize("candidate", REDIRECTS)
def test_a_known_open_redirect_spelling_returns_home(candidate: str) -> None:
    assert lands_here(safe_next_path(candidate))


@pytest.mark.parametrize("candidate", ["/", "/?q=pallet", "/admin/audit?who=lena#top", "/memories/forget-all"])
def test_a_local_address_is_kept(candidate: str) -> None:
    assert safe_next_path(candidate) == candidate


@settings(max_examples=2000, derandomize=True, database=None)
@given(candidate=st.one_of(st.text(), hostile, hostile.map(lambda s: "/" + s)))
def test_whatever_next_says_the_browser_stays_on_the_site(candidate: str) -> None:
    address = safe_next_path(candidate)

    assert address.startswith("/")
    assert lands_here(address), address
