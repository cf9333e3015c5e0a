"""Calls too large for the machine raise, never abort the interpreter.

A failed allocation inside the extension would end the interpreter with SIGABRT, which no
``except`` catches; so every size is checked first. Each case runs in a child interpreter
under an address-space limit (RLIMIT_AS, as ``ulimit -v``), so that a regression shows as
the child's death, not this one's.
"""

import gzip
import os
import resource
import subprocess
import sys

import pytest

import treefix_accuracy as ta

MiB = 1 << 20


def run_limited(code, limit):
    """Runs `code` after `import numpy as np, treefix_accuracy as ta` in a child interpreter
    whose address space is limited to `limit` bytes; returns the finished process."""

    def limit_address_space():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    prelude = "import numpy as np\nimport treefix_accuracy as ta\n"
    # One BLAS thread: each would reserve address space of its own.
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    return subprocess.run(
        [sys.executable, "-c", prelude + code],
        preexec_fn=limit_address_space,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def raised(call, limit):
    """The exception class name and message that `call` raises in a limited child, or
    'returned' when it returns."""
    code = (
        "try:\n"
        f"    {call}\n"
        "    print('returned')\n"
        "except Exception as e:\n"
        "    print(type(e).__name__ + ': ' + str(e))\n"
    )
    p = run_limited(code, limit)
    assert p.returncode == 0, f"{call}: exit {p.returncode}, stderr: {p.stderr[-2000:]}"
    return p.stdout.strip()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is Linux's")
@pytest.mark.parametrize(
    "call, expected",
    [
        ("ta.generate_tree('chain', 2**40)", "InputError: generate_tree: 1099511627776 vertices"),
        ("ta.generate_tree('chain', 2**31)", "MemoryError: generate_tree: needs about"),
        ("ta.gensum(2**33, 1e5)", "MemoryError: gensum: needs about"),
        (
            "ta.tree_from_parents(np.zeros(2**26, np.int64))",
            "MemoryError: tree_from_parents: needs about",
        ),
        (
            "t = ta.generate_tree('chain', 3_000_000); ta.score(t, np.ones(len(t), np.float32),"
            " rootfix=np.ones(len(t), np.float32))",
            "MemoryError: score: needs about",
        ),
        (
            "t = ta.generate_tree('chain', 5_000_000); ta.exact(t, np.ones(len(t), np.float32),"
            " 'rootfix')",
            "MemoryError: exact: needs about",
        ),
        ("ta.generate_tree('chain', 1000)", "returned"),
    ],
)
def test_a_call_too_large_raises_in_a_limited_interpreter(call, expected):
    assert raised(call, 1024 * MiB).startswith(expected)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is Linux's")
def test_a_gzip_bomb_is_a_memory_error(tmp_path):
    bomb = tmp_path / "bomb.nwk.gz"
    bomb.write_bytes(gzip.compress(b"(" * (256 * MiB), compresslevel=1))
    got = raised(f"ta.read_tree({str(bomb)!r})", 512 * MiB)
    assert got.startswith("MemoryError: ") and "inflates to more than" in got, got


@pytest.mark.parametrize(
    "parents, message",
    [
        ([-1, 2**63 - 1], "vertex 1 has parent 9223372036854775807, outside 0..2"),
        ([-1, -5, 0], "vertex 1 has parent -5, outside 0..3 (the root's parent is -1)"),
    ],
)
def test_a_parent_is_reported_as_given(parents, message):
    with pytest.raises(ta.TreeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ta.tree_from_parents(parents)
