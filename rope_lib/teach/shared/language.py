"""The languages the book is written in, and the one way a helper picks the words a reader sees.

Every plotting, widget and exercise-check function that shows words takes `lang`, keyword-only, "en" by
default; the Chinese edition (book/zh/) passes "zh". A function writes each visible string once per language,
`text(lang, en="pair index", zh="频率对序号")`, beside the code that uses it, so a new label cannot be added in one
language only. Symbols and numbers ($\\theta_i$, m − n) are the same in both.
"""

from __future__ import annotations

from dataclasses import dataclass

LANGUAGES = ("en", "zh")
"""English, the default, and Simplified Chinese."""


def require_language(lang) -> str:
    """`lang` if it is one of LANGUAGES; a ValueError naming the argument otherwise."""
    if not isinstance(lang, str) or lang not in LANGUAGES:
        raise ValueError(f"lang must be one of {LANGUAGES}, got {lang!r}")
    return lang


def text(lang, en: str, zh: str) -> str:
    """The words of one visible string in `lang`: `en` for English, `zh` for Chinese."""
    return en if require_language(lang) == "en" else zh


def is_han(character: str) -> bool:
    """A Chinese (CJK unified) ideograph."""
    return "\u4e00" <= character <= "\u9fff" or "\u3400" <= character <= "\u4dbf"


def join_names(names: list[str], *, lang: str = "en") -> str:
    """Names listed as a sentence lists them: "A", "A and B", "A, B and C"; in Chinese "A、B 和 C", with a space beside
    和 only where it meets a Latin name ("NoPE 和 ALiBi", "正弦位置编码和可学习位置编码")."""
    require_language(lang)
    if not names:
        raise ValueError("names must hold at least one name, got none")
    if len(names) == 1:
        return names[0]
    if lang == "en":
        return f"{', '.join(names[:-1])} and {names[-1]}"
    first, last = "、".join(names[:-1]), names[-1]
    return f"{first}{'' if is_han(first[-1]) else ' '}和{'' if is_han(last[0]) else ' '}{last}"


def word_count(words: str) -> int:
    """Words in English or Chinese text: runs between spaces, with every two Chinese characters counted as a word
    (Chinese is written without spaces)."""
    han = sum(is_han(c) for c in words)
    latin = len("".join(" " if is_han(c) else c for c in words).split())
    return latin + han // 2


@dataclass(frozen=True)
class Words:
    """One visible string in both languages, for text written before the reader's language is known (an exercise's
    hints, raised deep inside a check and shown by `run_check`)."""

    en: str
    zh: str

    def __post_init__(self):
        for name in ("en", "zh"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise ValueError(f"{name} must be a non-empty string, got {value!r}")

    def in_language(self, lang) -> str:
        return text(lang, en=self.en, zh=self.zh)
