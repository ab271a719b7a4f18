"""The engine's layout: packages by role in layers, each importing only its own layer or those
below it, no import cycle between modules (imports inside functions count), no engine module much
over 400 lines, and nothing of the dashboard's in the engine."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINE = ROOT / "metrics"

# Lowest first. A module's layer is that of its package (or of itself, for the base modules).
LAYERS = [
    ("metrics.errors", "metrics.parallel"),
    ("metrics.data",),
    ("metrics.loaders",),
    ("metrics.ranking",),
    ("metrics.measures",),
    ("metrics.evaluation",),
    ("metrics.explain",),
    ("metrics.judgments",),            # the ground truth grown by hand: pools, agreement, store
    ("metrics.cli",),
    ("metrics", "metrics.__main__"),   # the facade and the entry point
]
MAX_LINES = 420   # "about 400"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(ENGINE.rglob("*.py"))}


def layer_of(module: str) -> int:
    best = None
    for level, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if module == prefix or (prefix != "metrics" and module.startswith(prefix + ".")):
                if best is None or len(prefix) > best[1]:
                    best = (level, len(prefix))
    assert best is not None, f"{module} belongs to no layer: add its package to LAYERS"
    return best[0]


def runtime_nodes(tree: ast.AST):
    """Every node, but those under ``if TYPE_CHECKING:`` (imports for annotations only)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            yield from (n for child in node.orelse for n in [child, *runtime_nodes(child)])
            continue
        yield node
        yield from runtime_nodes(node)


def imported_modules(module: str) -> set[str]:
    """Every engine module that ``module`` imports at run time, at the top or inside a function."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in runtime_nodes(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            # "from metrics import measures" imports the module metrics.measures, not the facade
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                     for a in node.names]
        else:
            continue
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name and name != module and name.startswith("metrics"):
                found.add(name)
    return found


GRAPH = {module: imported_modules(module) for module in MODULES}


def test_no_module_reaches_up_a_layer():
    upward = [f"{m} (layer {layer_of(m)}) imports {t} (layer {layer_of(t)})"
              for m, targets in GRAPH.items() for t in sorted(targets)
              if layer_of(t) > layer_of(m)]
    assert not upward, "\n".join(upward)


def test_no_import_cycle():
    # A package's __init__ importing its own modules is how a facade works, not a cycle.
    edges = {m: {t for t in ts if not m.startswith(t + ".") and not
                 (MODULES[m].name == "__init__.py" and t.startswith(m + "."))}
             for m, ts in GRAPH.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges[node]):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for module in sorted(edges):
        if module not in state:
            visit(module)


def test_no_engine_module_is_much_over_400_lines():
    long = {m: n for m, p in MODULES.items() if (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert not long, long


def test_the_engine_never_imports_the_dashboard_or_plotting():
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                assert name.split(".")[0] not in {"streamlit", "plotly", "dashboard", "charts"}, (
                    module, name)


def test_stdlib_names_are_not_shadowed():
    import sys
    shadowing = [m for m in MODULES if m.rpartition(".")[2] in sys.stdlib_module_names]
    assert not shadowing, shadowing


def test_the_facade_keeps_every_public_name():
    """What users imported from ``metrics`` before the engine was grouped by role still imports."""
    import metrics
    before = ["REGISTRY", "EvaluationResult", "GroundTruth", "InputError", "JudgedRanking",
              "Measure", "MeasureError", "MeasureResult", "RankedRun", "Run", "TieReport",
              "aggregate", "evaluate", "evaluate_protocol", "judge", "parse_measure",
              "parse_measures", "rank_run", "split_measure_list"]
    assert set(before) <= set(metrics.__all__)
    assert all(getattr(metrics, name) is not None for name in metrics.__all__)
