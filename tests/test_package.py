"""The package's house: installed editable, a core of numpy and torch alone, layers that build on it, no cycles."""

import ast
import importlib.metadata
import inspect
import subprocess
import sys
from pathlib import Path

import rope_lib
from paths import ROOT

PACKAGE = ROOT / "rope_lib"
LAYERS = ("teach", "kernels")
"""The subpackages beside the core; the core's own modules are the others."""
BOOK_ONLY = {"matplotlib", "sympy", "ipywidgets", "transformers", "PIL", "IPython"}


def test_import_works_from_any_directory(tmp_path):
    out = subprocess.run(
        [sys.executable, "-c", "import rope_lib, os; print(os.path.dirname(rope_lib.__file__))"],
        cwd=tmp_path, capture_output=True, text=True, check=True,
    )
    assert Path(out.stdout.strip()) == PACKAGE


def test_importing_the_core_imports_numpy_and_torch_only(tmp_path):
    code = "import rope_lib, sys; print(sorted({m.split('.')[0] for m in sys.modules} & %r))" % BOOK_ONLY
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_core_requires_numpy_and_torch_and_the_book_extra_the_rest():
    requirements = importlib.metadata.requires("rope_lib")
    core = sorted(r.split(">")[0].split("=")[0] for r in requirements if "extra ==" not in r)
    assert core == ["numpy", "torch"]
    book = {r.split(">")[0].split("=")[0] for r in requirements if 'extra == "book"' in r}
    assert {"sympy", "matplotlib", "ipywidgets"} <= book
    assert "-e .[book]" in (ROOT / "requirements.txt").read_text().splitlines()


PRACTITIONER_API = {
    "apply_rope", "rope_cos_sin", "precompute_freqs_cis", "apply_rotary_emb", "inv_freq", "DEFAULT_BASE",  # rotation
    "RopeScaling",  # scaling
    "Model", "ModelConfig",  # the model
    "from_hf_state_dict", "config_from_hf", "scaling_from_hf",  # the loaders
    "permute_rows_to_half", "permute_rows_to_interleaved",  # the layouts
}
"""The top level: what a practitioner uses. The book's other names are reached through their modules."""


def test_the_top_level_holds_what_a_practitioner_uses():
    assert set(rope_lib.__all__) == PRACTITIONER_API
    public = {name for name in vars(rope_lib) if not name.startswith("_") and not isinstance(getattr(rope_lib, name), type(rope_lib))}
    assert public == PRACTITIONER_API, "a name at the top level that __all__ does not list"
    assert rope_lib.scaling.yarn_inv_freq and rope_lib.llama.Attention and rope_lib.relative_bias.t5_relative_bucket
    assert rope_lib.__version__ == importlib.metadata.version("rope_lib")


def test_every_public_signature_is_annotated():
    """py.typed promises type hints: every parameter and return of the top level's functions and constructors."""
    for name in PRACTITIONER_API:
        obj = getattr(rope_lib, name)
        if not callable(obj):
            continue
        signature = inspect.signature(obj.__init__ if inspect.isclass(obj) else obj)
        bare = [p for p, v in signature.parameters.items() if p != "self" and v.annotation is inspect.Parameter.empty]
        assert not bare and signature.return_annotation is not inspect.Signature.empty, f"{name}: {bare or 'return'}"


def test_public_api_is_flat_and_complete():
    for name in rope_lib.__all__:
        assert hasattr(rope_lib, name), name
    for layer in LAYERS:
        module = importlib.import_module(f"rope_lib.{layer}")
        for name in module.__all__:
            assert hasattr(module, name), f"rope_lib.{layer}.{name}"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """The rope_lib modules a file imports, relative imports resolved."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            if base.split(".")[0] == "rope_lib":
                targets = [f"{base}.{alias.name}" for alias in node.names]
                found |= {t if (PACKAGE.parent / (t.replace(".", "/") + ".py")).exists() or (PACKAGE.parent / t.replace(".", "/")).is_dir() else base for t in targets}
        elif isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.split(".")[0] == "rope_lib"}
    return found


def graph() -> dict[str, set[str]]:
    return {module_name(p): imports_of(p) for p in PACKAGE.rglob("*.py")}


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else "core"


def test_no_module_of_the_core_imports_a_layer():
    for module, targets in graph().items():
        if layer_of(module) == "core":
            assert not {t for t in targets if layer_of(t) != "core"}, f"{module} imports {targets}"


def test_the_kernels_build_on_the_core_and_never_on_the_teaching_helpers():
    for module, targets in graph().items():
        if layer_of(module) == "kernels":
            assert not {t for t in targets if layer_of(t) == "teach"}, f"{module} imports {targets}"


def test_no_import_cycle():
    edges = graph()

    def visit(module, path):
        for target in edges.get(module, ()):
            if target == module:
                continue
            # a package's __init__ importing its own submodules is how a package gathers its API, not a cycle
            if module.startswith(target + ".") and target in edges and target != "rope_lib":
                continue
            assert target not in path, f"import cycle: {' → '.join(path + [target])}"
            visit(target, path + [target])

    for module in edges:
        visit(module, [module])


def test_the_cycle_test_can_fail(monkeypatch):
    """Plant rope.py importing the decoder module, which imports rope: the test must see the cycle."""
    import pytest

    real = imports_of

    def planted(path):
        found = real(path)
        return found | {"rope_lib.llama"} if path.name == "rope.py" else found

    monkeypatch.setitem(globals(), "imports_of", planted)
    with pytest.raises(AssertionError, match="import cycle"):
        test_no_import_cycle()
