"""The docs cannot drift: every file path, code name and constant that README.md,
CONTRIBUTING.md and docs/*.md quote is checked against the tree.

The marking form (CONTRIBUTING.md, "Docs"): what a doc quotes from the tree goes in backticks.
  - A path: a span with a `/` whose first part is a top-level entry of the repository
    (`analysis/plot.py`, `tools/node/`), or a bare file name with a known source
    extension (`plot.py`). It must exist (or be a built program, or a file a run writes, listed
    in OUTPUTS); `*` is a glob, and a span with a placeholder (`<name>`, `X`, `...`) is a
    pattern, not a path, and is skipped.
  - A code name: a span that reads as an identifier, with an underscore, a `::`, a call's
    `()` or an inner capital (`pi_hit`, `Executor::run`, `draw_figures()`, `PyBackendSpec`,
    `PARLAB_DATA_DIR`). It must occur, as a whole word, in a tracked source file; written as
    "`some/file.py`'s `name`" it must occur in that file.
  - A constant: "`kName` = VALUE" (or "`kName = VALUE`"; kName, Type::kName or ALL_CAPS):
    the code's definition (`kName = ...` or `kName{...}`) must give the same number; VALUE
    may be written 8192, 8,192, 2^13 or 1 << 13.
docs/history.md tells the past, with names and paths that no longer exist: it is not checked.

The include rules: docs/design.md's wings table ("may include") and its lines of "The layers of
experiments/" are read as rules, and every #include of the C++ folders is held against them (a
"..." include by the folder it resolves to, a <...> one in core/ by the system headers named).
"""
import ast
import os
import re
import subprocess

import pytest

from conftest import ROOT

DOCS = ["README.md", "CONTRIBUTING.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(ROOT, "docs"))
                              if f.endswith(".md") and f != "history.md")
SOURCE_EXT = (".py", ".sh", ".cpp", ".hpp", ".cu", ".cuh", ".h", ".cmake", ".json", ".txt", ".in", ".supp")
CODE_EXT = (".py", ".sh", ".cpp", ".hpp", ".cu", ".cuh", ".h", ".cmake", ".in", ".json", ".supp", ".txt")

# Spans that look like code names but name something outside the tree, each with its reason.
NOT_OURS = {
    "std::thread": "the C++ standard library",
    "std::jthread": "the C++ standard library",
    "std::async": "the C++ standard library",
    "std::execution::par": "the C++ standard library",
    "sys._is_gil_enabled()": "CPython's sys module",
    "schedule(dynamic)": "an OpenMP clause",
    "schedule(static)": "an OpenMP clause",
    "parallel_for": "oneTBB's API",
    "parallel_reduce": "oneTBB's API",
    "task_arena": "oneTBB's API",
    "ThreadPoolExecutor": "Python's concurrent.futures",
    "MPI_Init_thread": "MPI's C API",
    "MPI_THREAD_FUNNELED": "MPI's C API",
    "MPI_Allreduce": "MPI's C API",
    "MPI_ERR_WIN": "MPI's error class for an invalid window (Open MPI's message)",
}


def tracked():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [p for p in out.splitlines() if not p.startswith("results/")]


FILES = tracked()
TOP = {p.split("/")[0] for p in FILES}
BASENAMES = {os.path.basename(p) for p in FILES}
DIRS = {"/".join(p.split("/")[:i]) for p in FILES for i in range(1, p.count("/") + 1)}


def corpus():
    texts = {}
    for p in FILES:
        if p.endswith(CODE_EXT) or "/" not in p and p in ("CMakeLists.txt", "CMakePresets.json"):
            try:
                with open(os.path.join(ROOT, p), encoding="utf-8") as f:
                    texts[p] = f.read()
            except (UnicodeDecodeError, FileNotFoundError):
                pass
    return texts


CODE = corpus()
ALL_CODE = "\n".join(CODE.values())


def spans(doc):
    """(line number, span, the text just before it, the text just after it) of every inline code
    span, outside fenced blocks."""
    with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
        lines = f.read().split("\n")
    fenced = False
    for n, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        for m in re.finditer(r"`([^`\n]+)`", line):
            yield n, m.group(1), line[:m.start()], line[m.end():]


