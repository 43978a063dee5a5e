"""Authoring tool of the annotated verifier corpus (``tests/verify/corpus/*.jsonl``).

Its jobs:

``python tests/verify/corpus/corpus_tool.py cards DATASET_NAME [PROBE_ID ...] [--sample N --seed S]``
    Prints, for each probe, what an annotator needs: the envelope and earlier turns, the hidden
    contract (with glosses), the partner's contract for theorem-qualified probes, and what the
    target identity's record supports at τ.

``python tests/verify/corpus/corpus_tool.py check FILE.jsonl``
    Validates every annotation line and scores its *gold* observation with the contract scorer:
    the stated ``valid`` / ``partner_valid`` must equal the scorer's verdict on the gold
    observation (an annotation whose own labels contradict its verdict is an annotation error).

``python tests/verify/corpus/corpus_tool.py freeze [DATASET_NAME ...]``
    Freezes, under ``datasets/``, the part of each dataset the annotations use (their probes and
    partners, queries, lineages, subjects, and the registry). The annotations then keep meaning
    what they meant when the generator changes; run it once when a new dataset is annotated.

``python tests/verify/corpus/corpus_tool.py import-audit REFERENCE --out FILE [--format corpus|regression]``
    Adds the adjudicated items of a *development-phase* human audit (``sitbench audit agree --out``)
    to a corpus file (``raw/*.jsonl``, this guide's format) or to a regression file
    (``tests/verify/data/regression.jsonl``'s format), with verdicts from the contract scorer on the
    reference reading. It is the one way audit items enter the development material, and it refuses
    a held-out audit (seed §8.3: held-out findings never modify extractor rules), items of held-out
    pairs, and synthetic (scripted) annotations.

DATASET_NAME is ``pilot`` or ``dev-s<SEED>`` (the generated development suite of that seed); a
frozen dataset is materialised, any other is generated, once, into a cache directory
(``SITBENCH_CORPUS_CACHE``, default the system temp dir).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import random
import shutil
import sys
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

from sitbench.schema import (
    Act,
    ClaimProvenance,
    DisclosureSignals,
    ExtractedClaim,
    Observation,
    UncertaintyLevel,
    UnmappedAssertion,
)
from sitbench.verify import Judge, Reading, compare, format_figures, load_judge

CORPUS_DIR = Path(__file__).resolve().parent
ACT_NAMES = {a.value for a in Act}
PROVENANCES = {p.value for p in ClaimProvenance}
UNCERTAINTY = {u.value for u in UncertaintyLevel}
FIELDS = {"id", "dataset", "probe_id", "response", "style", "phenomena", "acts", "claims", "unmapped",
          "uncertainty", "withheld", "valid", "partner_valid", "note"}
STYLES = {"chat", "terse", "hard", "failure", "degenerate"}


FROZEN_DIR = CORPUS_DIR / "datasets"


def _generated_dir(name: str, out: Path) -> None:
    """Generate a named dataset into ``out`` with the current generator."""
    from sitbench.data import generate_content, pilot_content, write_dataset

    if name == "pilot":
        content = pilot_content()
    elif name.startswith("dev-s") and name[5:].isdigit():
        content = generate_content("dev", int(name[5:]))
    else:
        raise SystemExit(f"unknown dataset {name!r}: use pilot or dev-s<SEED>")
    write_dataset(content, out)


def _frozen_dir(name: str, out: Path) -> bool:
    """Materialise a frozen corpus dataset into ``out``; False when none is frozen under that name."""
    from sitbench.data import refresh_manifest

    path = FROZEN_DIR / f"{name}.json.gz"
    if not path.exists():
        return False
    frozen = json.loads(gzip.decompress(path.read_bytes()))
    for rel, text in frozen["files"].items():
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    refresh_manifest(out)
    return True


def dataset_dir(name: str) -> Path:
    """Directory of a named corpus dataset, materialised once per cache directory.

    The annotations describe the probes as they were when annotated, so a dataset frozen under
    ``datasets/`` (see ``freeze``) is used whenever it exists; a later change of the generator
    cannot silently re-target an annotation at a different question.
    """
    cache = Path(os.environ.get("SITBENCH_CORPUS_CACHE", tempfile.gettempdir())) / "sitbench-corpus-datasets"
    frozen = (FROZEN_DIR / f"{name}.json.gz").exists()
    out = cache / (f"frozen-{name}-{_frozen_digest(name)}" if frozen else name)
    if not (out / "manifest.json").exists():
        cache.mkdir(parents=True, exist_ok=True)
        # Write beside the target, then rename: concurrent users never see a half-written dataset.
        staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=cache))
        if not _frozen_dir(name, staging):
            _generated_dir(name, staging)
        try:
            staging.rename(out)
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)  # another process finished first
            if not (out / "manifest.json").exists():
                shutil.rmtree(out, ignore_errors=True)
                return dataset_dir(name)
    return out


def _frozen_digest(name: str) -> str:
    return hashlib.sha256((FROZEN_DIR / f"{name}.json.gz").read_bytes()).hexdigest()[:12]


def freeze(name: str, probe_ids: set[str]) -> Path:
    """Freeze the part of a dataset the annotations use: their probes (with partners), queries,
    lineages and subjects, and the whole registry. Returns the written file."""
    root = Path(tempfile.mkdtemp(prefix=f".freeze-{name}-"))
    try:
        _generated_dir(name, root)
        probes = [json.loads(line) for line in (root / "hidden/probes.jsonl").read_text(encoding="utf-8").splitlines()]
        by_id = {p["probe_id"]: p for p in probes}
        keep = set(probe_ids)
        keep |= {by_id[pid]["partner_probe_id"] for pid in probe_ids if by_id[pid].get("partner_probe_id")}
        kept = [p for p in probes if p["probe_id"] in keep]
        lineages = {p["lineage_id"] for p in kept}
        query_keys = {p["query_key"] for p in kept}
        queries = [json.loads(line) for line in (root / "visible/queries.jsonl").read_text(encoding="utf-8").splitlines()]
        queries = [q for q in queries if q["query_key"] in query_keys]
        subjects = {q["subject"] for q in queries}
        files = {
            "manifest.json": (root / "manifest.json").read_text(encoding="utf-8"),
            "hidden/registry.json": (root / "hidden/registry.json").read_text(encoding="utf-8"),
            "hidden/probes.jsonl": "".join(json.dumps(p, ensure_ascii=False) + "\n" for p in kept),
            "visible/queries.jsonl": "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in queries),
        }
        for lid in sorted(lineages):
            files[f"hidden/lineages/{lid}.json"] = (root / f"hidden/lineages/{lid}.json").read_text(encoding="utf-8")
        for subject in sorted(subjects):
            files[f"visible/subjects/{subject}.json"] = (root / f"visible/subjects/{subject}.json").read_text(encoding="utf-8")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    FROZEN_DIR.mkdir(exist_ok=True)
    out = FROZEN_DIR / f"{name}.json.gz"
    payload = json.dumps({"dataset": name, "files": files}, ensure_ascii=False, sort_keys=True).encode()
    out.write_bytes(gzip.compress(payload, compresslevel=9, mtime=0))
    return out


@cache
def judge_for(name: str) -> Judge:
    """A loaded judge of a named dataset."""
    return load_judge(dataset_dir(name))


def _signed(judge: Judge, prop_id: str, polarity: bool) -> str:
    prop = judge._props[prop_id]
    return f"{prop_id}{'+' if polarity else '−'} ({prop.slot}={prop.value}: {prop.gloss})"


def card(name: str, probe_id: str) -> str:
    """The annotator's view of one probe."""
    judge = judge_for(name)
    probe = judge.probe(probe_id)
    query = judge.queries[probe.query_key]
    support = judge.support(probe)
    c = probe.contract
    lines = [f"=== {name} {probe_id}  category {probe.category.value}"
             + (f" stratum {probe.stratum}" if probe.stratum else "")
             + f"  theorem_qualified={probe.theorem_qualified}",
             f"date (τ) {query.tau}; interlocutor: {query.interlocutor.description} "
             f"(clearance {support.clearance.value}); capability {query.capability.value}"]
    for i, turn in enumerate(query.turns):
        scored = " <- SCORED TURN" if i == len(query.turns) + query.scored_turn or i == query.scored_turn else ""
        lines.append(f"  [session {turn.session}, {turn.t}] user: {turn.utterance}{scored}")
    lines.append(f"contract: required acts {sorted(a.value for a in c.required_acts)}; forbidden acts "
                 f"{sorted(a.value for a in c.forbidden_acts)}; uncertainty {c.uncertainty.value}; "
                 f"personal provenance allowed {[p.value for p in c.provenance] or 'any'}; "
                 f"disclosure tier needed {c.disclosure_tier.value}")
    for label, items in (("required", c.required_claims), ("prohibited", c.prohibited_claims)):
        for s in items:
            prov = f" with provenance in {[p.value for p in s.provenance]}" if s.provenance else ""
            lines.append(f"  {label}: {_signed(judge, s.prop_id, s.polarity)}{prov}")
    if probe.note:
        lines.append(f"note: {probe.note}")
    if probe.theorem_qualified and probe.partner_probe_id:
        other = judge.hidden.probes[probe.partner_probe_id].contract
        req = "; ".join(_signed(judge, s.prop_id, s.polarity) for s in other.required_claims)
        pro = "; ".join(_signed(judge, s.prop_id, s.polarity) for s in other.prohibited_claims)
        lines.append(f"partner contract (same question to the collision partner): required acts "
                     f"{sorted(a.value for a in other.required_acts)}; required [{req}]; prohibited [{pro}]")
    truths = support.state.truths
    lines.append("identity's record at τ (true = supported, false = recorded as false; anything absent is "
                 "unrecorded — inside a closed-world slot an unrecorded value is FALSE):")
    for prop_id, polarity in truths.items():
        prop = judge._props.get(prop_id)
        if prop is None:
            continue
        tier = support.state.tiers.get(prop_id)
        lines.append(f"  {prop_id} {prop.slot}={prop.value} {str(polarity).lower()}"
                     f" (tier {tier.value if tier else 'public'})")
    beliefs = support.state.beliefs
    for belief, stances in beliefs.items():
        lines.append(f"  belief {belief}: stances in order {stances} (last is current)")
    return "\n".join(lines)


