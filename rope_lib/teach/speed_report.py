"""Reading a `make bench` report (benchmarks/rope_speed.py writes it), for chapter "Implementations and speed".

The chapter never runs the benchmark: it reads the committed JSON, `book/data/bench_<device>.json`.
This module only reads; nothing in rope_lib writes into the book.
"""

from __future__ import annotations

import json
from pathlib import Path

RECORD_KEYS = ("impl", "layout", "device", "dtype", "seq_len", "ms", "gbps", "ratio_to_copy")
"""The fields of one timing record, in order."""


def load_report(path) -> dict:
    """The report at `path` (a bench_<device>.json), with every record checked to have RECORD_KEYS."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"path must name a report written by `make bench`, got {str(path)!r}, which does not exist")
    report = json.loads(path.read_text())
    for record in report["results"]:
        if tuple(record) != RECORD_KEYS:
            raise ValueError(f"{path}: a record must have the fields {RECORD_KEYS}, got {tuple(record)}")
    return report


def seq_lens(report: dict) -> list[int]:
    """The sequence lengths S the report timed, shortest first."""
    return sorted({r["seq_len"] for r in report["results"]})


def lookup(report: dict, impl: str, layout: str, dtype: str, seq_len: int) -> dict:
    """The one record of `impl` in `layout` for dtype and S."""
    found = [r for r in report["results"] if (r["impl"], r["layout"], r["dtype"], r["seq_len"]) == (impl, layout, dtype, seq_len)]
    if len(found) != 1:
        raise KeyError(f"expected one record of {impl} ({layout}, {dtype}, S={seq_len}), found {len(found)}")
    return found[0]