PLACEHOLDER = re.compile(r"<|>|\.\.\.|…|\{|\}|\bX\b|\bN\b|\$")


def is_path(s):
    if " " in s or PLACEHOLDER.search(s) or s.startswith("."):
        return False
    if "/" in s:
        return s.split("/")[0] in TOP and not s.startswith(("http", "//"))
    return s.endswith(SOURCE_EXT) and re.fullmatch(r"[\w.+-]+", s) is not None


# Files a run or a build writes, quoted by name: not in the tree, each with where it comes from.
OUTPUTS = {"results.json": "a run's record file", "results.csv": "a run's table", "report.html": "plot.py's report",
           "summary.txt": "a node part's summary", "compare.json": "compare --html's data",
           "build_info.hpp": "generated from experiments/build_info.hpp.in"}


def path_exists(s):
    s = s.rstrip("/")
    if s in OUTPUTS or s in DIRS:
        return True
    if re.search(rf"add_executable\(\s*{re.escape(os.path.basename(s))}\b", ALL_CODE):
        return True  # a built program, named by the folder of its CMakeLists.txt
    if "*" in s:
        rx = re.compile("^" + re.escape(s).replace(r"\*", "[^/]*") + "($|/)")
        return any(rx.match(p) for p in FILES)
    if "/" not in s:
        return s in BASENAMES
    return s in FILES or s in DIRS


IDENT = re.compile(r"(?:[A-Za-z_]\w*::)*[A-Za-z_]\w*(?:\(\))?")


def is_name(s):
    if not IDENT.fullmatch(s):
        return False
    bare = s.removesuffix("()")
    return "_" in bare.strip("_") or "::" in bare or s.endswith("()") or re.search(r"[a-z][A-Z]", bare) is not None


def name_found(s, where=None):
    bare = s.removesuffix("()").split("::")[-1]
    text = CODE.get(where, "") if where else ALL_CODE
    return re.search(rf"(?<![\w]){re.escape(bare)}(?![\w])", text) is not None


# A constant's name: kCamel (C++) or ALL_CAPS (Python, macros), possibly qualified (Type::kName).
CONSTANT = r"(?:[A-Za-z_]\w*::)*(?:k[A-Z]\w*|[A-Z][A-Z0-9]*_[A-Z0-9_]+)"
NUMBER = r"(?:\d[\d,']*|\d+\s*<<\s*\d+|2\^\d+)"


def number(text):
    text = text.strip().rstrip("uUlLzZ").replace("'", "").replace(",", "")
    if "<<" in text:
        a, b = text.split("<<")
        return int(a.strip().rstrip("uUlL")) << int(b.strip().rstrip("uUlL"))
    if text.startswith("2^"):
        return 1 << int(text[2:])
    return int(text)


def defined_value(name):
    """The number the code defines name as, or None when no definition is found or it is not a
    plain number."""
    m = re.search(rf"\b{re.escape(name)}\s*(?:=\s*|\{{\s*)([^;{{}}\n#]+?)\s*(?:[;}}#]|//|$)", ALL_CODE, re.M)
    if not m:
        return None
    try:
        return number(m.group(1).replace("std::size_t", "").replace("(", "").replace(")", "")
                      .replace("size_t", "").replace("int64_t", "").replace("uint64_t", "").strip())
    except ValueError:
        return None


def quoted():
    for doc in DOCS:
        for n, s, before, after in spans(doc):
            yield doc, n, s, before, after


def test_every_quoted_path_exists():
    missing = [f"{doc}:{n}: `{s}`" for doc, n, s, _, _ in quoted() if is_path(s) and not path_exists(s)]
    assert not missing, "paths quoted in the docs that the tree lacks:\n" + "\n".join(missing)


def test_every_quoted_code_name_is_in_the_code():
    missing = []
    for doc, n, s, before, _ in quoted():
        if not is_name(s) or s in NOT_OURS:
            continue
        scope = re.search(r"`([^`]+)`'s\s*$", before)
        where = scope.group(1) if scope and scope.group(1) in CODE else None
        if not name_found(s, where):
            missing.append(f"{doc}:{n}: `{s}`" + (f" (in {where})" if where else ""))
    assert not missing, "code names quoted in the docs that the code lacks:\n" + "\n".join(missing)


