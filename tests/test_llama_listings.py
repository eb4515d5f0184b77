"""Every rope_lib listing of the chapter "The LLaMA implementation", solutions included, in both editions, is
code that runs when a model is built from Hugging Face weights (either layout) and then runs `forward` and
`generate`: the chapter shows the code the model runs, not a copy beside it."""

import importlib
import inspect
import re
import sys

import pytest
import torch

import rope_lib
from paths import ROOT

LISTING = re.compile(r"```\{literalinclude\} (?:\.\./)+(rope_lib/[\w/]+)\.py\n:pyobject: ([\w.]+)")
"""A literalinclude of a rope_lib object: its module's path and the object's dotted name."""


def listed(chapter):
    """The functions a chapter lists from rope_lib, by name, each unwrapped to the function that runs its body."""
    found = {}
    for path, name in LISTING.findall(chapter.read_text()):
        obj = importlib.import_module(path.replace("/", "."))
        for part in name.split("."):
            obj = getattr(obj, part)
        found[f"{path}.{name}"] = inspect.unwrap(obj)
    return found


def codes_run_by(work) -> set:
    """The code objects of every Python function called while work() runs."""
    seen = set()

    def profile(frame, event, arg):
        if event == "call":
            seen.add(frame.f_code)

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return seen


def a_model_at_work():
    """Build a tiny Llama from Hugging Face's weights in both layouts, then run forward and generate."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=48, num_hidden_layers=2, num_attention_heads=4,
                         num_key_value_heads=2, max_position_embeddings=32)
    hf = LlamaForCausalLM(config).eval()

    def work():
        for layout in ("half", "interleaved"):
            model = rope_lib.from_hf_state_dict(hf.state_dict(), config, layout=layout, device="cpu")
            tokens = torch.randint(0, 64, (1, 6))
            model(tokens, use_cache=False)
            model.generate(tokens, 4)

    return work


@pytest.fixture(scope="module")
def ran():
    pytest.importorskip("transformers")
    return codes_run_by(a_model_at_work())


@pytest.mark.parametrize("edition", ["book", "book/zh"])
def test_every_listed_rope_lib_function_runs_in_the_model(edition, ran):
    shown = listed(ROOT / edition / "llama_implementation.md")
    assert len(shown) >= 5, f"the chapter lists {sorted(shown)}"
    missing = sorted(name for name, function in shown.items() if function.__code__ not in ran)
    assert not missing, f"listed in {edition}/llama_implementation.md but not run by the model: {missing}"


def test_the_trace_sees_a_function_the_model_does_not_run(ran):
    """The planted case: Meta's complex form, kept in rope_lib to read beside Meta's, is not what the model runs."""
    assert inspect.unwrap(rope_lib.apply_rotary_emb).__code__ not in ran
    assert inspect.unwrap(rope_lib.rope.rotate_pairs).__code__ in ran
