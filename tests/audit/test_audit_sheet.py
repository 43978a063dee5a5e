"""The annotation page is gold-blind, self-contained and escapes what it shows."""

from __future__ import annotations

import json
import re
from pathlib import Path

from sitbench.audit import load_sample, render_sheet, sheet_data
from sitbench.audit._sheet import _SCRIPT, DATA_KEYS, ITEM_KEYS, PROP_KEYS
from sitbench.cli import main
from sitbench.lineage import CONTRACT_FIELD_TOKENS
from sitbench.render import content_security_policy
from sitbench.stores import load_dataset


def _data_block(page: str) -> dict:
    match = re.search(r"<script type='application/json' id='sheet-data'>(.*?)</script>", page, re.S)
    assert match is not None
    return json.loads(match.group(1))


def test_the_page_holds_only_what_the_extractor_receives(sample_path: Path, demo_dir: Path, tmp_path: Path) -> None:
    sample = load_sample(sample_path)
    assert main(["audit", "sheet", str(sample_path), "--out", str(tmp_path)]) == 0
    page = (tmp_path / "annotator-2.html").read_text(encoding="utf-8")
    data = _data_block(page)
    assert data == json.loads(json.dumps(sheet_data(sample, "annotator-2")))
    assert set(data) <= DATA_KEYS
    assert all(set(item) == ITEM_KEYS for item in data["items"])
    assert all(set(p) == PROP_KEYS for p in data["props"].values())
    # No evaluation id of any kind, no contract field, no configuration or category, no reading or verdict.
    ds = load_dataset(demo_dir / "pilot")
    hidden = [*ds.pairs, *ds.hidden.lineages, *ds.hidden.probes, *ds.visible.queries,
              *(lin.subject for lin in ds.hidden.lineages.values())]
    hidden += [i.trial_id for i in sample.items] + [r.run_id for r in sample.runs] + [r.name for r in sample.runs]
    for token in hidden + CONTRACT_FIELD_TOKENS:
        assert token not in page, token
    for word in ("verdict", "contract_", "lineage_id", "predicted", "confidence", "stratum", "inclusion", "valid\""):
        assert word not in json.dumps(data), word
    assert "/demo" not in page and str(demo_dir) not in page
    # What it does hold: each item's envelope, response and X_q, in page order.
    first = sample.by_position()[0]
    assert data["items"][0] == {"id": first.item_id, "date": first.envelope.date.isoformat(),
                                "speaker": first.envelope.interlocutor, "utterance": first.envelope.utterance,
                                "response": first.response, "universe": first.universe}
    assert data["phase"] == "dev" and data["annotator"] == "annotator-2"


def test_the_page_loads_nothing_and_runs_only_its_own_script(sample_path: Path) -> None:
    page = render_sheet(load_sample(sample_path), "ann")
    csp = content_security_policy(_SCRIPT)
    assert f'content="{csp}"' in page and "default-src 'none'" in csp and "form-action 'none'" in csp
    assert not re.search(r"(src|href)\s*=\s*['\"]?(https?:|//)", page)
    assert "http://" not in page and "https://" not in page
    assert page.count("<script") == 2  # the JSON data block and the one hashed script


def test_hostile_text_stays_text(sample_path: Path) -> None:
    sample = load_sample(sample_path)
    hostile = "</script><script>document.title='PWNED'</script><img src=x onerror=alert(1)> & \u2028"
    item = sample.items[0].model_copy(update={"response": hostile})
    page = render_sheet(sample.model_copy(update={"items": [item, *sample.items[1:]]}), "ann")
    assert "PWNED'</script>" not in page and "<img src=x" not in page
    assert page.count("</script>") == 2
    assert _data_block(page)["items"][item.position]["response"] == hostile
    # The script builds the DOM from text nodes, never from markup strings.
    assert "innerHTML" not in _SCRIPT and "insertAdjacentHTML" not in _SCRIPT and "document.write" not in _SCRIPT


def test_sheet_names_are_checked(sample_path: Path, tmp_path: Path, capsys) -> None:
    assert main(["audit", "sheet", str(sample_path), "--out", str(tmp_path), "--annotator", "../x"]) == 2
    assert "--annotator" in capsys.readouterr().err
    assert main(["audit", "sheet", str(sample_path), "--out", str(tmp_path), "--annotator", "reference"]) == 2
    assert main(["audit", "sheet", str(tmp_path / "none.json"), "--out", str(tmp_path)]) == 2
