"""The build backend (python/build_backend/treefix_build.py) chooses where GMP and MPFR come
from and says so: the system's add the crate feature `system-libs` to maturin's arguments."""

import importlib.util
import os
import pathlib

import pytest

BACKEND = pathlib.Path(__file__).resolve().parents[1] / "build_backend" / "treefix_build.py"


@pytest.fixture
def backend(monkeypatch):
    pytest.importorskip("maturin", reason="maturin is not installed")
    monkeypatch.delenv("MATURIN_PEP517_ARGS", raising=False)
    spec = importlib.util.spec_from_file_location("treefix_build", BACKEND)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_from_source_leaves_maturin_as_it_is(backend, monkeypatch, capsys):
    monkeypatch.setenv("TREEFIX_GMP", "source")
    assert backend._choose_libs({"x": "y"}) == {"x": "y"}
    assert "MATURIN_PEP517_ARGS" not in os.environ
    assert "built from source" in capsys.readouterr().err


def test_the_systems_libraries_are_a_feature(backend, monkeypatch, capsys):
    monkeypatch.setenv("TREEFIX_GMP", "system")
    monkeypatch.setenv("MATURIN_PEP517_ARGS", "--locked")
    assert backend._choose_libs(None) is None
    assert os.environ["MATURIN_PEP517_ARGS"] == "--locked --features system-libs"
    # Arguments given as config settings are maturin's, not the environment's: joined there.
    got = backend._choose_libs({"build-args": "--locked"})
    assert got == {"build-args": "--locked --features system-libs"}
    assert "the system's" in capsys.readouterr().err


def test_an_unknown_choice_is_an_error(backend, monkeypatch):
    monkeypatch.setenv("TREEFIX_GMP", "maybe")
    with pytest.raises(RuntimeError, match="TREEFIX_GMP='maybe'"):
        backend._choose_libs(None)
