"""The rules package ``majiang`` must stay pure Python: no web-framework imports."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIR = ROOT / "majiang"
FORBIDDEN = ("django", "channels", "celery", "rest_framework")

IMPORT_EVERYTHING = """
import importlib, pkgutil, sys
import majiang
for info in pkgutil.walk_packages(majiang.__path__, "majiang."):
    importlib.import_module(info.name)
leaked = sorted(name for name in sys.modules if name.split(".")[0] in {forbidden!r})
assert not leaked, f"importing majiang pulled in: {{leaked}}"
"""


def test_package_exists() -> None:
    assert (PACKAGE_DIR / "__init__.py").is_file(), "majiang/ rules package is missing"


def test_importing_every_module_loads_no_framework() -> None:
    code = IMPORT_EVERYTHING.format(forbidden=set(FORBIDDEN))
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


def _imported_roots(tree: ast.AST) -> set[str]:
    roots = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_no_source_file_imports_a_framework() -> None:
    sources = sorted(PACKAGE_DIR.rglob("*.py"))
    assert sources, "majiang/ has no Python sources"
    offenders = {
        str(path.relative_to(ROOT)): sorted(roots)
        for path in sources
        if (roots := _imported_roots(ast.parse(path.read_text(encoding="utf-8"))) & set(FORBIDDEN))
    }
    assert not offenders
