"""``sitbench extract`` and ``sitbench judge``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

_DATASET = click.argument("dataset", type=click.Path(path_type=Path))
_PROBE = click.option("--probe", "probe_id", required=True, help="Probe id, e.g. PR-01 (see hidden/probes.jsonl).")
_RESPONSE = click.option("--response", "response", required=True,
                         help="The response text, or '-' to read it from standard input.")
_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON.")


def _read(response: str) -> str:
    return sys.stdin.read() if response == "-" else response


@click.command()
@_DATASET
@_PROBE
@_RESPONSE
@_JSON
def extract(dataset: Path, probe_id: str, response: str, as_json: bool) -> None:
    """Stage 1: the gold-blind observation Γ̂ = ⟨acts, claims, unmapped, uncertainty, disclosure⟩.

    The extractor sees only the response, the query envelope, the extraction universe
    and the closed-world vocabulary, never the contract.
    """
    from sitbench.verify import load_judge

    observation = load_judge(dataset).extract(probe_id, _read(response))
    if as_json:
        click.echo(observation.model_dump_json(indent=2))
    else:
        click.echo(f"acts: {', '.join(a.value for a in observation.acts) or '-'}")
        for c in observation.claims:
            click.echo(f"claim: {c.prop_id} {'+' if c.polarity else '-'} ({c.provenance.value})")
        for u in observation.unmapped:
            click.echo(f"unmapped: {u.slot or 'unresolved'}={u.value or '-'} {'+' if u.polarity else '-'}: {u.text[:80]}")
        click.echo(f"uncertainty: {observation.uncertainty.value}")


@click.command()
@_DATASET
@_PROBE
@_RESPONSE
@_JSON
def judge(dataset: Path, probe_id: str, response: str, as_json: bool) -> None:
    """Stage 1 + 2: extract once, score against the hidden contract (seven checks).

    For theorem-qualified probes the same extraction is also scored against the
    partner lineage's contract, giving (v_T, v_P).
    """
    from sitbench.verify import load_judge

    result = load_judge(dataset).judge(probe_id, _read(response))

    def dump(v):  # noqa: ANN001, ANN202
        return {"valid": v.valid, "checks": {k: c.model_dump() for k, c in v.checks.items()}}

    payload = dump(result.verdict) | {"partner": dump(result.partner) if result.partner else None,
                                      "observation": result.observation.model_dump(mode="json")}
    if as_json:
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        click.echo(f"{probe_id}: {'VALID' if result.verdict.valid else 'INVALID'}")
        for name, check in result.verdict.checks.items():
            click.echo(f"  {name:<12} {'ok' if check.passed else 'FAIL ' + check.reason}")
        if result.partner is not None:
            click.echo(f"partner contract: {'VALID' if result.partner.valid else 'INVALID'}")