def test_every_quoted_constant_matches_its_definition():
    wrong, checked = [], 0
    for doc, n, s, _, after in quoted():
        # Spaces around "=": NAME=VALUE without them is a shell assignment (PYTHON_GIL=1), not a quote.
        inline = re.fullmatch(rf"({CONSTANT})\s+=\s+({NUMBER})", s)
        beside = re.match(rf" = ({NUMBER})", after) if re.fullmatch(CONSTANT, s) else None
        if not (inline or beside):
            continue
        name, text = (inline.group(1), inline.group(2)) if inline else (s, beside.group(1))
        code = defined_value(name.split("::")[-1])
        checked += 1
        if code is None:
            wrong.append(f"{doc}:{n}: `{name}` = {text}, but the code has no numeric definition of {name}")
        elif code != number(text):
            wrong.append(f"{doc}:{n}: `{name}` = {text}, but the code defines {name} as {code}")
    assert not wrong, "constants quoted in the docs that disagree with the code:\n" + "\n".join(wrong)
    assert checked > 0, "no quoted constant found: the docs quote at least one (`kName` = VALUE)"


@pytest.mark.parametrize("s,path", [("analysis/plot.py", True), ("tools/node/", True),
                                    ("plot.py", True), ("results/<host>/<run>", False), ("gil", False)])
def test_the_marking_form_reads_paths(s, path):
    assert is_path(s) == path


def test_the_marking_form_reads_names_and_numbers():
    assert is_name("pi_hit") and is_name("draw_figures()") and is_name("Executor::run") and is_name("PyBackendSpec")
    assert not is_name("gil") and not is_name("openmp-static") and not is_name("2^25")
    assert number("8,192") == number("2^13") == number("1 << 13") == number("8192") == 8192


def test_every_cited_section_exists():
    # Code and docs cite a section as docs/<page>.md, "Heading" (design.md's rule: rename a
    # heading only together with its citations); the heading must be on that page. A citation
    # that a line break cuts is checked up to the break.
    cite = re.compile(r'(?<![\w/])((?:docs/[\w-]+|(?:results/)?README)\.md)[`]?,\s+"([^"\n]+)')
    wrong = []
    for p in FILES:
        if not p.endswith(CODE_EXT + (".md",)) or p.startswith("docs/history"):
            continue
        try:
            text = open(os.path.join(ROOT, p), encoding="utf-8").read()
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        for m in cite.finditer(text):
            page, heading = m.group(1), m.group(2).strip()
            if not os.path.exists(os.path.join(ROOT, page)):
                wrong.append(f"{p}: {page} does not exist")
                continue
            heads = [h.lstrip("#").strip() for h in open(os.path.join(ROOT, page), encoding="utf-8")
                     if h.startswith("#")]
            if not any(h == heading or h.startswith(heading.rstrip(" (")) for h in heads):
                wrong.append(f'{p}: {page}, "{heading}"')
    assert not wrong, "citations of sections that do not exist:\n" + "\n".join(wrong)


# --- The include rules (docs/design.md, "The wings and what each may include" and "The layers of
# experiments/"): read from the page, then every #include of the C++ folders is held against them.

DESIGN = "docs/design.md"
SCANNED = ("core", "cpu", "gpu", "mpi", "embed", "peers", "experiments")
# The C++20 standard library's headers, the C ones included in their <cname> form.
STANDARD = set("""algorithm any array atomic barrier bit bitset charconv chrono codecvt compare complex
concepts condition_variable coroutine deque exception execution expected filesystem format forward_list
fstream functional future initializer_list iomanip ios iosfwd iostream istream iterator latch limits list
locale map memory memory_resource mutex new numbers numeric optional ostream queue random ranges ratio regex
scoped_allocator semaphore set shared_mutex source_location span sstream stack stdexcept stop_token streambuf
string string_view syncstream system_error thread tuple type_traits typeindex typeinfo unordered_map
unordered_set utility valarray variant vector version cassert cctype cerrno cfenv cfloat cinttypes climits
clocale cmath csetjmp csignal cstdarg cstddef cstdint cstdio cstdlib cstring ctime cuchar cwchar
cwctype""".split())


