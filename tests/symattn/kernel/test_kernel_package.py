"""The trusted core is one small, self-contained unit whose docstring tells the truth about it."""

import ast
import re
from pathlib import Path

from symattn import kernel
from symattn.kernel import MODULES, core_size

KERNEL_DIR = Path(kernel.__file__).parent


def _imports(path: Path) -> set:
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_docstring_states_the_cores_size_within_ten_percent():
    stated = int(re.search(r"About ([\d,]+) lines", kernel.__doc__).group(1).replace(",", ""))
    assert abs(stated - core_size()) <= 0.1 * core_size(), (stated, core_size())


def test_core_imports_neither_the_report_nor_the_rules():
    for name in ("__init__",) + MODULES:
        mods = _imports(KERNEL_DIR / f"{name}.py")
        bad = {m for m in mods if m.startswith(("symattn.products.report", "symattn.rules", "numeric"))}
        assert not bad, f"kernel/{name}.py imports {bad}"


#: no module evaluates numerically: the concrete levels decide closed numbers exactly (kernel/exact.py,
#: ball arithmetic and minimal polynomials), so no module is exempt
_EVALUATES_POINTS: tuple = ()


def test_core_never_evaluates_numerically():
    assert set(_EVALUATES_POINTS) <= set(MODULES)
    for name in MODULES:
        if name in _EVALUATES_POINTS:
            continue
        src = (KERNEL_DIR / f"{name}.py").read_text()
        code = "\n".join(line.split("#")[0] for line in src.splitlines() if not line.lstrip().startswith((">>>", "*")))
        for call in (".evalf(", ".equals(", "sp.N(", "summation("):
            assert call not in code, f"kernel/{name}.py calls {call}"


def test_docstring_lists_every_module_of_the_core():
    for name in MODULES:
        assert f":mod:`.{name}`" in kernel.__doc__


def test_the_docstring_names_every_family_of_the_axiom_table():
    import symattn.kernel as kernel
    from symattn.kernel.axioms import table

    families = {s.family for s in table()}
    assert families and all(f":mod:`.schemas.{f}`" in kernel.__doc__ for f in families), families
