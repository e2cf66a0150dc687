"""No private reads across components: a module reads an underscore name or module of another part of
the architecture only through that part's public names.

The rule, checked over `src/` by walking each module's syntax tree:

- The components are the packages docs/architecture.md draws as layers and the import-linter
  contracts in pyproject.toml keep apart (`COMPONENTS`): the engine core, `graphengine.store`,
  `graphengine.emit`, the adapters, the server, models, tools, workers; the goap layers. A module
  belongs to the innermost component holding it (`graphengine.store._sql._core` to the store,
  `goap.planning.heuristics.lmcut` to planning, `graphengine._loop` to the core).
- A private part is a dotted-path component starting with one underscore (`_loop`, `_EXPORTS`;
  dunders such as `__main__` are not private). It belongs to the component of the module or
  package holding it.
- A module reads the private parts of its own component: a component's `__init__`, modules and
  underscore submodules are one body of internals. Any other read is a crossing: the adapters
  reading the engine's `_attempts`, a layer reading a lower layer's modules, goap's top level
  reading a layer's tables.
- Reads are `import` and `from ... import` statements anywhere (inside functions and
  `TYPE_CHECKING` blocks too, relative ones resolved), attribute reads through a name bound to a
  project module (`mod._name`), and string constants naming a project module or one of its
  attributes (`importlib.import_module("goap.strategies._csp")`, `"pkg.mod:attr"` tables).

Tests, bench and examples are users of the public API and are not checked. `ALLOWED` lists the
crossings the architecture sanctions, each with its reason; an entry that matches no read any
more fails the suite too, so the list only shrinks.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import grimp

SRC = Path(__file__).resolve().parents[1] / "src"
ROOTS = ("graphengine", "goap")

COMPONENTS: tuple[str, ...] = (
    # graphengine: the core (the engine, its step loop, replay, streaming, the CLI) and the layers
    # docs/architecture.md draws apart from it
    "graphengine",
    "graphengine.adapters",
    "graphengine.emit",
    "graphengine.models",
    "graphengine.server",
    "graphengine.store",
    "graphengine.tools",
    "graphengine.workers",
    # goap: the top level (the lazy re-exports, `python -m goap`, test helpers) and its layers
    "goap",
    "goap.capabilities",
    "goap.compat",
    "goap.planning",
    "goap.runtime",
    "goap.selector",
    "goap.strategies",
)
"""The architecture's components, by package (or module) name."""

ALLOWED: Mapping[tuple[str, str], str] = {
    # (importer: a module or a package and everything under it, private part read: a path up to
    # its first private component, or a prefix of such paths) -> why the crossing stays
    ("graphengine.adapters.langgraph_tables", "graphengine.store._sql"): (
        "docs/architecture.md: the LangGraph checkpoint tables keep their rows beside a store on the "
        "stores' SQL core (the same drivers, pools and error translation), the one sanctioned reader"
    ),
}


@dataclass(frozen=True, order=True)
class Read:
    """One read of a private part by a module of another component."""

    importer: str
    """The reading module (dotted name)."""
    line: int
    """Where, in the importer's file."""
    target: str
    """What is read, as a dotted path (`graphengine._attempts.execute`)."""
    private: str
    """`target` up to and including its first private component (`graphengine._attempts`)."""
    how: str
    """`import`, `attribute` or `string`."""

    def __str__(self) -> str:
        return f"{self.importer}:{self.line} reads {self.target} ({self.how})"


