"""`python -m benchmarks.rope_speed`: the record format on a tiny run, and the committed results. Timings are never asserted."""

import json
import math

import pytest
import torch

from benchmarks import decode_speed
from benchmarks import rope_speed as bench
from benchmarks.rope_speed import DATA_DIR, bf16_pitfalls, format_table, main, tensor_bytes, time_round_robin
from rope_lib.teach.implementations_and_speed import RECORD_KEYS, load_report

PEER_IMPLS = {"meta", "hf", "lucidrains"}
OWN_IMPLS = {"copy", "rope_lib_eager", "rope_lib_fused", "rope_lib_fused_inplace", "rope_lib_compiled", "rope_lib_fused_permuted", "rope_lib_pair_axis"}


def check_records(report, devices, dtypes, seq_lens):
    """Every record has the eight fields, consistent units, and every (device, dtype, S) has its copy row."""
    results = report["results"]
    assert results
    for r in results:
        assert tuple(r) == RECORD_KEYS
        assert r["device"] in devices and r["dtype"] in dtypes and r["seq_len"] in seq_lens
        assert r["layout"] in ("any", "half", "interleaved")
        assert r["ms"] > 0
        assert math.isclose(r["gbps"], tensor_bytes(r["seq_len"], bench.DTYPES[r["dtype"]]) / r["ms"] / 1e6)
    for device in devices:
        for dtype in dtypes:
            for s in seq_lens:
                rows = {(r["impl"], r["layout"]): r for r in results if (r["device"], r["dtype"], r["seq_len"]) == (device, dtype, s)}
                assert {impl for impl, _ in rows} >= OWN_IMPLS | PEER_IMPLS
                assert rows[("copy", "any")]["ratio_to_copy"] == 1.0
                for r in rows.values():
                    assert math.isclose(r["ratio_to_copy"], rows[("copy", "any")]["ms"] / r["ms"])


def check_decode(record, size, *, rounds):
    """A decode record: the shape timed, the four speeds (each model eager and compiled), their ratios, the
    compilations timed apart, the roofline, and the same 128 greedy tokens from all four."""
    assert record["size"] == size and record["config"] == decode_speed.SIZES[size] and record["device"] == "cpu"
    assert record["prompt_len"] == 16 and record["new_tokens"] == 128 and record["rounds"] == rounds
    assert record["tokens_made"] == [128] * 4 and record["identical_tokens"] is True
    speeds = {key: record[f"{key}_tokens_per_s"] for key in ("hf", "rope_lib", "hf_compiled", "rope_lib_compiled")}
    assert all(speed > 0 for speed in speeds.values())
    assert math.isclose(record["ratio"], speeds["rope_lib"] / speeds["hf"])
    assert math.isclose(record["compiled_ratio_to_hf_eager"], speeds["rope_lib_compiled"] / speeds["hf"])
    assert math.isclose(record["compiled_ratio_to_hf_compiled"], speeds["rope_lib_compiled"] / speeds["hf_compiled"])
    assert math.isclose(record["compiled_share_of_roofline"], speeds["rope_lib_compiled"] / record["roofline_tokens_per_s"])
    assert set(record["compile_s"]) == {"hf_compiled", "rope_lib_compiled"} and min(record["compile_s"].values()) >= 0
    assert record["copy_gb_per_s"] > 0 and record["dtype"] == "float32"
    assert record["matvec_ceiling_tokens_per_s"] > 0 and set(record["rope_call_us"]) == {"fused_checked", "eager_unchecked"}


def test_decode_parameter_counts_are_about_3m_and_80m():
    hf, ours, _ = decode_speed.build_pair(decode_speed.SIZES["3M"], torch.device("cpu"))
    assert 2.5e6 < sum(p.numel() for p in hf.parameters()) == sum(p.numel() for p in ours.parameters()) < 3.5e6
    config = decode_speed.SIZES["80M"]
    d, f, layers, vocab = config["hidden_size"], config["intermediate_size"], config["num_hidden_layers"], config["vocab_size"]
    assert 75e6 < layers * (4 * d * d + 3 * d * f + 2 * d) + 2 * vocab * d + d < 85e6  # the same count, without building it


@pytest.mark.slow
def test_decode_comparison_sees_a_model_that_decodes_other_tokens(monkeypatch):
    build = decode_speed.build_pair

    def one_weight_off(*args, **kwargs):
        hf, ours, config = build(*args, **kwargs)
        with torch.no_grad():
            ours.output.weight[3] += 10.0  # token 3 now wins every step
        return hf, ours, config

    monkeypatch.setattr(decode_speed, "build_pair", one_weight_off)
    assert decode_speed.compare("3M", torch.device("cpu"), rounds=1)["identical_tokens"] is False