def observation_of(raw: dict[str, object], judge: Judge) -> Observation:
    """The gold observation an annotation line describes."""
    claims = [ExtractedClaim(prop_id=str(p), polarity=bool(pol), provenance=ClaimProvenance(prov), span=(0, 0))
              for p, pol, prov in raw["claims"]]  # type: ignore[union-attr]
    unmapped = [UnmappedAssertion(span=(0, 0), text=str(u.get("value", "")), polarity=bool(u["polarity"]),
                                  provenance=ClaimProvenance(u.get("provenance", "personal_experience")),
                                  slot=u.get("slot"), value=u.get("value"))
                for u in raw.get("unmapped", [])]  # type: ignore[union-attr]
    shared = sorted({c.prop_id for c in claims if c.polarity and not judge._props[c.prop_id].world_fact})
    acts = [Act(a) for a in raw["acts"]]  # type: ignore[union-attr]
    return Observation(acts=acts, claims=claims, unmapped=unmapped,
                       uncertainty=UncertaintyLevel(raw["uncertainty"]),
                       disclosure=DisclosureSignals(shared=shared, framed_as_withheld=bool(raw["withheld"])),
                       verifier_version="gold")


def check_line(raw: dict[str, object]) -> list[str]:
    """Problems of one annotation line (empty when it is consistent)."""
    problems = []
    missing = FIELDS - set(raw)
    if missing:
        return [f"missing fields {sorted(missing)}"]
    if set(raw) - FIELDS:
        problems.append(f"unknown fields {sorted(set(raw) - FIELDS)}")
    judge = judge_for(str(raw["dataset"]))
    if raw["probe_id"] not in judge.hidden.probes:
        return [f"probe {raw['probe_id']} not in {raw['dataset']}"]
    probe = judge.hidden.probes[str(raw["probe_id"])]
    if raw["style"] not in STYLES:
        problems.append(f"style {raw['style']!r} not in {sorted(STYLES)}")
    if not set(raw["acts"]) <= ACT_NAMES:  # type: ignore[arg-type]
        problems.append(f"unknown acts {raw['acts']}")
    for p, pol, prov in raw["claims"]:  # type: ignore[union-attr,misc]
        if p not in judge._props:
            problems.append(f"unknown prop {p}")
        if prov not in PROVENANCES or not isinstance(pol, bool):
            problems.append(f"bad claim {[p, pol, prov]}")
    if len({c[0] for c in raw["claims"]}) != len(raw["claims"]):  # type: ignore[union-attr,index]
        problems.append("a proposition annotated twice")
    if raw["uncertainty"] not in UNCERTAINTY:
        problems.append(f"uncertainty {raw['uncertainty']!r}")
    if (raw["partner_valid"] is None) != (not (probe.theorem_qualified and probe.partner_probe_id)):
        problems.append("partner_valid must be a bool exactly for theorem-qualified probes")
    if problems:
        return problems
    judgement = judge.score_observation(probe.probe_id, observation_of(raw, judge))
    if judgement.verdict.valid != raw["valid"]:
        failed = {k: v.reason for k, v in judgement.verdict.checks.items() if not v.passed}
        problems.append(f"stated valid={raw['valid']} but the gold observation scores {judgement.verdict.valid} "
                        f"{failed}")
    if judgement.partner is not None and judgement.partner.valid != raw["partner_valid"]:
        failed = {k: v.reason for k, v in judgement.partner.checks.items() if not v.passed}
        problems.append(f"stated partner_valid={raw['partner_valid']} but the gold observation scores "
                        f"{judgement.partner.valid} {failed}")
    return problems