class Rule:
    """What one folder may include besides its own headers: folders, single headers (a tracked
    path or a generated parlab/*.hpp), and, where `system` is not None, exactly these system
    headers besides the standard library."""

    def __init__(self, where, text):
        self.where, self.text = where, text
        bare = re.sub(r"\([^()]*\)", "", text)  # text in parentheses is commentary, not the rule
        names = re.findall(r"`([^`]+)`", bare)
        self.folders = {n for n in names if n.endswith("/")}
        self.headers = {n for n in names if not n.endswith("/") and not n.startswith("<")}
        system = {n[1:-1] for n in names if n.startswith("<") and n.endswith(">")}
        self.system = system if "the standard library" in bare else None

    def allows(self, target):
        if target.startswith(self.where) or target in self.headers:
            return True
        return any(target.startswith(f) for f in self.folders)


def include_rules(text):
    """{folder: Rule} from docs/design.md's text: a row of the wings table per wing, a line of
    "The layers of experiments/" per layer (each may also include the layers listed before it)."""
    rules = {}
    table = text.split("### The wings and what each may include", 1)[1].split("\n### ", 1)[0]
    for row in table.splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        m = re.fullmatch(r"`(\w+/)`", cells[0]) if len(cells) == 3 else None
        if m and m.group(1) not in ("experiments/", "analysis/"):  # analysis/ is Python: no includes
            rules[m.group(1)] = Rule(m.group(1), cells[2])
    section = text.split("### The layers of experiments/", 1)[1].split("\n### ", 1)[0]
    below = []
    for line in section.splitlines():
        m = re.match(r"- `(experiments/\w+/)` — .*?; includes (.*)$", line)
        if not m:
            continue
        rule = Rule(m.group(1), m.group(2))
        if "the layers above" in m.group(2):
            rule.folders |= set(below)
        rules[m.group(1)] = rule
        below.append(m.group(1))
    return rules


def folder_of(path, rules):
    """The folder whose rule governs path: the longest rule folder that holds it."""
    owners = [f for f in rules if path.startswith(f)]
    return max(owners, key=len) if owners else None


INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)


def include_violations(rules, sources):
    """One line per include that breaks its folder's rule: the file, the include and the rule.
    sources: {tracked path: text}."""
    wrong = []
    for path, text in sources.items():
        where = folder_of(path, rules)
        if where is None:
            wrong.append(f"{path}: no rule in {DESIGN} covers this folder")
            continue
        rule = rules[where]
        for m in INCLUDE.finditer(text):
            quote, name = m.groups()
            if quote == "<":
                if rule.system is not None and name not in STANDARD and name not in rule.system:
                    wrong.append(f"{path}: #include <{name}>: not the standard library nor a header "
                                 f"{where}'s rule names ({rule.text})")
                continue
            beside = os.path.normpath(os.path.join(os.path.dirname(path), name))
            target = beside if beside in FILES else name if name in FILES else None
            if target is None and name.startswith("parlab/") and name in rule.headers:
                continue  # a header the build generates, named by the rule
            if target is None:
                wrong.append(f'{path}: #include "{name}": neither beside the file nor in the tree, '
                             f"and not a generated header {where}'s rule names ({rule.text})")
            elif not rule.allows(target):
                wrong.append(f'{path}: #include "{name}" ({target}): {where} may include only: {rule.text}')
    return wrong


def design_text():
    with open(os.path.join(ROOT, DESIGN), encoding="utf-8") as f:
        return f.read()


def scanned_sources():
    out = {}
    for p in FILES:
        if p.split("/")[0] in SCANNED and p.endswith((".cpp", ".hpp", ".cu", ".cuh")):
            with open(os.path.join(ROOT, p), encoding="utf-8") as f:
                out[p] = f.read()
    return out


