"""No module of `store` or `web` imports itself back, however far round: the import graph (as grimp
reads it, module-level imports, imports inside functions and `TYPE_CHECKING` ones alike) has no cycle.

A cycle is two modules that cannot be understood, tested or moved apart. The layers in
`pyproject.toml` forbid most of them between packages; this forbids them inside one too.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping

import grimp


def strongly_connected(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of `graph` (each node's direct successors), by Tarjan's
    algorithm without recursion; every node is in exactly one."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            step = next((s for s in successors if s not in index or s in on_stack), None)
            if step is not None and step not in index:
                index[step] = low[step] = len(index)
                stack.append(step)
                on_stack.add(step)
                work.append((step, iter(sorted(graph.get(step, ())))))
                continue
            if step is not None:
                low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def cycle_through(graph: grimp.ImportGraph, component: list[str]) -> str:
    """One cycle in `component`, each import with the line it is on: "a -> b (l.12) -> a (l.40)"."""
    first = component[0]
    back = next(m for m in sorted(graph.find_modules_that_directly_import(first)) if m in component)
    route = [*(graph.find_shortest_chain(importer=first, imported=back) or (first,)), first]
    steps = [first]
    for importer, imported in itertools.pairwise(route):
        lines = sorted({d["line_number"] for d in graph.get_import_details(importer=importer, imported=imported)})
        steps.append(f"{imported} (l.{', '.join(map(str, lines))})")
    return " -> ".join(steps)


def test_store_and_web_have_no_import_cycle() -> None:
    graph = grimp.build_graph("web", "store")
    imports = {module: graph.find_modules_directly_imported_by(module) for module in graph.modules}
    cycles = [
        cycle_through(graph, component)
        for component in strongly_connected(imports)
        if len(component) > 1 or component[0] in imports[component[0]]
    ]
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_the_components_are_found_however_the_graph_is_shaped() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": {"e"}, "e": {"d"}, "f": set(), "g": {"g"}}

    assert sorted(strongly_connected(graph)) == [["a", "b", "c"], ["d", "e"], ["f"], ["g"]]
