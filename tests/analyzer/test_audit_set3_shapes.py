"""Shapes from audit set 3 (twelve third-party Warp packages labelled in
benchmarks/thirdparty/labels.toml): each test is the real code's shape, cut down, for a
finding the labels judged false or a miss."""

from __future__ import annotations

import pytest

from tests.analyzer.helpers import lint_files, rule_filter

_wct007 = rule_filter("WCT007")

# mosaic-bench tesseract_api.py:581-700: a @functools.cache'd factory with only a default
# argument hands back two kernels of a named module; two wrappers each ask it for one and
# launch it, and the FFT calls the wrappers again and again.
CONJ = '''import functools

import warp as wp


@functools.cache
def _conj_kernels(_tag: str = "bluestein_conj"):
    @wp.kernel(module="bluestein_conj")
    def conj_k(x: wp.array(dtype=float), y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = -x[i]

    @wp.kernel(module="bluestein_conj")
    def conj_scale_k(x: wp.array(dtype=float), s: float, y: wp.array(dtype=float)):
        i = wp.tid()
        y[i] = -x[i] * s

    return {"conj": conj_k, "conj_scale": conj_scale_k}


def _conj_rows(x, device):
    y = wp.zeros(x.shape, dtype=float, device=device)
    wp.launch(_conj_kernels()["conj"], dim=x.shape, inputs=[x], outputs=[y], device=device)
    return y


def _conj_scale_rows(x, s, device):
    y = wp.zeros(x.shape, dtype=float, device=device)
    wp.launch(_conj_kernels()["conj_scale"], dim=x.shape, inputs=[x, s], outputs=[y], device=device)
    return y


def fft(x, device):
    y = _conj_rows(x, device)
    y = _conj_scale_rows(y, 0.5, device)
    y = _conj_rows(y, device)
    return _conj_scale_rows(y, 0.5, device)
'''

_DICT_CACHE = CONJ.replace(
    '@functools.cache\ndef _conj_kernels(_tag: str = "bluestein_conj"):',
    '_CACHE = {}\n\n\ndef _conj_kernels(_tag: str = "bluestein_conj"):\n    if _tag in _CACHE:\n        return _CACHE[_tag]',
).replace(
    '    return {"conj": conj_k, "conj_scale": conj_scale_k}',
    '    _CACHE[_tag] = {"conj": conj_k, "conj_scale": conj_scale_k}\n    return _CACHE[_tag]',
)


@pytest.mark.parametrize(
    "text",
    [
        CONJ,
        CONJ.replace("import functools\n", "from functools import lru_cache as memo\n").replace(
            "@functools.cache", "@memo(maxsize=None)"
        ),
        _DICT_CACHE,
        # Not memoized at all: each call defines the same kernels again, same source and
        # captures, so the module's hash stays and the loaded build is reused (measured: 1
        # build, 1 hash for three FFTs).
        CONJ.replace("@functools.cache\n", ""),
    ],
    ids=["functools.cache", "lru_cache alias", "dict cache", "no cache, same values"],
)
def test_a_memoized_factory_asked_again_from_several_wrappers_defines_nothing_new(tmp_path, text):
    # Was 4 x WCT007 on mosaic-bench ("defines the kernel `conj_k` in a module that the
    # launch of `conj_k` already loaded"): the second call is a cache hit (eee1e57).
    # Measured under `warp-ct probe measure`: bluestein_conj built once, one hash.
    assert _wct007(lint_files(tmp_path, {"fft/__init__.py": "", "fft/ops.py": text})) == []
