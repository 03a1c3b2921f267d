"""The architecture holds: each layer imports only from layers below it; numba lives only in kernels/."""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parents[1] / "fmu_mbs"
LAYERS = ["model", "compiler", "kernels", "analyses", "adapters", "cosim", "studies"]
# kernels sit below the compiler in data flow but the compiler may use kernel constants and small helpers
ALLOWED = {
    "model": set(),
    "kernels": set(),
    "compiler": {"model", "kernels"},
    "analyses": {"model", "compiler", "kernels"},
    "adapters": {"model", "compiler", "kernels", "analyses"},
    "cosim": {"model", "compiler", "kernels", "analyses", "adapters"},
    "studies": {"model", "compiler", "kernels", "analyses", "adapters", "cosim"},
}


def _imports(path: Path) -> set[str]:
    """fmu_mbs sub-packages imported by a module (absolute or relative imports)."""
    tree = ast.parse(path.read_text())
    rel = path.relative_to(PKG).parts
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = list(rel[:-1])[: len(rel) - node.level]
                parts = base + (node.module.split(".") if node.module else [])
            else:
                parts = node.module.split(".")[1:] if node.module and node.module.startswith("fmu_mbs") else []
            if parts:
                found.add(parts[0])
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("fmu_mbs."):
                    found.add(alias.name.split(".")[1])
    return found


def test_layers_import_only_downwards():
    bad = []
    for layer in LAYERS:
        for path in (PKG / layer).rglob("*.py") if (PKG / layer).exists() else []:
            for imported in _imports(path) & set(LAYERS):
                if imported != layer and imported not in ALLOWED[layer]:
                    bad.append(f"{path.relative_to(PKG)} imports {imported}")
    assert not bad, "layer violations:\n" + "\n".join(bad)


def test_numba_only_in_kernels_and_always_cached():
    bad = []
    for path in PKG.rglob("*.py"):
        text = path.read_text()
        in_kernels = "kernels" in path.relative_to(PKG).parts[:-1]     # kernels/ and its subfolders
        if ("@njit" in text or "@jit" in text or "jitclass" in text) and not in_kernels:
            bad.append(f"{path.relative_to(PKG)}: numba outside kernels/")
        if in_kernels:
            tree = ast.parse(text)
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef):
                    for dec in node.decorator_list:
                        if isinstance(dec, ast.Call) and getattr(dec.func, "id", "") == "njit":
                            if not any(k.arg == "cache" and getattr(k.value, "value", False) for k in dec.keywords):
                                bad.append(f"{path.name}:{node.name} lacks cache=True")
                        elif getattr(dec, "id", "") == "njit":
                            bad.append(f"{path.name}:{node.name} lacks cache=True")
            # jitclass used in code (an import, a name or an attribute), not a word in a docstring
            if any(getattr(n, "id", None) == "jitclass" or getattr(n, "attr", None) == "jitclass"
                   or (isinstance(n, ast.alias) and n.name.split(".")[-1] == "jitclass")
                   or (isinstance(n, ast.ImportFrom) and (n.module or "").endswith("jitclass"))
                   for n in ast.walk(tree)):
                bad.append(f"{path.name}: jitclass")
    assert not bad, "\n".join(bad)


def test_kernel_subfolders_are_covered_by_the_content_hash_cache(tmp_path, monkeypatch):
    """A kernel module in a subfolder is hashed (a change there renews the cache key) and found by the locator;
    without that it would fall back to numba's own cache, which misses changes in the modules a kernel calls."""
    from fmu_mbs import kernels

    (tmp_path / "families").mkdir()
    (tmp_path / "system.py").write_text("X = 1\n")
    (tmp_path / "families" / "spring.py").write_text("K = 1.0\n")
    monkeypatch.setattr(kernels, "_KERNEL_DIR", str(tmp_path))
    before = kernels._hash_sources(str(tmp_path))
    (tmp_path / "families" / "spring.py").write_text("K = 2.0\n")
    assert kernels._hash_sources(str(tmp_path)) != before
    assert kernels._in_kernel_tree(str(tmp_path / "families" / "spring.py"))
    assert kernels._in_kernel_tree(str(tmp_path / "system.py"))
    assert not kernels._in_kernel_tree(str(tmp_path.parent / "analyses" / "evaluate.py"))
    assert not kernels._in_kernel_tree(str(tmp_path) + "_other/x.py")


def test_every_package_folder_is_a_regular_package():
    """setuptools' find_packages skips folders without __init__.py: a plain 'pip install .' would drop them."""
    missing = [str(d.relative_to(PKG.parent)) for d in [PKG, *PKG.rglob("*")]
               if d.is_dir() and d.name != "__pycache__" and any(d.glob("*.py")) and not (d / "__init__.py").exists()]
    assert not missing, missing
