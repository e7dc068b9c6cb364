"""Generated sources match their generators (a hand edit, or a generator change not re-run, fails)."""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_median_networks_are_generated_by_their_script():
    # The script also checks every network against sorting on random windows before it prints.
    generated = subprocess.run([sys.executable, str(ROOT / "scripts" / "median-networks.py")],
                               check=True, capture_output=True, text=True).stdout
    committed = (ROOT / "Sources" / "SfumatoFilters" / "Blur" / "MedianNetworks.swift").read_text()
    assert generated == committed, "MedianNetworks.swift differs from scripts/median-networks.py's output: re-run it"


def test_gpu_kernels_ptx_is_compiled_from_their_sources():
    # clang-16 (scripts/install-deps --test) recompiles Kernels/*.cu; the checked-in PTX must be its output.
    result = subprocess.run([str(ROOT / "scripts" / "cuda-kernels"), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_gpu_median_networks_are_generated_by_their_script():
    generated = subprocess.run([sys.executable, str(ROOT / "scripts" / "cuda-median-networks.py")],
                               check=True, capture_output=True, text=True).stdout
    committed = (ROOT / "Sources" / "SfumatoCore" / "Device" / "CUDA" / "Kernels" / "median_networks.cuh").read_text()
    assert generated == committed, "median_networks.cuh differs from scripts/cuda-median-networks.py's output: re-run it"
