"""How long the ``symattn`` command takes to start, as ratios against ``python -c pass`` in the same run.

``symattn bench --startup`` runs each command ``repeats`` times, interleaved (so that the machine's
load hits all of them alike), in fresh interpreters, and reports the median wall-clock seconds and
the median CPU seconds (user + system, which load inflates less) of each, and each one's ratio to
``python -c pass``. The commands: ``symattn --help``, ``symattn --version``, and ``symattn check``
on a one-theorem user file (its check is the point; its import should not dominate), plus
``python -c "import symattn"`` and ``import sympy`` for scale.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

__all__ = ["USER_FILE", "commands", "format_table", "measure"]

USER_FILE = textwrap.dedent('''
    """One theorem, as a user writes it."""
    import sympy as sp
    from symattn import Derivation, Statement, Theorem, register

    x = sp.Symbol("x")
    register(Theorem(id="startup_square_of_sum", title="(x+1)^2", source="extension",
                     statement=Statement((x + 1)**2, x**2 + 2*x + 1),
                     derivation=Derivation((x + 1)**2).eq(x**2 + 2*x + 1, "algebra")))
''')


def commands(user_file: str) -> dict[str, list[str]]:
    py = sys.executable
    return {
        "python -c pass": [py, "-c", "pass"],
        "symattn --help": [py, "-m", "symattn", "--help"],
        "symattn --version": [py, "-m", "symattn", "--version"],
        "python -c 'import symattn'": [py, "-c", "import symattn"],
        "python -c 'import sympy'": [py, "-c", "import sympy"],
        "symattn check user.py": [py, "-m", "symattn", "check", user_file],
    }


def _run_once(argv: list[str], cwd: str) -> tuple[float, float]:
    before = os.times()
    t0 = time.perf_counter()
    subprocess.run(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - t0
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu


def measure(repeats: int = 5, *, cwd: str | None = None) -> dict:
    """``{command: {"wall": median s, "cpu": median s, "wall_ratio", "cpu_ratio"}}`` and the load."""
    cwd = cwd or os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        user = Path(tmp) / "user.py"
        user.write_text(USER_FILE)
        cmds = commands(str(user))
        samples: dict = {name: [] for name in cmds}
        for _ in range(repeats):
            for name, argv in cmds.items():
                samples[name].append(_run_once(argv, cwd))
    base_wall = statistics.median(w for w, _ in samples["python -c pass"])
    base_cpu = statistics.median(c for _, c in samples["python -c pass"])
    rows = {}
    for name, xs in samples.items():
        wall, cpu = statistics.median(w for w, _ in xs), statistics.median(c for _, c in xs)
        rows[name] = {"wall": round(wall, 3), "cpu": round(cpu, 3), "wall_ratio": round(wall / base_wall, 2),
                      "cpu_ratio": round(cpu / base_cpu, 2) if base_cpu > 0 else None}
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    return {"repeats": repeats, "load": [round(x, 2) for x in load] if load else None, "commands": rows}


def format_table(result: dict) -> str:
    lines = [f"startup, median of {result['repeats']} interleaved runs (load {result['load']})", "",
             f"{'command':<28} {'wall s':>8} {'x pass':>7} {'cpu s':>7} {'x pass':>7}"]
    for name, r in result["commands"].items():
        cpu_ratio = "-" if r["cpu_ratio"] is None else f"{r['cpu_ratio']:.1f}"
        lines.append(f"{name:<28} {r['wall']:>8.3f} {r['wall_ratio']:>7.1f} {r['cpu']:>7.3f} {cpu_ratio:>7}")
    return "\n".join(lines)
