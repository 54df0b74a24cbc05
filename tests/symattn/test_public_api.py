"""The public modules only re-export, and ``__all__`` agrees with what they export."""

import importlib

import pytest


@pytest.mark.parametrize("name", ["symattn", "numeric"])
def test_all_matches_public_namespace(name):
    mod = importlib.import_module(name)
    public = {k for k, v in vars(mod).items() if not k.startswith("_") and not isinstance(v, type(importlib))}
    public |= set(getattr(mod, "_LAZY", ()))  # symattn imports its public names on first use
    assert set(mod.__all__) == public
    for k in mod.__all__:
        assert hasattr(mod, k)


IMPORT_ORDERS = [
    "from symattn import Softmax; from symattn import softmax",
    "import symattn.maths.softmax; from symattn import softmax",
    "from symattn.maths.softmax import Softmax; from symattn import softmax",
    "import symattn, symattn.kernel.zero; from symattn import softmax",
    "from symattn import Theorem; from symattn import softmax",
    "from symattn import softmax",
    # the deprecated module path of release 0.1 (an alias of symattn.maths.softmax)
    "import symattn.softmax; from symattn import softmax",
    "from symattn.softmax import Softmax; from symattn import softmax",
    "from symattn import softmax; import symattn.softmax",
]


@pytest.mark.parametrize("prelude", IMPORT_ORDERS)
def test_a_public_name_is_never_shadowed_by_its_submodule(prelude):
    # the import system sets each loaded submodule as an attribute of its package: symattn.softmax, the
    # deprecated path of the module symattn.maths.softmax, must not replace symattn.softmax (the public
    # function), whatever was imported first
    import subprocess
    import sys

    code = (f"{prelude}\nimport sys, types, symattn\n"
            "assert callable(softmax) and not isinstance(softmax, types.ModuleType), softmax\n"
            "assert symattn.softmax is softmax\n"
            "assert isinstance(sys.modules['symattn.maths.softmax'], types.ModuleType)\n"
            "assert sys.modules.get('symattn.softmax', sys.modules['symattn.maths.softmax'])"
            " is sys.modules['symattn.maths.softmax']\n"
            "print(softmax([0, 0]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "1/2" in out.stdout
