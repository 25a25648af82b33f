"""The analysis package's import graph (analysis/__init__.py names its layers): every module
imports only from its own layer or one above it, nothing imports in a circle, and no import of the
package sits inside a function, where a circle would hide. Read from the source with ast, so a
module that is never imported by a test is checked all the same."""
import ast
import os
import re

from conftest import ROOT

ANALYSIS = os.path.join(ROOT, "analysis")


def layers():
    """{module: layer index} from the package docstring's layer lines."""
    import analysis
    text = analysis.__doc__
    block = text[text.index("  reading "):text.index("\nModules:")]
    order, current = {}, -1
    for line in block.splitlines():
        m = re.match(r"^  (\w+)\s{2,}(.*)$", line)
        if m:
            current += 1
            names = m.group(2)
        elif line.strip():
            names = line.strip()
        else:
            continue
        for name in re.findall(r"[\w/]+", names.split("(")[0]):
            order[name.rstrip("/")] = current
    return order


def module_files():
    out = {}
    for dp, _, files in os.walk(ANALYSIS):
        if "__pycache__" in dp:
            continue
        for f in files:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(dp, f), ROOT)[:-3].replace(os.sep, ".")
                out[rel[:-len(".__init__")] if rel.endswith(".__init__") else rel] = os.path.join(dp, f)
    return out


def imports_of(module, path):
    """(top-level imports, imports inside a function or class) of the analysis package."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    top, inner = set(), []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = module.split(".")
                if not path.endswith("__init__.py"):
                    parts = parts[:-1]
                base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
            names = [base]
        else:
            names = [a.name for a in node.names]
        for name in names:
            if name == "analysis" or name.startswith("analysis."):
                (top.add(name) if node.col_offset == 0 else inner.append((name, node.lineno)))
    return top, inner


def graph():
    files = module_files()
    return files, {m: imports_of(m, p) for m, p in files.items()}


def layer_of(module, order):
    parts = module.split(".")
    if len(parts) > 2 and parts[1] == "figures" or module == "analysis.figures":
        return order["figures"]
    return order.get(parts[-1]) if len(parts) == 2 else None


def test_every_module_has_a_layer():
    order = layers()
    files, _ = graph()
    missing = [m for m in files if m != "analysis" and layer_of(m, order) is None]
    assert not missing, f"analysis/__init__.py's layers do not name {missing}"


def test_no_import_runs_back_up():
    order = layers()
    _, g = graph()
    up = []
    for m, (top, _) in g.items():
        if m == "analysis":
            continue
        for t in top:
            if t != "analysis" and layer_of(t, order) > layer_of(m, order):
                up.append(f"{m} imports {t}")
    assert not up, up


def test_no_import_of_the_package_inside_a_function():
    _, g = graph()
    hidden = [f"{m}:{line} imports {t}" for m, (_, inner) in g.items() for t, line in inner]
    assert not hidden, hidden


def test_no_circle():
    _, g = graph()
    edges = {m: {t for t in top if t in g and t != "analysis"} for m, (top, _) in g.items()}
    state = {}

    def visit(m, path):
        if state.get(m) == 1:
            raise AssertionError("import circle: " + " -> ".join(path[path.index(m):] + [m]))
        if state.get(m) == 2:
            return
        state[m] = 1
        for t in sorted(edges[m]):
            visit(t, path + [m])
        state[m] = 2

    for m in sorted(edges):
        visit(m, [])


def test_figures_only_draw():
    # A figure module is a drawing: every one imports the writer's Plotter, and nothing outside
    # figures/ but the report and the command that draws uses a figure module.
    files, g = graph()
    for m, path in files.items():
        if m.startswith("analysis.figures.") and not m.endswith(".bars"):
            assert "analysis.writer" in g[m][0], f"{m} does not draw"
    users = {m for m, (top, _) in g.items() if not m.startswith("analysis.figures")
             and any(t.startswith("analysis.figures") for t in top)}
    assert users <= {"analysis.plot", "analysis.report"}, users


def test_tools_import_the_package_as_a_package():
    # tools/findings and scripts/ read records through the package, never by path inside it.
    for d in ("tools", "scripts"):
        for dp, _, files in os.walk(os.path.join(ROOT, d)):
            for f in files:
                if f.endswith(".py"):
                    text = open(os.path.join(dp, f), encoding="utf-8").read()
                    assert not re.search(r"sys\.path\.insert\([^)\n]*analysis", text), f
