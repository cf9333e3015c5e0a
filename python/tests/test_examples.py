"""The Python that README.md and examples/ show runs as written against the installed package."""

import pathlib
import re
import runpy

import numpy as np
import pytest

import treefix_accuracy as ta

ROOT = pathlib.Path(__file__).resolve().parents[2]


def readme_python_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_readme_has_two_python_examples_of_at_most_ten_lines():
    blocks = readme_python_blocks()
    assert len(blocks) == 2, f"README.md has {len(blocks)} python blocks"
    for b in blocks:
        lines = [line for line in b.splitlines() if line.strip()]
        assert len(lines) <= 10, f"a README Python example has {len(lines)} lines"


def test_readme_python_example_grades_the_scan_kernel_and_its_gate_raises():
    # The example ends with assert_accurate on a DFS-order cumsum leaffix, which loses far more
    # than 12 bits: README says it raises, naming the worst vertex.
    scope: dict = {}
    with pytest.raises(ta.AccuracyError, match=r"worst vertex \d+") as raised:
        exec(compile(readme_python_blocks()[0], "README.md", "exec"), scope)
    assert scope["mine"].dtype == np.float32 and scope["mine"].shape == (len(scope["tree"]),)
    # The message and the score the example printed tell the same worst node.
    s = ta.score(scope["tree"], scope["w"], leaffix=scope["mine"]).leaffix
    assert s.max_lost_bits > 12
    assert f"worst vertex {s.worst_vertex}:" in str(raised.value)
    assert f"(max {s.max_lost_bits:.2f})" in str(raised.value)


def test_readme_mixed_precision_example_grades_a_bfloat16_kernel_adding_in_f32(capsys):
    # The second example reuses the first's weights.
    scope: dict = {}
    with pytest.raises(ta.AccuracyError):
        exec(compile(readme_python_blocks()[0], "README.md", "exec"), scope)
    exec(compile(readme_python_blocks()[1], "README.md", "exec"), scope)
    assert str(scope["mine"].dtype) == "bfloat16"
    s = ta.score(scope["chain"], scope["wb"], rootfix=scope["mine"], accumulate="f32").rootfix
    # bf16 has 8 bits: f32 additions rounded once lose few of them on a chain.
    assert s.max_ulps is not None and s.max_lost_bits < 8
    # The f64 kernel: numpy's float64 cumsum, graded out of 53 bits.
    assert scope["w64"].dtype == np.float64
    f64 = ta.score(scope["chain"], scope["w64"], rootfix=np.cumsum(scope["w64"])).rootfix
    assert f64.reference.dtype == np.float64 and 0 < f64.max_lost_bits < 53
    out = capsys.readouterr().out
    assert "bf16" in out and "out of f64's 53 bits" in out


def test_grade_formats_example_runs(capsys):
    runpy.run_path(str(ROOT / "examples" / "grade_formats.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "float16, f16 additions:" in out and "bfloat16, f32 additions:" in out
    assert "float64, f64 additions:" in out and "out of f64's 53 bits" in out


def test_grade_kernel_example_runs(capsys):
    runpy.run_path(str(ROOT / "examples" / "grade_kernel.py"), run_name="__main__")
    out = capsys.readouterr().out
    assert "order-independent bound" in out
    assert re.search(r"worst vertex \d+ loses [0-9.]+ bits", out)
