"""The packaged compatibility vocabulary (``src/sitbench/verify/compatibility.json``) is what its builder writes."""

from __future__ import annotations

import make_compatibility

from sitbench.verify._compat import Grounding, packaged


def test_the_packaged_vocabulary_is_current() -> None:
    assert make_compatibility.OUT.read_text(encoding="utf-8") == make_compatibility.render(), (
        "compatibility.json is stale: run python tests/verify/make_compatibility.py")


def test_the_hierarchy_reads_as_geography_and_subjects() -> None:
    compat = packaged()
    kyoto = compat.supported_nodes("residence.city", [("residence.city", "Kyoto")])
    assert compat.ground("residence.city", "Kansai", kyoto) is Grounding.SUPPORTED
    assert compat.ground("residence.city", "Japan", kyoto) is Grounding.SUPPORTED
    assert compat.ground("residence.city", "Osaka", kyoto) is Grounding.INCOMPATIBLE
    assert compat.ground("residence.city", "Bavaria", kyoto) is Grounding.INCOMPATIBLE
    assert compat.ground("residence.city", "somewhere by the sea", kyoto) is Grounding.NEUTRAL
    teacher = compat.supported_nodes("work.field", [("profile.occupation", "secondary-school chemistry teacher")])
    for value in ("teaching chemistry", "chemistry", "I teach", "science teacher", "education"):
        assert compat.ground("work.field", value, teacher) is Grounding.SUPPORTED, value
    for value in ("robotics", "cooking", "nursing"):
        assert compat.ground("work.field", value, teacher) is Grounding.INCOMPATIBLE, value
    # A hometown supports a place lived in; a residence does not make a hometown.
    home = compat.supported_nodes("residence.city", [("hometown", "Cork")])
    assert compat.ground("residence.city", "Cork", home) is Grounding.SUPPORTED
    assert compat.supported_nodes("hometown", [("residence.city", "Cork")]) == frozenset()