def test_the_include_rules_are_read_from_the_design_page():
    rules = include_rules(design_text())
    layers = ["io", "record", "wiring", "machine", "plan", "run", "cli"]
    assert set(rules) == {"core/", "cpu/", "gpu/", "mpi/", "embed/", "peers/"} | {f"experiments/{x}/" for x in layers}
    assert rules["core/"].system == {"sys/mman.h", "sched.h", "unistd.h", "immintrin.h", "x86intrin.h", "time.h",
                                     "sys/resource.h", "sys/syscall.h", "fcntl.h", "linux/perf_event.h"}
    assert rules["core/"].folders == set() and rules["peers/"].folders == {"core/"}
    assert rules["experiments/io/"].folders == {"core/"}
    assert rules["experiments/cli/"].folders == {"core/"} | {f"experiments/{x}/" for x in layers[:-1]}
    wing_headers = {h for h in rules["experiments/wiring/"].headers if not h.startswith("parlab/")}
    assert "mpi/facts.hpp" in wing_headers and all(not h.startswith(("cpu/", "gpu/", "mpi/", "embed/", "peers/"))
                                                   for x in layers if x != "wiring"
                                                   for h in rules[f"experiments/{x}/"].headers)


def test_every_include_keeps_the_rules_of_the_design_page():
    wrong = include_violations(include_rules(design_text()), scanned_sources())
    assert not wrong, f"includes that break the rules of {DESIGN}:\n" + "\n".join(wrong)


@pytest.mark.parametrize("path,line,names", [
    ("core/pi.hpp", '#include "cpu/pool.hpp"', "core/pi.hpp: #include \"cpu/pool.hpp\" (cpu/pool.hpp): core/ may"),
    ("core/pi.hpp", "#include <omp.h>", "core/pi.hpp: #include <omp.h>: not the standard library"),
    ("peers/likwid.cpp", '#include "experiments/io/child_process.hpp"', "peers/ may include only"),
    ("experiments/io/files.cpp", '#include "experiments/run/runner.hpp"', "experiments/io/ may include only"),
    ("experiments/plan/suite.cpp", '#include "experiments/cli/commands.hpp"', "experiments/plan/ may include only"),
    ("experiments/machine/context.cpp", '#include "gpu/launch.hpp"', "experiments/machine/ may include only"),
    ("experiments/wiring/make_registry.cpp", '#include "gpu/launch.hpp"', "experiments/wiring/ may include only"),
    ("experiments/run/runner.cpp", '#include "parlab/embedded_workloads.hpp"', "not a generated header"),
])
def test_a_planted_include_that_breaks_a_rule_fails_naming_it(path, line, names):
    # The scanned text of one real file with one violating include added: the check must fire,
    # naming the file, the include and the rule, and only for that include.
    rules = include_rules(design_text())
    sources = scanned_sources()
    assert not include_violations(rules, {path: sources[path]})
    wrong = include_violations(rules, {path: sources[path] + "\n" + line + "\n"})
    assert len(wrong) == 1 and names in wrong[0] and line.split(None, 1)[1].strip('"<>') in wrong[0], wrong


def test_a_rule_loosened_on_the_page_is_what_the_check_applies():
    # The rules come from the page, not from the test: a design page that let core/ include cpu/
    # accepts the include that the real page rejects.
    text = design_text().replace("(the TSC a chunk is timed by); no other folder |", "(the TSC a chunk is timed by); `cpu/` |", 1)
    assert text != design_text()
    planted = {"core/pi.hpp": '#include "cpu/pool.hpp"\n'}
    assert include_violations(include_rules(design_text()), planted)
    assert not include_violations(include_rules(text), planted)


def readme_lines():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        return f.read().splitlines()


def test_the_readme_starts_with_a_run():
    """The README's first screen (its first 40 lines) holds the two commands, a real sample of
    the terminal table, whole and within 100 columns, and a picture of the report's first screen,
    which exists; the whole README stays short (the details live in docs/)."""
    lines = readme_lines()
    assert len(lines) <= 250, len(lines)
    first = lines[:40]
    # The two commands as commands, each a line of a sh block (CI runs the second: .ci/run).
    fences = [i for i, l in enumerate(first) if l.startswith("```")]
    sh = [l.split("#")[0].strip() for a, b in zip(fences[::2], fences[1::2]) if first[a] == "```sh"
          for l in first[a + 1:b]]
    assert "scripts/run-main.sh" in sh and "scripts/run-tests.sh" in sh, sh
    # The sample table, its block closed within the first screen (test_table.py holds its lines
    # to what parlab prints for the committed run).
    top = first.index("pi  n=2^27  int32  (quick)")
    end = next((i for i in range(top, len(first)) if first[i] == "```"), None)
    assert end is not None and any("speedup" in l for l in first[top:end]), "the table ends past line 40"
    assert all(len(l) <= 100 for l in first[top:end]), [l for l in first[top:end] if len(l) > 100]
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", "\n".join(first), re.S)
    assert pictures and all(os.path.isfile(os.path.join(ROOT, p)) for p in pictures), pictures
    assert any(l.startswith("## How to read a report") for l in lines)


