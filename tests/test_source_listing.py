"""rope_lib.teach.shared.source_listing: another project's code shown from the installed package, lines named by fragments."""

import functools

import pytest

from rope_lib.teach.shared.source_listing import SourceListing


def sample(x):
    doubled = x * 2  # the first step
    return (
        doubled
        + 1
    )


@functools.lru_cache(maxsize=None)
def cached(n):
    return n + 1


class Shape:
    def area(self, side):
        return side * side


def test_lines_are_numbered_from_the_first_line_of_the_object():
    listing = SourceListing(sample)
    assert listing.lines[0] == "def sample(x):" and listing.first == 1 and listing.last == 6
    assert listing.line_of("the first step") == 2 and listing.line_of("+ 1") == 5
    assert listing.line_text("doubled = x") == "doubled = x * 2  # the first step"


def test_a_method_is_dedented_and_a_decorator_is_line_one():
    assert SourceListing(Shape.area).lines == ["def area(self, side):", "    return side * side"]
    assert SourceListing(cached.__wrapped__).line_of("lru_cache") == 1


def test_a_fragment_must_name_exactly_one_line():
    listing = SourceListing(sample)
    with pytest.raises(ValueError, match="'absent' is in no line"):
        listing.line_of("absent")
    with pytest.raises(ValueError, match=r"'doubled' is in 2 lines \(2, 4\)"):
        listing.line_of("doubled")
    with pytest.raises(TypeError, match="fragment must be a non-empty string"):
        listing.line_of("  ")


def test_start_and_stop_show_whole_statements_numbered_as_in_the_whole():
    listing = SourceListing(sample, start="the first step", stop="return (")
    assert (listing.first, listing.last) == (2, 6)  # the return statement runs to its closing bracket
    assert listing.shown[0].strip().startswith("doubled = x") and listing.shown[-1].strip() == ")"
    text = str(listing)
    assert text.splitlines()[1].startswith("2 ") and text.splitlines()[-1].startswith("6 ")
    with pytest.raises(ValueError, match="comes before"):
        SourceListing(sample, start="return (", stop="the first step")


def test_emphasized_lines_are_marked_in_text_and_html():
    listing = SourceListing(sample, emphasize=["the first step"])
    assert listing.emphasized == (2,)
    assert "2* " in str(listing)
    page = listing._repr_html_()
    assert 'class="highlight"' in page
    # the number of an emphasized line stands before the emphasis, on the plain background
    assert '<span class="linenos">2</span><span class="hll">' in page and '<span class="hll"><span class="linenos">' not in page
    assert "test_source_listing.<wbr>sample" in page  # the caption's name may wrap after each dot
    with pytest.raises(ValueError, match="outside the lines shown"):
        SourceListing(sample, start="return (", emphasize=["the first step"])
    with pytest.raises(TypeError, match="list of line fragments"):
        SourceListing(sample, emphasize="the first step")


def test_the_html_starts_its_numbers_at_the_first_line_shown():
    page = SourceListing(sample, start="return (")._repr_html_()
    assert '<span class="linenos">3</span>' in page and '<span class="linenos">1</span>' not in page


def test_only_code_objects_are_listed():
    with pytest.raises(TypeError, match="obj must be a function, method or class, got int"):
        SourceListing(42)


def test_the_caption_names_the_installed_distribution_and_its_version():
    from importlib.metadata import version

    from llama_models.llama3 import model as meta

    listing = SourceListing(meta.precompute_freqs_cis)
    assert listing.caption.startswith("llama_models.llama3.model.precompute_freqs_cis (")
    assert version("llama-models") in listing.caption
    assert listing.line_of("torch.outer") > listing.line_of("def precompute_freqs_cis")