@dataclass(frozen=True)
class Tree:
    """The modules of a source tree: dotted name -> (file, is a package's `__init__`)."""

    modules: Mapping[str, tuple[Path, bool]]
    extensions: frozenset[str]
    """Compiled modules (their `.pyi` stub or built library), importable but not parsed."""
    components: tuple[str, ...]

    @classmethod
    def of(cls, src: Path, roots: tuple[str, ...] = ROOTS, components: tuple[str, ...] = COMPONENTS) -> Tree:
        modules: dict[str, tuple[Path, bool]] = {}
        extensions: set[str] = set()
        for root in roots:
            for path in sorted((src / root).rglob("*")):
                rel = path.relative_to(src)
                if path.suffix == ".py":
                    parts = list(rel.with_suffix("").parts)
                    is_pkg = parts[-1] == "__init__"
                    modules[".".join(parts[:-1] if is_pkg else parts)] = (path, is_pkg)
                elif path.suffix in (".pyi", ".so", ".pyd"):
                    extensions.add(".".join((*rel.parts[:-1], rel.name.split(".")[0])))
        return cls(modules, frozenset(extensions - modules.keys()), components)

    def is_package(self, name: str) -> bool:
        entry = self.modules.get(name)
        return entry is not None and entry[1]

    def is_module(self, name: str) -> bool:
        return name in self.modules or name in self.extensions

    def package_of(self, module: str) -> str:
        """The package a module belongs to (a package's `__init__` belongs to the package itself)."""
        return module if self.is_package(module) else module.rpartition(".")[0]

    def module_of(self, path: str) -> str | None:
        """The longest prefix of a dotted path that is a module of the tree."""
        parts = path.split(".")
        for end in range(len(parts), 0, -1):
            prefix = ".".join(parts[:end])
            if self.is_module(prefix):
                return prefix
        return None

    def component_of(self, name: str) -> str:
        """The innermost component holding the module, package or attribute path `name`."""
        return max((c for c in self.components if name == c or name.startswith(c + ".")), key=len)

    def owner(self, path: str) -> tuple[str, str] | None:
        """(the component owning the first private part of `path`, the path up to that part), or None."""
        parts = path.split(".")
        for i, part in enumerate(parts):
            if part.startswith("_") and not part.startswith("__"):
                return self.component_of(".".join(parts[:i])), ".".join(parts[: i + 1])
        return None


_DOTTED = re.compile(r"[A-Za-z_]\w*(?:\.\w+)+(?::\w+)?")


def references(tree: Tree, module: str, syntax: ast.Module) -> Iterator[tuple[str, int, str]]:
    """Every project path `module` reads: (dotted path, line, how)."""
    package = tree.package_of(module)
    bound: dict[str, str] = {}  # a local name -> the project module it is bound to
    for node in ast.walk(syntax):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno, "import"
                if alias.asname is not None:
                    bound[alias.asname] = alias.name
                else:
                    top = alias.name.partition(".")[0]
                    bound[top] = top
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                path = f"{source}.{alias.name}"
                yield path, node.lineno, "import"
                if tree.is_module(path):
                    bound[alias.asname or alias.name] = path
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _DOTTED.fullmatch(node.value):
            path = node.value.replace(":", ".")
            if tree.module_of(path) is not None:
                yield path, node.lineno, "string"
    for node in ast.walk(syntax):
        if isinstance(node, ast.Attribute):
            names: list[str] = []
            value: ast.expr = node
            while isinstance(value, ast.Attribute):
                names.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id in bound:
                yield ".".join([bound[value.id], *reversed(names)]), node.lineno, "attribute"


def private_reads(
    src: Path = SRC, roots: tuple[str, ...] = ROOTS, components: tuple[str, ...] = COMPONENTS
) -> list[Read]:
    """Every read of a private part across components in the tree under `src`, sorted."""
    tree = Tree.of(src, roots, components)
    found: set[Read] = set()
    for module, (path, _is_pkg) in tree.modules.items():
        syntax = ast.parse(path.read_text(encoding="utf-8"), str(path))
        mine = tree.component_of(module)
        for target, line, how in references(tree, module, syntax):
            if not target.startswith(tuple(f"{r}." for r in roots)):
                continue
            owned = tree.owner(target)
            if owned is not None and owned[0] != mine:
                found.add(Read(module, line, target, owned[1], how))
    return sorted(found)


def allowance(read: Read) -> tuple[str, str] | None:
    """The `ALLOWED` entry covering `read`, if any."""
    for importer, private in ALLOWED:
        if (read.importer == importer or read.importer.startswith(importer + ".")) and (
            read.private == private or read.private.startswith(private + ".")
        ):
            return importer, private
    return None


