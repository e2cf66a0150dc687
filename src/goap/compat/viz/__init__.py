"""Pictures of LangGOAP plans (Mermaid, DOT, ASCII, Gantt charts), drawn with goap's renderers."""

from goap.compat.viz.ascii import render_ascii, render_ascii_gantt
from goap.compat.viz.dot import render_dot
from goap.compat.viz.jupyter import repr_mimebundle, visualize
from goap.compat.viz.mermaid import draw_gantt_png, draw_mermaid_png, render_mermaid, render_mermaid_gantt
from goap.compat.viz.save import save_plan

__all__ = ["draw_gantt_png", "draw_mermaid_png", "render_ascii", "render_ascii_gantt", "render_dot"]
__all__ += ["render_mermaid", "render_mermaid_gantt", "repr_mimebundle", "save_plan", "visualize"]