@pytest.mark.slow
def test_a_tiny_run_writes_the_documented_json(tmp_path, capsys):
    main([
        "--seq-lens", "16", "--dtypes", "fp32", "--devices", "cpu", "--repeats", "1", "--warmup", "1",
        "--decode-sizes", "3M", "--decode-rounds", "1", "--output-dir", str(tmp_path),
    ])
    printed = capsys.readouterr().out
    assert "rope_lib_fused" in printed and "x copy" in printed and "HF comp." in printed and "roofline" in printed
    report = json.loads((tmp_path / "bench_cpu.json").read_text())
    for key in ("date", "machine", "versions", "method", "impls", "results", "permutation", "roofline", "pitfalls", "kernels", "decode"):
        assert key in report
    (decode,) = report["decode"]
    check_decode(decode, "3M", rounds=1)
    assert report["versions"]["torch"] == torch.__version__
    assert set(report["impls"]) >= OWN_IMPLS | PEER_IMPLS
    check_records(report, {"cpu"}, {"fp32"}, {16})
    assert report["permutation"][0]["weight_shape"] == [bench.MODEL_DIM, bench.MODEL_DIM]
    assert format_table(report).splitlines()[0].split()[:4] == ["device", "dtype", "S", "impl"]


def test_bf16_pitfall_is_measured_on_the_real_package():
    found = bf16_pitfalls(torch.device("cpu"), 600)
    positions = found["lucidrains_positions"]
    assert positions["first_wrong"] == 257  # bf16(257) == 256
    assert positions["max_error_below"] == {"256": 0.0, "512": 1.0}
    assert positions["max_error"] == 2.0  # above 512, bf16 integers are 4 apart
    errors = found["output_error"]
    assert errors["lucidrains"]["max_below_256"] < 0.01 < errors["lucidrains"]["max_from_256"]
    for impl in ("rope_lib_fused", "meta", "hf"):
        assert errors[impl]["max"] < 0.02


def test_round_robin_reports_a_time_per_function_and_cycles_the_slots():
    calls = []
    fns = {"a": lambda slot: calls.append(("a", slot)), "b": lambda slot: calls.append(("b", slot))}
    ms = time_round_robin(fns, [0, 1, 2], device=torch.device("cpu"), warmup=1, repeats=2)
    assert set(ms) == {"a", "b"} and all(v >= 0 for v in ms.values())
    assert [name for name, _ in calls].count("a") == [name for name, _ in calls].count("b") == 1 + 2 * bench.CALLS_PER_ROUND
    assert [slot for _, slot in calls] == [i % 3 for i in range(len(calls))]  # no two successive calls share inputs
    assert bench.ring_size(2**30) == 2 and bench.ring_size(bench.RING_BYTES // 8) == 8


@pytest.mark.parametrize("device", ["cpu"])
def test_committed_results_come_from_a_full_default_run(device):
    path = DATA_DIR / f"bench_{device}.json"
    assert path.exists(), "run `make bench` and commit book/data/bench_cpu.json"
    report = load_report(path)
    assert report["command"] == "python -m benchmarks.rope_speed"  # the defaults: every S, dtype and peer
    assert report["method"]["repeats"] == 15 and report["method"]["warmup"] == 2
    check_records(report, {device}, set(bench.DTYPES), set(bench.SEQ_LENS))
    assert report["pitfalls"]["bf16"]["seq_len"] == bench.PITFALL_SEQ_LEN
    assert [r["size"] for r in report["decode"]] == list(decode_speed.SIZES)
    for record in report["decode"]:
        check_decode(record, record["size"], rounds=decode_speed.ROUNDS[record["size"]])
    decode = {r["size"]: r for r in report["decode"]}
    assert decode["3M"]["compiled_ratio_to_hf_eager"] >= 2  # the compiled step's targets, in the committed run
    assert all(r["compiled_ratio_to_hf_compiled"] >= 1 for r in decode.values())
    assert decode["80M"]["compiled_share_of_roofline"] >= 0.7


def test_speed_figure_is_drawn_from_the_report_and_described():
    from rope_lib.teach.implementations_and_speed import plot_speed

    records = [
        {"impl": impl, "layout": layout, "device": "cpu", "dtype": dtype, "seq_len": s, "ms": 1.0, "gbps": 1.0, "ratio_to_copy": ratio}
        for dtype in ("fp32", "bf16")
        for s in (512, 2048)
        for impl, layout, ratio in [("copy", "any", 1.0), ("rope_lib_fused", "half", 0.93), ("hf", "half", 0.04)]
    ]
    fig = plot_speed({"machine": {"cpu": "Test CPU"}, "results": records})
    assert len(fig.axes) == 2
    assert "Test CPU" in fig.alt_text and "rope_lib_fused (half) 0.93" in fig.alt_text and "hf (half) 0.04" in fig.alt_text
    assert fig.to_png()[:4] == b"\x89PNG"
