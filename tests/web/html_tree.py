"""A small HTML tree for structural assertions, on the standard library's parser.

`parse(text)` gives the document's root; `find_all`/`find` select elements by tag and attribute
(`attrs={"data-entry": True}` means "has the attribute", a string means "equals it"), and `.text`
is the element's text with whitespace folded, as a person reads it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

__all__ = ("Element", "parse")

_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)


@dataclass
class Element:
    tag: str
    attrs: dict[str, str | None] = field(default_factory=dict)
    children: list[Element | str] = field(default_factory=list)
    parent: Element | None = field(default=None, repr=False)

    def __getitem__(self, name: str) -> str:
        value = self.attrs[name]
        return "" if value is None else value

    def get(self, name: str) -> str | None:
        return self.attrs.get(name)

    @property
    def text(self) -> str:
        return " ".join("".join(self._texts()).split())

    def _texts(self) -> Iterator[str]:
        for child in self.children:
            if isinstance(child, str):
                yield child
            else:
                yield from child._texts()

    def elements(self) -> Iterator[Element]:
        """Every element below this one, in document order."""
        for child in self.children:
            if isinstance(child, Element):
                yield child
                yield from child.elements()

    def find_all(self, tag: str | None = None, attrs: dict[str, str | bool] | None = None) -> list[Element]:
        return [e for e in self.elements() if _matches(e, tag, attrs or {})]

    def find(self, tag: str | None = None, attrs: dict[str, str | bool] | None = None) -> Element | None:
        return next((e for e in self.elements() if _matches(e, tag, attrs or {})), None)

    def one(self, tag: str | None = None, attrs: dict[str, str | bool] | None = None) -> Element:
        """The single element that matches; an assertion error when there are none or several."""
        found = self.find_all(tag, attrs)
        assert len(found) == 1, f"expected one <{tag or '*'} {attrs}>, found {len(found)}"
        return found[0]

    def by_id(self, id: str) -> Element | None:
        return self.find(attrs={"id": id})

    def ancestors(self) -> Iterator[Element]:
        node = self.parent
        while node is not None:
            yield node
            node = node.parent


def _matches(element: Element, tag: str | None, attrs: dict[str, str | bool]) -> bool:
    if tag is not None and element.tag != tag:
        return False
    for name, wanted in attrs.items():
        if wanted is True:
            if name not in element.attrs:
                return False
        elif wanted is False:
            if name in element.attrs:
                return False
        elif element.attrs.get(name) != wanted:
            return False
    return True


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document")
        self._open = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, dict(attrs), parent=self._open)
        self._open.children.append(element)
        if tag not in _VOID:
            self._open = element

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._open.children.append(Element(tag, dict(attrs), parent=self._open))

    def handle_endtag(self, tag: str) -> None:
        node: Element | None = self._open
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self._open = node.parent

    def handle_data(self, data: str) -> None:
        self._open.children.append(data)


def parse(text: str) -> Element:
    builder = _TreeBuilder()
    builder.feed(text)
    builder.close()
    return builder.root
