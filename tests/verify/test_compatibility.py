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


def test_a_registry_adds_its_own_values_and_old_registries_serialise_as_before() -> None:
    from sitbench.data import pilot_content
    from sitbench.schema import CompatibilityVocabulary, Registry, ValueNode
    from sitbench.verify._compat import for_registry

    registry = pilot_content().registry
    assert "compatibility" not in registry.model_dump_json(), "an absent vocabulary is left out of the file"
    kyoto = [("residence.city", "Kyoto")]
    base = for_registry(registry)
    assert base.ground("residence.city", "Gion", base.supported_nodes("residence.city", kyoto)) \
        is Grounding.INCOMPATIBLE
    extended = registry.model_copy(update={"compatibility": CompatibilityVocabulary(nodes=[
        ValueNode(namespace="place", value="Gion", forms=["gion district"], parents=["Kyoto"])])})
    again = Registry.model_validate_json(extended.model_dump_json())
    assert again.compatibility is not None and again.compatibility.nodes[0].value == "Gion"
    compat = for_registry(again)
    supported = compat.supported_nodes("residence.city", kyoto)
    # A neighbourhood the dataset declares under Kyoto lies inside a supported place (places are inclusive);
    # a neighbourhood of another city does not.
    assert compat.ground("residence.city", "Gion", supported) is Grounding.SUPPORTED
    osaka = compat.supported_nodes("residence.city", [("residence.city", "Osaka")])
    assert compat.ground("residence.city", "Gion", osaka) is Grounding.INCOMPATIBLE
    gion = compat.supported_nodes("residence.city", [("residence.city", "Gion")])
    assert compat.ground("residence.city", "Kyoto", gion) is Grounding.SUPPORTED
    assert compat.ground("residence.city", "the Gion district", gion) is Grounding.SUPPORTED
