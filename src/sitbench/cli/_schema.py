"""``sitbench schema``: export JSON Schema for every serialized model."""

from __future__ import annotations

import json
from pathlib import Path

import click


@click.command()
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Directory to write one <name>.schema.json per model into (created if missing).")
def schema(out_dir: Path) -> None:
    """Export the JSON Schema of every record sitbench reads or writes.

    Writes lineage, registry, query, probe, contract, observation, verdict,
    subject_evidence, pair and dataset_manifest schemas, so other tools can
    validate sitbench datasets and runs without Python; the run records
    (run_manifest, trial_record — a line of responses.jsonl —, score_record —
    a line of scores.jsonl —, each with its format_version); and the agent protocol's
    (agent_subject, agent_turn, agent_reply, the agent_http_* request bodies…), so
    an agent in any language can be checked against them; and the human audit's
    (audit_annotation — a line of an annotation page's download —, audit_sample,
    audit_reference, audit_agreement, audit_verifier).

    \b
    Examples:
      sitbench schema --out schemas/
    """
    from sitbench.agents import AGENT_SCHEMAS
    from sitbench.audit import AUDIT_SCHEMAS
    from sitbench.runs import RUN_SCHEMAS
    from sitbench.schema import EXPORTED_MODELS

    exported = EXPORTED_MODELS | RUN_SCHEMAS | AGENT_SCHEMAS | AUDIT_SCHEMAS
    from sitbench.stores import make_dirs, write_text_atomic

    make_dirs(out_dir)
    for name, model in exported.items():
        write_text_atomic(out_dir / f"{name}.schema.json",
                          json.dumps(model.model_json_schema(), indent=2, ensure_ascii=False) + "\n")
    click.echo(f"wrote {len(exported)} schemas to {out_dir}")
