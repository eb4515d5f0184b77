"""rope_lib.teach.speed_report: what the speed chapter reads of a `make bench` report, and nothing else."""

import json

import pytest

from rope_lib.teach.implementations_and_speed import RECORD_KEYS, load_report, lookup, seq_lens


def report():
    records = [
        {"impl": impl, "layout": layout, "device": "cpu", "dtype": "fp32", "seq_len": s, "ms": ms, "gbps": 1.0, "ratio_to_copy": 1.0 / ms}
        for s in (2048, 512)
        for impl, layout, ms in [("copy", "any", 1.0), ("rope_lib_fused", "half", 1.25)]
    ]
    return {"machine": {"cpu": "Test CPU"}, "results": records}


def test_lookup_finds_exactly_one_record():
    assert lookup(report(), "rope_lib_fused", "half", "fp32", 2048)["ms"] == 1.25
    with pytest.raises(KeyError, match="expected one record of hf"):
        lookup(report(), "hf", "half", "fp32", 2048)


def test_seq_lens_are_the_lengths_timed_shortest_first():
    assert seq_lens(report()) == [512, 2048]


def test_load_report_reads_a_report_and_checks_its_records(tmp_path):
    path = tmp_path / "bench_cpu.json"
    path.write_text(json.dumps(report()))
    assert load_report(path) == report()
    broken = report()
    broken["results"][0] = {key: broken["results"][0][key] for key in RECORD_KEYS[:-1]}
    path.write_text(json.dumps(broken))
    with pytest.raises(ValueError, match=r"a record must have the fields"):
        load_report(path)
    with pytest.raises(FileNotFoundError, match=r"path must name a report written by `make bench`"):
        load_report(tmp_path / "bench_cuda.json")
