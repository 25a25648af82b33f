"""No product function over 100 lines (CONTRIBUTING.md, "Functions"), checked with
tools/longest-functions.py over the tree; and that script's scanner on small C++ and Python
snippets, so a function it misreads cannot hide from the check."""
import importlib.util
import os
import subprocess
import sys

from conftest import ROOT

SCRIPT = os.path.join(ROOT, "tools", "longest-functions.py")


def _load():
    spec = importlib.util.spec_from_file_location("longest_functions", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


lf = _load()


def test_no_product_function_over_100_lines():
    r = subprocess.run([sys.executable, SCRIPT, "--max", "100"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, "functions over 100 lines (split them into named steps):\n" + r.stdout + r.stderr


def test_top_prints_lines_place_and_name():
    r = subprocess.run([sys.executable, SCRIPT, "--top", "3"], capture_output=True, text=True, cwd=ROOT, check=True)
    lines = r.stdout.splitlines()
    assert len(lines) == 3
    counts = []
    for line in lines:
        n, where, name = line.split()
        path, at = where.rsplit(":", 1)
        assert os.path.isfile(os.path.join(ROOT, path)) and int(at) >= 1 and name
        counts.append(int(n))
    assert counts == sorted(counts, reverse=True)


def _cxx(text):
    return {f.name: (f.line, f.lines) for f in lf.cxx_functions("x.cpp", text)}


def test_braces_in_strings_comments_and_chars_do_not_count():
    text = '''namespace a {
// a { in a comment
/* and } in a
   block comment { */
int f(int x) {
  const char* s = "}}} { \\" }";
  char c = '}';
  const char* raw = R"d(
  } } {
  )d";
  return x + 1'000;
}
}  // namespace a
'''
    assert _cxx(text) == {"f": (5, 8)}


def test_class_methods_lambdas_and_trailing_return_types():
    text = '''#include <vector>
#define BRACE {
struct S {
  int get() const { return v; }
  void run() noexcept override {
    auto g = [&](int k) {
      return k;
    };
    g(1);
  }
  int v = 0;
};
auto S2::make(int n) -> std::vector<int> {
  return {n};
}
bool operator==(const S& a, const S& b) { return a.v == b.v; }
S& S::operator=(const S& o) {
  v = o.v;
  return *this;
}
'''
    found = _cxx(text)
    assert found["get"] == (4, 1)
    assert found["run"] == (5, 6)  # the lambda counts toward run
    assert "g" not in found
    assert found["S2::make"] == (13, 3)
    assert found["operator=="] == (16, 1)
    assert found["S::operator="] == (17, 4)
    assert len(found) == 5


def test_constructor_with_an_initializer_list():
    text = '''class C {
 public:
  C(int a, int b)
      : a_(a),
        b_{b},
        c_{} {
    check();
  }
 private:
  int a_, b_, c_;
};
C::C() : C(1, 2) {}
'''
    found = lf.cxx_functions("x.cpp", text)
    assert [(f.name, f.line, f.lines) for f in found] == [("C", 3, 6), ("C::C", 12, 1)]


def test_control_statements_and_data_are_not_functions():
    text = '''const int table[] = {1, 2, 3};
enum class E : int { a, b };
namespace {
struct Row { int x; };
const Row rows[] = {{1}, {2}};
}
void f() {
  if (true) {
    for (;;) { break; }
  }
}
'''
    assert _cxx(text) == {"f": (7, 5)}


def test_python_functions_by_ast():
    text = '''import x


def top(a):
    def inner():
        return 1
    return inner()


class K:
    async def method(self):
        pass
'''
    found = {f.name: (f.line, f.lines) for f in lf.python_functions("x.py", text)}
    assert found == {"top": (4, 4), "inner": (5, 2), "method": (11, 2)}
