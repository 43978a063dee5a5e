"""The annotation page in headless Chromium: annotate through it, resume, download, import.

Needs Debian's ``chromium`` on PATH (``.ci/run`` installs it); skipped otherwise. The page is driven
over the DevTools protocol on a pipe (``_audit_cdp``): real key presses and mouse clicks, a text
selection made the way a drag leaves one, and the download the page's button starts.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from _audit_cdp import Browser

from sitbench.audit import load_sample
from sitbench.cli import main

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium not on PATH (install Debian's package: apt-get install -y chromium)"
)

PREFIX = "Ça va 😀 — "
"""Put before the first response: offsets must count code points (Python's), not UTF-16 units."""


def _select(browser: Browser, text: str) -> None:
    """Select ``text`` inside the response, as dragging the mouse over it would."""
    found = browser.eval(
        "(function(t){var box=document.getElementById('response');var w=document.createTreeWalker(box,4);"
        "var n;while((n=w.nextNode())){var i=n.textContent.indexOf(t);if(i>=0){var r=document.createRange();"
        "r.setStart(n,i);r.setEnd(n,i+t.length);var s=getSelection();s.removeAllRanges();s.addRange(r);"
        f"return true;}}}}return false;}})({json.dumps(text)})")
    assert found, text


def _state(browser: Browser, key: str) -> dict:
    return json.loads(browser.eval(f"localStorage.getItem({json.dumps(key)})"))


@pytest.fixture()
def page(sample_path: Path, tmp_path: Path) -> tuple[Path, Path]:
    data = json.loads(sample_path.read_text(encoding="utf-8"))
    first = min(data["items"], key=lambda i: i["position"])
    first["response"] = PREFIX + first["response"]
    sample = tmp_path / "sample.json"
    sample.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    assert main(["audit", "sheet", str(sample), "--out", str(tmp_path / "sheets"), "--annotator", "ana"]) == 0
    return sample, tmp_path / "sheets" / "ana.html"


def test_annotate_resume_download_and_import(page: tuple[Path, Path], tmp_path: Path) -> None:
    sample_file, html = page
    sample = load_sample(sample_file)
    items = sample.by_position()
    props = {p.prop_id: p for p in sample.vocabulary.propositions}
    key = f"sitbench-audit/{sample.sample_id}/ana"
    browser = Browser(CHROMIUM, tmp_path / "profile")
    try:
        browser.attach()
        browser.navigate(html.as_uri())
        assert browser.eval("document.documentElement.getAttribute('data-ready')") == "1"

        # Item 1: a claim on a selected phrase, picked from X_q by typing, flipped to denied; two acts; hedged.
        one = items[0]
        target = one.universe[0]
        phrase = one.response[len(PREFIX):len(PREFIX) + 12]
        _select(browser, phrase)
        browser.key("c")
        browser.type(f"{props[target].slot} = {props[target].value}")
        browser.key("Enter")
        browser.click("#claims tr.claim button.pol")
        for k in ("3", "5", "u"):
            browser.key(k)
        state = _state(browser, key)["items"][one.item_id]
        assert state["claims"][0]["prop_id"] == target and state["claims"][0]["polarity"] is False
        assert browser.eval("document.querySelector('#response mark.m-claim').textContent") == phrase
        browser.key("d")
        assert browser.eval("document.getElementById('position').textContent") == "item 2 of 60"

        # Item 2: abstain, explicit not-knowing, an unmapped assertion with a typed value and a chosen slot.
        two = items[1]
        words = two.response.split()
        chosen = " ".join(words[: min(3, len(words))])
        browser.key("2")
        browser.key("u")
        browser.key("u")
        _select(browser, chosen)
        browser.key("m")
        browser.type("Tokyo")
        browser.key("Escape")
        slot = sample.vocabulary.closed_world[0].slot
        browser.eval(f"(function(){{var s=document.querySelector('#unmapped select.slot');s.value={json.dumps(slot)};"
                     "s.dispatchEvent(new Event('change'));})()")
        browser.click("#done")
        # Item 3: cannot decide.
        browser.key("s")
        assert browser.eval("document.getElementById('progress').textContent") == "2 / 60 done · 1 skipped"

        # Resume: reloading the file restores every mark and the position.
        browser.reload()
        assert browser.eval("document.getElementById('position').textContent") == "item 4 of 60"
        assert browser.eval("document.getElementById('progress').textContent") == "2 / 60 done · 1 skipped"
        browser.key("k")
        browser.key("k")
        browser.key("k")
        assert browser.eval("document.getElementById('act-ABSTAIN').checked") is False
        assert browser.eval("document.getElementById('act-REJECT').checked") is True
        assert browser.eval("document.getElementById('unc-hedged').checked") is True

        # Everything the page loaded so far, over two loads and all that annotating: the page itself.
        own = [e["params"]["request"]["url"] for e in browser.events if e.get("method") == "Network.requestWillBeSent"]
        assert own and set(own) == {html.as_uri()}, own
        # A fetch of anything is blocked by the page's policy.
        browser.eval("window.__violations=[];document.addEventListener('securitypolicyviolation',"
                     "function(e){window.__violations.push(e.violatedDirective+' '+e.blockedURI);});")
        browser.eval("(function(){var i=new Image();i.src='http://127.0.0.1:9/x.png';document.body.appendChild(i);})()")
        browser.eval("new Promise(function(r){setTimeout(r,300);})")
        violations = browser.eval("window.__violations")
        assert violations and all(v.startswith("img-src") for v in violations)
        probe = next(e["params"]["requestId"] for e in browser.events if e.get("method") == "Network.requestWillBeSent"
                     and e["params"]["request"]["url"].endswith("/x.png"))
        failed = browser.wait_event("Network.loadingFailed", where=lambda p: p.get("requestId") == probe)
        assert failed.get("blockedReason") == "csp"
        browser.events.clear()

        # Download through the page's button.
        downloads = tmp_path / "downloads"
        browser.send("Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(downloads),
                                                     "eventsEnabled": True}, browser=True)
        browser.click("#download")
        done = browser.wait_event("Browser.downloadProgress", where=lambda p: p.get("state") == "completed")
        requests = [e["params"]["request"]["url"] for e in browser.events if e.get("method") == "Network.requestWillBeSent"]
    finally:
        browser.close()
    # The download is the page's own blob, not a request to anywhere.
    assert all(url.startswith("blob:") for url in requests), requests
    exported = Path(done["filePath"])
    assert exported.name == f"ana-{sample.sample_id}.jsonl"

    # The exported JSONL round-trips through `audit import`.
    out = tmp_path / "imported"
    assert main(["audit", "import", str(exported), "--sample", str(sample_file), "--out", str(out)]) == 0
    lines = [json.loads(x) for x in (out / "ana.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [x["item_id"] for x in lines] == [one.item_id, two.item_id, items[2].item_id]
    first, second, third = lines
    start = len(PREFIX)  # in code points: the emoji counts once
    assert first["acts"] == ["REJECT", "QUALIFY"] and first["uncertainty"] == "hedged" and first["status"] == "done"
    assert first["claims"] == [{"prop_id": target, "polarity": False, "provenance": "personal_experience",
                                "mode": "asserted", "span": [start, start + 12]}]
    assert one.response[start:start + 12] == phrase
    assert second["acts"] == ["ABSTAIN"] and second["uncertainty"] == "not_knowing"
    (unmapped,) = second["unmapped"]
    begin = two.response.index(chosen)
    assert unmapped == {"span": [begin, begin + len(chosen)], "text": chosen, "polarity": True,
                        "provenance": "personal_experience", "slot": slot, "value": "Tokyo"}
    assert third["status"] == "skipped" and third["acts"] == [] and third["synthetic"] is False
    assert exported.read_text(encoding="utf-8").count("\n") == 3
