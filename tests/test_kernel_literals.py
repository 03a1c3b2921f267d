"""No kernel passes a Python bool or int constant to a compiled (not inlined) kernel.

numba types such an argument as ``Literal[bool](False)`` or ``Literal[int](0)`` and compiles the callee once per
literal value, besides the compile for a variable of that type: each one a whole LLVM module with the callee's own
callees linked in (a fresh-clone CI cache held three compiles of the explicit integrator's end-of-step forces this
way). Kernels pass kernels/model_arrays.py's TRUE, FALSE, ZERO or a MODE_* constant (numpy scalars, not literals).
The check reads the kernel sources; calls are resolved through each module's own definitions and imports."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "fmu_mbs" / "kernels"
JIT = {"njit", "jit", "inner_kernel"}


def _decorator(node: ast.FunctionDef) -> ast.expr | None:
    for d in node.decorator_list:
        target = d.func if isinstance(d, ast.Call) else d
        if (getattr(target, "id", None) or getattr(target, "attr", None)) in JIT:
            return d
    return None


def _is_inlined(decorator: ast.expr) -> bool:
    return isinstance(decorator, ast.Call) and any(
        k.arg == "inline" and isinstance(k.value, ast.Constant) and k.value.value == "always"
        for k in decorator.keywords)


def _module_name(path: Path) -> str:
    parts = path.relative_to(KERNELS).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(module: str, level: int, name: str | None, is_package: bool) -> str:
    """Absolute module name (relative to the kernel folder) of ``from <level dots><name> import ...``."""
    base = module.split(".") if module else []
    if not is_package:
        base = base[:-1]
    base = base[:len(base) - (level - 1)] if level > 1 else base
    return ".".join([*base, *(name.split(".") if name else [])])


def _scan() -> tuple[dict[str, dict[str, bool]], dict[str, ast.Module], dict[str, bool]]:
    """Per module: {function: compiled and not inlined}; the parsed trees; whether the module is a package."""
    kernels, trees, packages = {}, {}, {}
    for path in sorted(KERNELS.rglob("*.py")):
        mod = _module_name(path)
        tree = ast.parse(path.read_text())
        trees[mod], packages[mod] = tree, path.name == "__init__.py"
        kernels[mod] = {node.name: not _is_inlined(dec) for node in tree.body
                        if isinstance(node, ast.FunctionDef) and (dec := _decorator(node)) is not None}
    return kernels, trees, packages


def _literal(arg: ast.expr) -> bool:
    if isinstance(arg, ast.UnaryOp) and isinstance(arg.op, ast.USub):
        arg = arg.operand
    return isinstance(arg, ast.Constant) and isinstance(arg.value, (bool, int))


def test_kernels_pass_no_literal_to_a_compiled_kernel():
    kernels, trees, packages = _scan()
    assert sum(len(k) for k in kernels.values()) > 150, "the scan lost the kernels: did the decorators change?"
    offenders = []
    for mod, tree in trees.items():
        names: dict[str, tuple[str, str]] = {n: (mod, n) for n in kernels[mod]}    # name -> (module, function)
        modules: dict[str, str] = {}                                                # alias -> module
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.level > 0:
                source = _resolve(mod, node.level, node.module, packages[mod])
                for alias in node.names:
                    sub = f"{source}.{alias.name}" if source else alias.name
                    if sub in kernels:
                        modules[alias.asname or alias.name] = sub
                    elif source in kernels and alias.name in kernels[source]:
                        names[alias.asname or alias.name] = (source, alias.name)
        for func in tree.body:
            if not isinstance(func, ast.FunctionDef) or _decorator(func) is None:
                continue
            for call in ast.walk(func):
                if not isinstance(call, ast.Call):
                    continue
                target = None
                if isinstance(call.func, ast.Name) and call.func.id in names:
                    target = names[call.func.id]
                elif (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
                      and call.func.value.id in modules):
                    target = (modules[call.func.value.id], call.func.attr)
                if target is None or not kernels.get(target[0], {}).get(target[1], False):
                    continue
                for k, arg in enumerate([*call.args, *(kw.value for kw in call.keywords)]):
                    if _literal(arg):
                        offenders.append(f"kernels/{mod.replace('.', '/')}.py:{call.lineno} {func.name} passes "
                                         f"{ast.unparse(arg)} to {target[0]}.{target[1]} (argument {k})")
    assert not offenders, "literal arguments to compiled kernels:\n" + "\n".join(offenders)
