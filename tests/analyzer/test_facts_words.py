"""The facts' gradient-word test is written out for speed: it must follow _AUTODIFF_WORDS."""

from warp_ct.analyzer.facts import _AUTODIFF_TALK, _AUTODIFF_WORDS, _gradient_talk


def test_every_autodiff_word_counts_in_any_case() -> None:
    for word in _AUTODIFF_WORDS:
        assert _gradient_talk(f"x {word.upper()} y") == _AUTODIFF_TALK
        assert _gradient_talk(f"{word}\nparam") == _AUTODIFF_TALK
    assert _gradient_talk("a spatial Gradient") == 1
    assert _gradient_talk("") == 0
    assert _gradient_talk("plain docstring\nx\ny") == 0
