"""No function in the package's envs/, encoders/ or baselines/ runs past MAX_LINES lines (from
its ``def`` line to its last line): a longer one is split into functions that each do one
thing (Radlands' op interpreter is one kernel per group of ops, see envs/radlands/rules.py)."""

import ast
from pathlib import Path

MAX_LINES = 150
ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("envs", "encoders", "baselines")


def _long_functions(root=ROOT, max_lines=MAX_LINES):
    found = []
    for folder in FOLDERS:
        for path in sorted((root / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(), filename=str(path))
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    lines = node.end_lineno - node.lineno + 1
                    if lines > max_lines:
                        where = f"{path.relative_to(root)}:{node.lineno}"
                        found.append(f"{where} {node.name} ({lines} lines)")
    return found


def test_every_folder_is_there():
    for folder in FOLDERS:
        assert any((ROOT / folder).rglob("*.py")), folder


def test_no_function_is_longer_than_the_limit():
    long = _long_functions()
    assert not long, f"functions over {MAX_LINES} lines:\n" + "\n".join(long)


def test_the_check_lists_long_functions_and_methods(tmp_path):
    (tmp_path / "envs").mkdir()
    short = "def short():\n" + "    x = 1\n" * 149  # 150 lines: allowed
    method = "class A:\n    def long(self):\n" + "        x = 1\n" * 150  # 151 lines
    (tmp_path / "envs" / "m.py").write_text(short + method)
    assert _long_functions(tmp_path) == ["envs/m.py:152 long (151 lines)"]
