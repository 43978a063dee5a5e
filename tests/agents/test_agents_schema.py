"""The HTTP agent protocol's JSON Schemas (``sitbench schema``) accept what the harness sends and what the
example server answers, so an agent in another language can be checked against them."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import jsonschema

from sitbench.agents import IngestRequest, RespondRequest
from sitbench.cli import main
from sitbench.runs import agent_subject, agent_turn
from sitbench.stores import load_dataset


def test_bodies_sent_and_answered_validate_against_the_exported_schemas(pilot: Path, tmp_path: Path,
                                                                       http_agent: str) -> None:
    assert main(["schema", "--out", str(tmp_path)]) == 0

    def check(name: str, body: object) -> None:
        schema = json.loads((tmp_path / f"{name}.schema.json").read_text())
        jsonschema.validate(body, schema)

    ds = load_dataset(pilot)
    query = next(iter(ds.visible.queries.values()))
    ingest = IngestRequest(state="st-1", subject=agent_subject(ds.visible.subjects[query.subject], query))
    respond = RespondRequest(state="st-1", turn=agent_turn(query, 0))
    check("agent_http_ingest", json.loads(ingest.model_dump_json()))
    check("agent_http_respond", json.loads(respond.model_dump_json()))
    check("agent_info", httpx.get(f"{http_agent}/info", trust_env=False).json())
    check("agent_ingest_report", httpx.post(f"{http_agent}/ingest", content=ingest.model_dump_json(),
                                            trust_env=False).json())
    check("agent_reply", httpx.post(f"{http_agent}/respond", content=respond.model_dump_json(),
                                    trust_env=False).json())
