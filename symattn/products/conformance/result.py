"""What a check returns: one verdict per property, with the shrunk counterexample of a failure."""

from __future__ import annotations

import json
from dataclasses import dataclass

__all__ = ["CallTimeout", "ConformanceResult", "PropertyResult", "dumps"]


class CallTimeout(Exception):
    """One call of the function under test did not return within the check's ``call_timeout``."""


@dataclass
class PropertyResult:
    name: str
    basis: str  # theorem id or definition it comes from
    status: str  # "pass", "fail", "reported", "skipped"
    detail: str = ""
    counterexample: str | None = None
    examples: int = 0

    def to_json(self) -> dict:
        return {
            "property": self.name,
            "basis": self.basis,
            "status": self.status,
            "detail": self.detail,
            "counterexample": self.counterexample,
            "examples": self.examples,
        }


@dataclass
class ConformanceResult:
    target: str
    options: dict
    properties: list[PropertyResult]
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return all(p.status in ("pass", "reported", "skipped") for p in self.properties)

    def by_name(self, name: str) -> PropertyResult:
        for p in self.properties:
            if p.name == name:
                return p
        raise KeyError(name)

    def failed(self) -> list[str]:
        return [p.name for p in self.properties if p.status == "fail"]

    def to_json(self) -> dict:
        return {
            "target": self.target,
            "options": self.options,
            "passed": self.passed,
            "seconds": round(self.seconds, 2),
            "properties": [p.to_json() for p in self.properties],
        }

    def table(self) -> str:
        w = max(len(p.name) for p in self.properties)
        lines = [f"conformance of {self.target} ({', '.join(f'{k}={v}' for k, v in self.options.items())})", ""]
        for p in self.properties:
            lines.append(f"  {p.name:<{w}}  {p.status:<8}  [{p.basis}]  {p.detail}")
            if p.counterexample:
                for line in p.counterexample.splitlines():
                    lines.append(f"  {'':<{w}}    {line}")
        verdict = "PASS" if self.passed else f"FAIL ({', '.join(self.failed())})"
        lines += ["", f"{verdict} in {self.seconds:.1f}s"]
        return "\n".join(lines)


def dumps(result: ConformanceResult) -> str:
    return json.dumps(result.to_json(), indent=2)
