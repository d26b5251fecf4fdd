"""No import cycle among the modules of `generator`, counting imports made inside functions: an
import put off into a function body still ties the two modules together, it only hides the knot."""

from __future__ import annotations

from source_support import import_graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of `graph` as the modules along it (first repeated last), or None."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start)
            if found:
                return found
    return None


def test_the_finder_sees_a_cycle_made_inside_a_function():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_the_graph_counts_imports_inside_functions(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "a.py").write_text("from pkg.sub import b\n")
    (pkg / "sub" / "b.py").write_text("def later():\n    from . import c\n    return c\n")
    (pkg / "sub" / "c.py").write_text("import os\n\ndef later():\n    from pkg.sub.a import thing\n")
    graph = import_graph(pkg)
    assert graph["pkg.sub.a"] == {"pkg.sub.b"}
    assert graph["pkg.sub.b"] == {"pkg.sub.c"}
    assert graph["pkg.sub.c"] == {"pkg.sub.a"}
    assert find_cycle(graph) == ["pkg.sub.a", "pkg.sub.b", "pkg.sub.c", "pkg.sub.a"]


def test_the_graph_covers_every_module_of_generator():
    graph = import_graph()
    assert {"generator.model.engine", "generator.model.wording", "generator.inputs.loader"} <= set(graph)
    # The cache wraps the loader: the edge runs that way only.
    assert "generator.inputs.loader" in graph["generator.inputs.cached_loading"]


def test_no_import_cycle_among_generator_modules():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])
