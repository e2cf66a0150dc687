"""Drawing graphs: DOT and Mermaid text, images through Graphviz, a run's path highlighted."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from engine_fixtures import S, is_big

from graphengine import Context, Engine, NodeResult, goto, stop
from graphengine.viz import END, START, RenderError, run_path


def wired() -> Engine[S]:
    """A graph with a conditional edge, a static fan-out with a join, an error route and a pause."""
    g = Engine(S)
    for n in ("start", "big", "small", "a", "b", "join", "fix", "approve"):
        g.add(n, lambda ctx, s: NodeResult(), interrupt_before=(n == "approve"))
    g.start_at("start")
    g.connect("start", "big", when=is_big).connect("start", "small")
    g.connect("small", ["a", "b"], join="join").connect("join", "approve")
    g.on_error("big", "fix")
    return g


def test_dot_shows_conditions_fan_out_join_errors_and_pauses() -> None:
    """Conditional edges carry the predicate name, fan-outs/joins are bold, errors dashed, pauses marked."""
    dot = wired().to_dot()
    assert dot.startswith('digraph "graph" {')
    assert f'"{START}" -> "start"' in dot
    assert '"start" -> "big" [label="is_big"]' in dot
    assert '"small" -> "a" [label="fan-out", style=bold' in dot
    assert '"b" -> "join" [label="join", style=bold' in dot
    assert '"big" -> "fix" [label="error", style=dashed' in dot
    assert '"approve" [label="approve\\n(interrupt before)"' in dot
    assert f'"approve" -> "{END}"' in dot  # no edge out: the run may stop there


def test_mermaid_shows_the_same_features() -> None:
    """The Mermaid flowchart labels conditions, thickens fan-outs and joins, dashes error routes."""
    text = wired().to_mermaid()
    lines = [line.strip() for line in text.splitlines()]
    assert lines[0] == "flowchart TD"
    assert 'n0 -->|"is_big"| n1' in lines
    assert 'n2 ==>|"fan-out"| n3' in lines
    assert 'n4 ==>|"join"| n5' in lines
    assert 'n1 -.->|"error"| n6' in lines
    assert 'n7["approve (interrupt before)"]' in lines
    assert "class n7 interrupt" in lines


def test_labels_with_quotes_are_escaped() -> None:
    """Node ids with quotes cannot break out of DOT strings or Mermaid labels."""
    g = Engine(S).add('say "hi"', lambda ctx, s: NodeResult()).start_at('say "hi"')
    assert '"say \\"hi\\""' in g.to_dot()
    assert '["say #quot;hi#quot;"]' in g.to_mermaid()


async def test_a_run_path_highlights_visited_nodes_and_taken_edges() -> None:
    """run_path counts visits and taken edges, dynamic routes included; drawings mark them."""

    def inc(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(delta=S(n=s.n + 1))

    def check(ctx: Context, s: S) -> NodeResult[S]:
        return NodeResult(route=stop() if s.n >= 2 else goto("inc"))

    g = Engine(S).add("inc", inc).add("check", check).add("never", inc)
    g.start_at("inc").connect("inc", "check")
    await g.run("r", S())
    path = await run_path(g, "r")
    assert path.visits == {"inc": 2, "check": 2}
    assert path.edges[(START, "inc")] == 1 and path.edges[("inc", "check")] == 2
    assert path.edges[("check", "inc")] == 1 and path.edges[("check", END)] == 1
    assert path.status == "done" and path.current is None
    dot = g.to_dot(highlight=path)
    assert '"inc" [label="inc x2", style="rounded,filled"' in dot
    assert '"check" -> "inc" [style=dotted, color="#1a7f37"' in dot  # a dynamic route, drawn because taken
    assert '"never" [label="never"]' in dot
    mermaid = g.to_mermaid(highlight=path)
    assert "class n0,n1 visited" in mermaid and "linkStyle" in mermaid


async def test_a_failed_run_marks_the_failing_node() -> None:
    """The node a failed run stopped at is marked failed and current."""

    async def bad(ctx: Context, s: S) -> NodeResult[S]:
        raise RuntimeError("x")

    g = Engine(S).add("bad", bad).start_at("bad")
    with pytest.raises(Exception, match="x"):
        await g.run("r", S())
    path = await run_path(g, "r")
    assert path.failed == {"bad"} and path.current == "bad"
    assert 'fillcolor="#f9c9c9"' in g.to_dot(highlight=path)


def test_render_writes_text_formats_without_graphviz(tmp_path: Path) -> None:
    """`.dot` and `.mmd` files are written directly, no Graphviz needed."""
    g = wired()
    assert g.render(tmp_path / "g.dot").read_text() == g.to_dot()
    assert g.render(tmp_path / "g.mmd").read_text() == g.to_mermaid()


def test_render_without_graphviz_names_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no `dot` on PATH, rendering an image raises RenderError saying how to install Graphviz."""
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RenderError, match="install Graphviz"):
        wired().render(tmp_path / "g.png")


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is not installed")
def test_render_png_through_graphviz(tmp_path: Path) -> None:
    """With Graphviz installed, render writes a PNG image."""
    out = wired().render(tmp_path / "g.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