def test_every_relative_link_of_the_docs_exists():
    """A Markdown link or picture of README.md, CONTRIBUTING.md or docs/*.md that names a file of
    the tree (relative to the page, as a browser resolves it) names one that exists."""
    missing = []
    for doc in DOCS + ["docs/history.md"]:
        with open(os.path.join(ROOT, doc), encoding="utf-8") as f:
            text = f.read()
        for m in re.finditer(r"\]\(([^)\s]+)\)", text):
            target = m.group(1).split("#")[0]
            if not target or re.match(r"[a-z]+:", target):
                continue  # an anchor on the page, or a URL
            if not os.path.exists(os.path.normpath(os.path.join(ROOT, os.path.dirname(doc), target))):
                missing.append(f"{doc}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(1)}")
    assert not missing, "links of the docs to files that do not exist:\n" + "\n".join(missing)


FIGURES = os.path.join(ROOT, "analysis", "figures")


def figure_names():
    """{stem: whole}: the plots/ names the figure modules save under, read from their p.save
    calls: a literal name (whole), or an f-string's text up to its first field (a stem), also
    through a `name = f"..."` just before the call; the Python models' figures are named after
    their studies (PY_MODEL_STUDIES)."""
    names, unread = {}, []
    for f in sorted(os.listdir(FIGURES)):
        if not f.endswith(".py"):
            continue
        with open(os.path.join(FIGURES, f), encoding="utf-8") as fh:
            text = fh.read()
        for m in re.finditer(r"\bp\.save\(\s*fig,\s*((?:[^,()]|\([^()]*\))+),", text):
            arg = m.group(1).strip()
            if arg == "name":
                arg = re.findall(r'\bname = (f?"[^"]*")', text[:m.start()])[-1]
            lit = re.fullmatch(r'(f?)"([^"{]*)(\{?)[^"]*"', arg)
            if lit:
                names[lit.group(2)] = not lit.group(3)
            elif arg == 'study.replace("-", "_")' and f == "models.py":
                series = open(os.path.join(ROOT, "analysis", "series.py"), encoding="utf-8").read()
                studies = re.search(r"^PY_MODEL_STUDIES = (\{[^}]*\})", series, re.M).group(1)
                names.update({s.replace("-", "_"): True for s in ast.literal_eval(studies)})
            else:
                unread.append(f"{f}: p.save(fig, {arg}, ...)")
    assert not unread, "figure names this test cannot read (teach figure_names how):\n" + "\n".join(unread)
    return names


def test_the_readme_names_every_figure():
    """"How to read a report" lists every figure file the figure modules write, and nothing else:
    each bullet of its figure list opens with the names it explains."""
    lines = readme_lines()
    start = lines.index("## How to read a report")
    section = lines[start + 1:next(i for i in range(start + 1, len(lines)) if lines[i].startswith("## "))]
    heads = [re.match(r"- ((?:`[^`]+`(?:, )?)+): ", l) for l in section]
    listed = [s for m in heads if m for s in re.findall(r"`([^`]+)`", m.group(1))]
    names = figure_names()
    assert len(names) >= 15, names  # the reading found the figures, not a few stray calls
    unknown = [s for s in listed if not any(s == n if whole else s.startswith(n) and s != n
                                            for n, whole in names.items())]
    absent = [n for n, whole in names.items() if not any(s == n if whole else s.startswith(n) for s in listed)]
    assert not unknown, f"figures the README lists that no figure module writes: {unknown}"
    assert not absent, f"figures written that the README's figure list leaves out: {absent}"
