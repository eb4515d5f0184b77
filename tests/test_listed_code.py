"""The rope_lib functions the chapters list hold the computation alone: their arguments are checked by the
`@checked_by(...)` line above them (`rope_lib._validate`), never in the body a reader is shown. Both editions."""

import ast
import importlib
import inspect
import re
import textwrap

import numpy as np
import pytest
import torch

import rope_lib
from rope_lib import _validate
from rope_lib.teach import tokens_and_attention
from rope_lib.teach.trained_models import train_model
from paths import CHINESE, ROOT

LISTING = re.compile(r"```\{literalinclude\} (?:\.\./)+(rope_lib/[\w/]+)\.py\n(?::[\w-]+:.*\n)*?:pyobject: ([\w.]+)")
"""A literalinclude of a rope_lib object, whatever options come before :pyobject:: its module's path and dotted name."""

VALIDATORS = {name for name, value in vars(_validate).items() if inspect.isfunction(value)} - {"checked_by", "compute_dtype"}
"""The names of the validation module's checks: a call to one of them is an argument check (`compute_dtype`, the
dtype a rotation is computed in, is not one). A module's own checks are named require_* or *_arguments."""


def is_check(name: str | None) -> bool:
    return name is not None and (name in VALIDATORS or name.startswith("require_") or name.endswith("_arguments"))

CHAPTERS = sorted(ROOT.glob("book/*.md")) + sorted(CHINESE.glob("*.md"))


def listed(chapter) -> list[tuple[str, object]]:
    """(dotted name, object) of every rope_lib function or method the chapter lists."""
    found = []
    for path, name in LISTING.findall(chapter.read_text()):
        obj = importlib.import_module(path.replace("/", "."))
        for part in name.split("."):
            obj = getattr(obj, part)
        found.append((f"{path}.{name}", obj))
    return found


def checks_in_body(source: str) -> list[str]:
    """The argument checks in the body of the function `source` defines: each `raise`, and each call to a function
    of `rope_lib._validate` or to a module's own check, as 'line N: the statement'. Its decorators are not its body."""
    definition = ast.parse(textwrap.dedent(source)).body[0]
    found = []
    for statement in definition.body:
        for node in ast.walk(statement):
            called = node.func.attr if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else (
                node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) else None)
            if isinstance(node, ast.Raise) or is_check(called):
                found.append(f"line {node.lineno}: {ast.unparse(node)[:80]}")
    return found


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda path: str(path.relative_to(ROOT)))
def test_a_listed_function_checks_no_argument_in_its_body(chapter):
    for name, obj in listed(chapter):
        found = checks_in_body(inspect.getsource(inspect.unwrap(obj)))
        assert not found, f"{chapter.relative_to(ROOT)} lists {name}, whose body checks its arguments: {found}"


def test_the_chapters_list_rope_lib_code():
    names = {name for chapter in CHAPTERS for name, _ in listed(chapter)}
    assert len(names) >= 40, sorted(names)
    assert "rope_lib/teach/tokens_and_attention.tokenize" in names and "rope_lib/llama.Attention.forward" in names


def test_a_check_planted_in_a_body_is_found():
    planted = '''
        @checked_by(arguments(d=require_even_dim, base=require_base))
        def inv_freq(d, base):
            d = require_even_dim(d, "d")
            if base <= 1:
                raise ValueError("base must be above 1")
            return base ** (-np.arange(0, d, 2) / d)
    '''
    found = checks_in_body(planted)
    assert [entry.split(":")[0] for entry in found] == ["line 4", "line 6"], found
    assert checks_in_body(planted.replace("d = require_even_dim(d, \"d\")", "pass").replace(
        'raise ValueError("base must be above 1")', "pass")) == []


def test_a_listed_function_still_refuses_a_bad_argument():
    """Moving a check to the edge keeps it: a call from outside the library meets it, with the argument's name."""
    with pytest.raises(ValueError, match="d must be a positive even integer"):
        rope_lib.inv_freq(7)
    with pytest.raises(TypeError, match="text must be a str"):
        tokens_and_attention.tokenize(3)
    with pytest.raises(ValueError, match="w_k must have shape"):
        tokens_and_attention.self_attention([[1.0, 2.0]], [[1.0, 0.0]], [[1.0]], [[1.0, 0.0]])


def test_code_a_listed_function_is_handed_is_checked_as_any_outside_call():
    """`is_permutation_equivariant` runs the layer it is given and `train_model` the task's batches through the model:
    checks run on every call, wherever it comes from, so a mistake there is still named."""
    x, w = np.eye(3), np.eye(3)
    with pytest.raises(ValueError, match="w_k must have shape"):
        tokens_and_attention.is_permutation_equivariant(lambda rows: tokens_and_attention.self_attention(rows, w, w[:, :2], w)[0], x, [2, 0, 1])

    class OutOfVocabulary:
        def batch(self, seq_len, batch_size, generator):
            tokens = torch.full((batch_size, seq_len), 99)  # the model's vocabulary has 16 tokens
            return tokens, tokens

    config = rope_lib.ModelConfig(vocab_size=16, dim=8, n_layers=1, n_heads=2, hidden_dim=16, max_seq_len=8, device="cpu")
    with pytest.raises(ValueError, match=r"tokens must be token ids in \[0, vocab_size=16\)"):
        train_model(rope_lib.Model(config), OutOfVocabulary(), seq_len=4, steps=1, batch_size=2)


def test_the_paths_inside_the_model_keep_the_checks_the_listed_functions_gave_up():
    """A model's layers call the rules' listed functions without their checks (the config was checked when it was made),
    so what those checks guarded is checked where a config or a rule is made: the NTK-aware exponent d/(d−2) needs a
    rotary dimension of 4 or more, and LongRoPE's attention factor divides by ln L."""
    for method in ("ntk", "dynamic"):
        rule = rope_lib.RopeScaling(method, 2.0, original_max_len=16)
        with pytest.raises(ValueError, match=f"scaling method '{method}' must be at least 4"):
            rope_lib.ModelConfig(vocab_size=8, dim=4, n_layers=1, n_heads=2, hidden_dim=8, scaling=rule, device="cpu")
    with pytest.raises(ValueError, match=r"original_max_len must be at least 2 \(ln L is the denominator\)"):
        rope_lib.RopeScaling("longrope", 2.0, original_max_len=1, short_factor=(1.0,), long_factor=(1.0,))