# ---------------------------------------------------------------------------------------- the tree


def test_no_module_reads_another_components_private_parts() -> None:
    """Every private read across components in src/ is one `ALLOWED` sanctions."""
    bad = [r for r in private_reads() if allowance(r) is None]
    assert not bad, "private reads across components (use a public name, or move the helper):\n" + "\n".join(
        map(str, bad)
    )


def test_every_allowance_is_still_used() -> None:
    """An `ALLOWED` entry no read needs any more is removed, so the list only shrinks."""
    used = {allowance(r) for r in private_reads()}
    assert sorted(set(ALLOWED) - used) == []


def test_module_imports_agree_with_import_linters_graph() -> None:
    """The import statements found reading private modules across components are exactly the edges of
    grimp's import graph (what `lint-imports` checks) into such modules.

    grimp sees module imports only: reads of private names inside modules, attribute reads and
    strings are this checker's own, so they are left out of the comparison.
    """
    tree = Tree.of(SRC)
    graph = grimp.build_graph(*ROOTS, cache_dir=None)
    edges = set()
    for importer in graph.modules:
        for imported in graph.find_modules_directly_imported_by(importer):
            owned = tree.owner(imported)
            if owned is not None and owned[1] in tree.modules and owned[0] != tree.component_of(importer):
                edges.add((importer, imported))
    ours = set()
    for r in private_reads():
        module = tree.module_of(r.target)
        if r.how == "import" and r.private in tree.modules and module in tree.modules:
            ours.add((r.importer, module))
    assert ours == edges


def test_every_subpackage_of_a_root_is_a_component() -> None:
    """A new subpackage of `graphengine` or `goap` is a layer of its own until `COMPONENTS` says
    otherwise: it cannot silently join the core's internals."""
    subpackages = {f"{root}.{p.parent.name}" for root in ROOTS for p in (SRC / root).glob("*/__init__.py")}
    assert sorted(subpackages - set(COMPONENTS)) == []


# ------------------------------------------------------------------------------------- the checker


def write(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")


def test_the_checker_finds_each_kind_of_read_and_allows_a_components_own(tmp_path: Path) -> None:
    """Imports (absolute, relative, in functions), module attributes and module-path strings that
    cross a component's boundary are found, both ways between a component and one inside it; a
    component's own internals (its private and public subpackages included) and public names are not."""
    write(
        tmp_path,
        {
            "app/__init__.py": "from ._core import run\nfrom .sub import _helper\n",
            "app/_core.py": "from ._util import _x\nfrom app.sub._impl import y\n_z = 1\nrun = 0\n",
            "app/_util.py": "_x = 1\n",
            "app/public.py": "from ._core import run\nfrom . import _util\nfrom .sub import thing\n",
            "app/_inner/__init__.py": "from .._core import _z\n",
            "app/part/__init__.py": "from app._core import _z\nfrom .._util import _x\n",
            "app/sub/__init__.py": "from ._impl import y\nthing = 1\n_helper = 2\n",
            "app/sub/_impl.py": "y = 1\n",
            "app/sub/user.py": """
                import importlib
                import app._core as core
                from .. import _util
                from ..public import run

                def late():
                    from app._core import _z
                    return core._z, core.run, importlib.import_module("app._util"), "app.sub.user"
                """,
        },
    )
    reads = private_reads(tmp_path, ("app",), ("app", "app.sub"))
    assert [(r.importer, r.line, r.target, r.how) for r in reads] == [
        ("app", 2, "app.sub._helper", "import"),
        ("app._core", 2, "app.sub._impl.y", "import"),
        ("app.sub.user", 3, "app._core", "import"),
        ("app.sub.user", 4, "app._util", "import"),
        ("app.sub.user", 8, "app._core._z", "import"),
        ("app.sub.user", 9, "app._core._z", "attribute"),
        ("app.sub.user", 9, "app._core.run", "attribute"),
        ("app.sub.user", 9, "app._util", "string"),
    ]