HELDOUT_SALT = "sitbench-corpus-heldout:"


def is_heldout(case_id: str) -> bool:
    """The frozen held-out slice: a fixed ~20 % of ids by hash, decided before any tuning."""
    return hashlib.sha256((HELDOUT_SALT + case_id).encode()).digest()[0] < 52


def load_corpus(split: str = "all") -> list[dict[str, Any]]:
    """Annotation lines of every corpus file; ``split`` is ``all``, ``dev`` or ``heldout``."""
    out = []
    for path in sorted(CORPUS_DIR.glob("*.jsonl")) or sorted((CORPUS_DIR / "raw").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                raw = json.loads(line)
                if split == "all" or (split == "heldout") == is_heldout(raw["id"]):
                    out.append(raw)
    return out


def readings(cases: list[dict[str, Any]], extractor_spec: str | None = None) -> list[tuple[dict[str, Any], Any, Reading]]:
    """Each case read by the extractor, paired with its gold observation and verdicts."""
    from sitbench.errors import ReadingUnavailable
    from sitbench.verify import Judge, get_extractor

    extractor = get_extractor(extractor_spec)
    judges: dict[str, Judge] = {}
    out = []
    for raw in cases:
        name = raw["dataset"]
        if name not in judges:
            base = judge_for(name)
            judges[name] = Judge(base.hidden, base.queries, extractor=extractor)
        judge = judges[name]
        probe = judge.hidden.probes[raw["probe_id"]]
        try:
            got = judge.judge(raw["probe_id"], raw["response"])
        except ReadingUnavailable as exc:
            # A replayed reading whose prompt changed is not in the replay: name the case, never score it.
            raise ReadingUnavailable(f"case {raw['id']}: {exc}") from None
        verdicts = [(bool(raw["valid"]), got.verdict.valid)]
        if raw["partner_valid"] is not None:
            verdicts.append((bool(raw["partner_valid"]), bool(got.partner and got.partner.valid)))
        groups = {"dataset": ("pilot" if name == "pilot" else "generated",), "style": (raw["style"],),
                  "category": (probe.category.value,), "phenomenon": tuple(raw["phenomena"]) or ("plain",)}
        out.append((raw, got, Reading(reference=observation_of(raw, judge), other=got.observation,
                                      verdicts=tuple(verdicts), groups=groups)))
    return out


def _audit_dataset_name(manifest: dict[str, Any]) -> str:
    """The corpus dataset name of an audited run's dataset (``pilot`` or ``dev-s<SEED>``)."""
    from sitbench.audit import PhaseError

    dataset = manifest.get("dataset", {})
    suite, seed = dataset.get("suite"), dataset.get("seed")
    if suite == "heldout":
        raise PhaseError("import-audit: refused: the audited run answers a held-out suite; held-out items never "
                         "enter the development corpus or the regression tests (seed §8.3)")
    if suite == "pilot":
        return "pilot"
    if suite == "dev" and isinstance(seed, int):
        return f"dev-s{seed}"
    raise SystemExit(f"import-audit: the audited run's dataset is suite {suite!r}; only the pilot and dev suites "
                     "have corpus datasets")


def import_audit(reference_path: Path, out: Path, fmt: str = "corpus", style: str = "chat") -> int:
    """Append the adjudicated items of a development audit to ``out``; returns how many were added.

    Raises:
        sitbench.audit.PhaseError: the audit is held-out, or an item answers a held-out pair.
        SystemExit: synthetic annotations, a changed sample, or an item the corpus datasets cannot score.
    """
    from sitbench.audit import load_reference, load_sample, reference_observation, require_development
    from sitbench.stores._io import sha256_file

    reference = load_reference(reference_path)
    require_development(reference, "import-audit")
    if reference.synthetic:
        raise SystemExit("import-audit: refused: the reference comes from synthetic (scripted) annotators; only "
                         "human annotations enter the corpus")
    sample_path = Path(reference.sample_path)
    if not sample_path.is_file() or sha256_file(sample_path) != reference.sample_sha256:
        raise SystemExit(f"import-audit: {sample_path} is not the sample the reference was adjudicated on")
    sample = load_sample(sample_path)
    require_development(sample, "import-audit")
    if fmt not in ("corpus", "regression"):
        raise SystemExit(f"--format {fmt!r}: corpus or regression")
    if style not in STYLES:
        raise SystemExit(f"--style {style!r}: one of {sorted(STYLES)}")
    runs = {r.name: r for r in sample.runs}
    items = sample.item_map()
    existing = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines() if line.strip()] \
        if out.exists() else []
    seen = {(raw["probe_id"], raw["response"]) for raw in existing}
    prefix = "R" if fmt == "regression" else "AU"
    number = len(existing) if fmt == "regression" else sum(1 for raw in existing if str(raw["id"]).startswith("AU-"))
    lines = []
    for annotation in reference.items:
        item = items[annotation.item_id]
        name = _audit_dataset_name(runs[item.run].manifest)
        if fmt == "regression" and name != "pilot":
            raise SystemExit(f"import-audit --format regression: item {item.item_id} is from {name}; the regression "
                             "tests are over the pilot only (use --format corpus)")
        judge = judge_for(name)
        probe = judge.probe(item.probe_id)
        if judge.envelope(probe) != item.envelope:
            raise SystemExit(f"import-audit: item {item.item_id}: probe {item.probe_id} of the frozen {name} asks "
                             "something else than the audited trial; it cannot be scored here")
        if (item.probe_id, item.response) in seen:
            continue
        seen.add((item.probe_id, item.response))
        judgement = judge.score_observation(item.probe_id, reference_observation(annotation, judge._props))
        claims = [[c.prop_id, c.polarity, c.provenance.value] for c in annotation.claims if c.mode == "asserted"]
        number += 1
        note = f"adjudicated human audit item {item.item_id} of sample {sample.sample_id}"
        line: dict[str, Any] = {"id": f"{prefix}-{number:03d}", "probe_id": item.probe_id, "response": item.response,
                                "acts": [a.value for a in annotation.acts], "claims": claims,
                                "valid": judgement.verdict.valid,
                                "partner_valid": None if judgement.partner is None else judgement.partner.valid,
                                "note": note}
        if fmt == "corpus":
            line = {"id": line["id"], "dataset": name, "probe_id": item.probe_id, "response": item.response,
                    "style": style, "phenomena": ["audit"], "acts": line["acts"], "claims": claims,
                    "unmapped": [{"slot": u.slot, "value": u.value, "polarity": u.polarity,
                                  "provenance": u.provenance.value} for u in annotation.unmapped if u.slot],
                    "uncertainty": annotation.uncertainty.value, "withheld": annotation.withheld,
                    "valid": line["valid"], "partner_valid": line["partner_valid"], "note": note}
            problems = check_line(line)
            if problems:
                raise SystemExit(f"import-audit: item {item.item_id}: {problems}")
        lines.append(line)
    out.parent.mkdir(parents=True, exist_ok=True)
    with out.open("a", encoding="utf-8") as handle:
        for line in lines:
            handle.write(json.dumps(line, ensure_ascii=False) + "\n")
    return len(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    cards = sub.add_parser("cards", help="print annotator cards")
    cards.add_argument("dataset")
    cards.add_argument("probes", nargs="*")
    cards.add_argument("--sample", type=int, default=0, help="sample N probes stratified by category")
    cards.add_argument("--seed", type=int, default=0)
    props = sub.add_parser("props", help="print the registry: id, slot=value, world fact, surface forms")
    props.add_argument("dataset")
    measure = sub.add_parser("measure", help="agreement of an extractor with the annotations")
    measure.add_argument("--split", choices=["all", "dev", "heldout"], default="all")
    measure.add_argument("--extractor", default="rules")
    measure.add_argument("--groups", default="dataset,style,category,phenomenon")
    measure.add_argument("--show", type=int, default=0,
                         help="print up to N verdict disagreements (refused on the held-out slice)")
    frozen = sub.add_parser("freeze", help="freeze the probes the annotations use, so a generator change cannot re-target them")
    frozen.add_argument("datasets", nargs="*", help="dataset names (default: every one the annotations name)")
    imported = sub.add_parser("import-audit", help="add a development audit's adjudicated items (never held-out ones)")
    imported.add_argument("reference", type=Path, help="reference file of `sitbench audit agree --out`")
    imported.add_argument("--out", type=Path, required=True, help="corpus or regression JSONL file to append to")
    imported.add_argument("--format", dest="fmt", choices=["corpus", "regression"], default="corpus")
    imported.add_argument("--style", default="chat", help="corpus style of the imported responses")
    check = sub.add_parser("check", help="validate annotation files")
    check.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args(argv)
    if args.command == "cards":
        judge = judge_for(args.dataset)
        ids = list(args.probes)
        if args.sample:
            by_cat: dict[str, list[str]] = {}
            for pid, probe in judge.hidden.probes.items():
                by_cat.setdefault(probe.category.value, []).append(pid)
            rng = random.Random(args.seed)
            per = max(1, args.sample // len(by_cat))
            for cat in sorted(by_cat):
                ids += sorted(rng.sample(by_cat[cat], min(per, len(by_cat[cat]))))
        for pid in ids or list(judge.hidden.probes):
            print(card(args.dataset, pid), end="\n\n")
        return 0
    if args.command == "measure":
        if args.show and args.split != "dev":
            raise SystemExit("--show prints cases to diagnose: only the dev split may be inspected")
        read = readings(load_corpus(args.split), args.extractor)
        report = compare(r for _, _, r in read)
        print(format_figures(f"{args.split} ({args.extractor})", report.overall))
        for name in args.groups.split(","):
            for value, figures in report.groups.get(name, {}).items():
                print(format_figures(f"  {name}={value}", figures))
        shown = 0
        for raw, got, reading in read:
            if shown >= args.show:
                break
            if any(a != b for a, b in reading.verdicts):
                shown += 1
                failed = [k for k, v in got.verdict.checks.items() if not v.passed]
                print(f"\n{raw['id']} {raw['dataset']} {raw['probe_id']} gold={raw['valid']}/{raw['partner_valid']} "
                      f"got={got.verdict.valid}/{got.partner.valid if got.partner else None} failed={failed}")
                print(f"  Q: {judge_for(raw['dataset']).envelope(judge_for(raw['dataset']).probe(raw['probe_id'])).utterance}")
                print(f"  A: {raw['response']}")
                print(f"  gold acts={sorted(raw['acts'])} claims={raw['claims']} unmapped={raw['unmapped']}")
                print(f"  got  acts={sorted(a.value for a in got.observation.acts)} claims="
                      f"{[[c.prop_id, c.polarity, c.provenance.value] for c in got.observation.claims]} "
                      f"unmapped={[(u.slot, u.value, u.polarity) for u in got.observation.unmapped if u.slot]}")
                print(f"  note: {raw['note']}")
        return 0
    if args.command == "freeze":
        used: dict[str, set[str]] = {}
        for raw in load_corpus("all"):
            used.setdefault(raw["dataset"], set()).add(raw["probe_id"])
        for name in args.datasets or sorted(used):
            print(f"{name}: {len(used.get(name, ()))} probes -> {freeze(name, used.get(name, set()))}")
        return 0
    if args.command == "import-audit":
        from sitbench.audit import PhaseError

        try:
            added = import_audit(args.reference, args.out, args.fmt, args.style)
        except PhaseError as exc:
            raise SystemExit(str(exc)) from None
        print(f"{args.out}: {added} adjudicated audit item(s) added")
        return 0
    if args.command == "props":
        for prop in judge_for(args.dataset).hidden.registry.propositions:
            kind = " WORLD-FACT" if prop.world_fact else ""
            eq = f" class={prop.equivalence_class}" if prop.equivalence_class else ""
            print(f"{prop.prop_id} {prop.slot}={prop.value}{kind}{eq} forms={prop.surface_forms}")
        return 0
    bad = 0
    for path in args.files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
                problems = check_line(raw)
            except Exception as exc:  # noqa: BLE001  (report every malformed line, keep going)
                problems = [f"{type(exc).__name__}: {exc}"]
            for problem in problems:
                bad += 1
                print(f"{path.name}:{number}: {problem}")
    print(f"{bad} problem(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
