"""The ``sitbench/sit`` task: samples, the schedule-replaying solver and the verifier as scorer."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
)
from inspect_ai.scorer import CORRECT, INCORRECT, NOANSWER, Score, Target, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver

from sitbench._version import __version__
from sitbench.candidates import (
    CandidateRequest,
    CandidateResponse,
    DecodingConfig,
    Message,
)
from sitbench.configs import SESSION_RESET_POLICY, TOKENIZER_NAME, templates_sha256
from sitbench.errors import InputError
from sitbench.integrations.inspect_ai._context import (
    SAMPLE_METADATA_KEY,
    TRIAL_STORE_KEY,
    SitContext,
    reset_view,
    resolve_dataset,
    sample_id,
    set_view,
    sit_context,
)
from sitbench.integrations.inspect_ai._metrics import (
    category_validity,
    laa,
    leak_rates,
    macro_sit,
)
from sitbench.integrations.inspect_ai._model import offline_mockllm
from sitbench.runs import (
    ScoreRecord,
    TrialRecord,
    dataset_fields,
    parse_configs,
    run_trial,
    score_trials,
    session_prompt,
    trial_ids,
)
from sitbench.verify import verifier_label

TASK_VERSION = 1
"""Version of the task definition (samples, solver, scorer); bump it when a change alters a verdict."""

DEFAULT_DECODING = DecodingConfig()
"""``sitbench run``'s decoding defaults, the task's generate config unless the command line overrides it."""


def to_inspect_messages(messages: list[Message]) -> list[ChatMessage]:
    """sitbench messages as Inspect chat messages, text for text."""
    kinds = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
    return [kinds[m.role](content=m.content) for m in messages]


def trial_samples(ctx: SitContext, configs: list[str], handler: str) -> list[Sample]:
    """One sample per (configuration, probe) trial, in ``sitbench run``'s order.

    The input is the first prompt of the trial exactly as sitbench's builder serializes it, after the
    isolation audit; the id is opaque; sitbench's fields (configuration, probe, trial id) sit in the
    sample's metadata, which no model sees.
    """
    ds = ctx.ds
    manifest_sha = dataset_fields(ds).get("manifest_sha256")
    retriever = ctx.retriever(configs, handler)
    samples = []
    for config, probe_id in trial_ids(ds, configs, None):
        probe = ds.hidden.probes[probe_id]
        query = ds.visible.queries[probe.query_key]
        trial_id = f"{config}:{probe_id}"
        prompt = session_prompt(ds, config, probe_id, 0, handler=handler, retriever=retriever)
        ctx.audit.check(trial_id, query.subject, prompt.build.messages)
        samples.append(Sample(
            id=sample_id(str(manifest_sha), trial_id),
            input=to_inspect_messages(prompt.build.messages),
            metadata={SAMPLE_METADATA_KEY: {"trial_id": trial_id, "config": config, "probe_id": probe_id,
                                            "category": probe.category.value, "turns": len(query.turns),
                                            "sessions": len({t.session for t in query.turns})}}))
    return samples


def _trial_fields(state: TaskState) -> dict[str, Any]:
    fields = state.metadata.get(SAMPLE_METADATA_KEY)
    if not isinstance(fields, dict) or "probe_id" not in fields:
        raise InputError(f"sample {state.sample_id}: no sitbench metadata; the sitbench solver and scorer run only "
                         "on samples of the sitbench/sit task")
    return fields


class _InspectCandidate:
    """The sitbench Candidate protocol over Inspect's ``generate``: each call of the schedule becomes
    one Inspect generate on exactly the schedule's messages."""

    def __init__(self, state: TaskState, generate: Generate) -> None:
        self.state = state
        self.generate = generate
        self.name = str(state.model)

    async def complete(self, request: CandidateRequest) -> CandidateResponse:
        self.state.messages = to_inspect_messages(request.messages)
        token = set_view(request.view)
        try:
            self.state = await self.generate(self.state)
        finally:
            reset_view(token)
        output = self.state.output
        usage = {k: v for k, v in {"prompt_tokens": output.usage.input_tokens if output.usage else None,
                                   "completion_tokens": output.usage.output_tokens if output.usage else None}.items()
                 if v is not None}
        common = {"model_sent": self.name, "provider": f"inspect/{self.state.model.api}",
                  "returned_model": output.model or None, "usage": usage, "latency_s": output.time or 0.0}
        stop = output.stop_reason
        if output.error or stop == "content_filter" or not output.choices:
            reason = output.error or ("content_filter" if stop == "content_filter" else "no choices returned")
            return CandidateResponse(text=None, status="drop", drop_reason=f"inspect: {reason}"[:300], **common)
        return CandidateResponse(text=output.completion, **common)

    def describe(self) -> dict[str, Any]:
        return {"provider": f"inspect/{self.state.model.api}", "model": self.name}


@solver
def sit_schedule(dataset: str, handler: str = "native") -> Solver:
    """Replay each trial's declared schedule and nothing else.

    Every call of the schedule (the first prompt, the pressure turns of a multi-turn query, the first
    prompt of a new session after a reset, rebuilt with only what the configuration declares) is one
    ``generate`` on exactly the messages ``sitbench run`` would send; each passes the isolation audit
    first. The trial record (``responses.jsonl``'s line: every turn's messages and response, what
    crossed each reset) is kept in the sample's store for the scorer and ``sitbench import-inspect``.
    """

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        fields = _trial_fields(state)
        ctx = sit_context(Path(dataset))
        candidate = _InspectCandidate(state, generate)
        trial = await run_trial(ctx.ds, fields["config"], fields["probe_id"], candidate, model=str(state.model),
                                handler=handler, retriever=ctx.retriever([fields["config"]], handler),
                                audit=ctx.audit, drop_on_error=False)
        state = candidate.state
        state.store.set(TRIAL_STORE_KEY, trial.model_dump(mode="json"))
        return state

    return solve


def _explanation(record: ScoreRecord, trial: TrialRecord) -> str:
    if record.status == "unscored":
        return f"unscored ({record.unscored_reason}): the verifier could not read the answer; never a failure"
    if record.status != "completed" or record.verdict is None:
        return f"dropped ({trial.drop_reason or 'no response'}): attempted, not scored"
    failed = [f"{name}: {check.reason}" for name, check in record.verdict.checks.items() if not check.passed]
    text = "SValid" if record.verdict.valid else "not SValid; " + "; ".join(failed)
    if record.partner is not None:
        text += f" | partner contract {'valid' if record.partner.valid else 'invalid'}"
    return text + _readers(record)


def _readers(record: ScoreRecord) -> str:
    """`` | readers agreed`` or `` | readers contested on CHECKS; second reader …`` (two readers only)."""
    second = record.second
    if record.agreement is None or second is None:
        return ""
    if record.agreement == "agreed":
        return " | readers agreed"
    verdict = f"second reader {second.extractor}: {'valid' if second.verdict.valid else 'invalid'}"
    if second.partner is not None:
        verdict += f", partner {'valid' if second.partner.valid else 'invalid'}"
    return f" | readers contested on {', '.join(record.contested_checks)}; {verdict}"


@scorer(metrics=[category_validity(), macro_sit(), laa(), leak_rates()])
def sit_verifier(dataset: str, extractor: str = "rules") -> Any:
    """sitbench's verifier on the trial's scored turn: one extraction, the target contract and, for
    theorem-qualified probes, the partner contract.

    The value is ``C`` (SValid), ``I`` (not) or ``N`` (a dropped trial, or one the extractor could not
    read: metrics count it as attempted, never as a failure). The metadata is the trial's ``scores.jsonl``
    record: observation, the seven checks with reasons, the partner verdict, FMR/TL/UEL flags and the
    labels metrics need.

    With two readers (``extractor="FIRST+SECOND"``) the value stays the first reader's verdict; the
    metadata adds ``agreement`` (agreed or contested), ``contested_checks`` and ``second`` (the second
    reader's observation and verdicts). When either reader cannot read the answer, the trial is unscored
    (``N``, status ``unscored`` with the reason), as with one reader that cannot.
    """

    async def score(state: TaskState, target: Target) -> Score:
        fields = _trial_fields(state)
        ctx = sit_context(Path(dataset))
        stored = state.store.get(TRIAL_STORE_KEY)
        if stored is None:
            # The solver did not finish (a message, token or time limit ended the sample): a dropped trial.
            limit = f" ({state.output.error})" if state.output and state.output.error else ""
            trial = TrialRecord(trial_id=fields["trial_id"], config=fields["config"], probe_id=fields["probe_id"],
                                model=str(state.model), status="dropped",
                                drop_reason=f"inspect: the sample ended before its schedule did{limit}")
        else:
            trial = TrialRecord.model_validate(stored)
        judge = ctx.judge(extractor)
        if (extractor or "rules") == "rules":
            record = score_trials(ctx.ds, [trial], judge=judge)[0]
        else:
            # An LLM extractor blocks while its model answers: off the event loop, in a worker thread.
            record = (await asyncio.to_thread(score_trials, ctx.ds, [trial], None, judge))[0]
        verdict = record.verdict if record.status == "completed" else None
        value = NOANSWER if verdict is None else CORRECT if verdict.valid else INCORRECT
        metadata = record.model_dump(mode="json") | {"verifier": verifier_label(judge.extractor)}
        return Score(value=value, answer=trial.response_text, explanation=_explanation(record, trial),
                     metadata=metadata)

    return score


@task
def sit(dataset: str | None = None, suite: str | None = None, seed: int | None = None,
        config: str | list[str] = "all", handler: str = "native", extractor: str = "rules") -> Task:
    """The Situated Identity Test: the probe trials of a sitbench dataset under configurations A–I.

    Args:
        dataset: a dataset directory (``sitbench generate --suite pilot --out DIR``).
        suite: or a suite to generate (``pilot``, ``dev``, ``heldout``, ``full``, ``e6``), cached; the pilot
            when neither is given.
        seed: generator seed of a generated suite (default 0).
        config: ``all`` (A–I) or a comma list such as ``D`` or ``B,C,I`` (also ``G_budget``); Inspect's
            command line passes ``-T config=B,C,I`` as a list, which is the same.
        handler: evidence handler for D–H, ``native`` or ``perfect`` (oracle-selected records).
        extractor: stage-1 reader of the verifier: ``rules`` (offline), ``llm:MODEL``, or two readers
            ``FIRST+SECOND`` (e.g. ``rules+llm:MODEL``: the score is the first's verdict, its metadata says
            whether the second agreed).
    """
    offline_mockllm()
    if handler not in ("native", "perfect"):
        raise InputError(f"-T handler={handler}: use native or perfect")
    configs = parse_configs(",".join(config) if isinstance(config, (list, tuple)) else str(config))
    root = resolve_dataset(dataset, suite, seed)
    ctx = sit_context(root)
    ctx.judge(extractor)  # an unknown extractor stops here, not at the first sample's score
    retriever = ctx.retriever(configs, handler)
    fields = dataset_fields(ctx.ds)
    root_str = str(root.resolve())
    metadata = {
        "sitbench": {
            "version": __version__, "task_version": TASK_VERSION, "dataset": fields, "configs": configs,
            "handler": handler, "extractor": extractor, "templates_sha256": templates_sha256(),
            "session_reset_policy": "; ".join(f"{c}: {SESSION_RESET_POLICY[c]}" for c in configs),
            "tokenizer": TOKENIZER_NAME, "retriever": retriever.manifest() if retriever else None,
        }
    }
    name = f"sitbench-{fields.get('suite') or 'dataset'}"
    return Task(
        dataset=MemoryDataset(trial_samples(ctx, configs, handler), name=name),
        solver=sit_schedule(dataset=root_str, handler=handler),
        scorer=sit_verifier(dataset=root_str, extractor=extractor),
        config=GenerateConfig(temperature=DEFAULT_DECODING.temperature, top_p=DEFAULT_DECODING.top_p,
                              max_tokens=DEFAULT_DECODING.max_tokens, seed=DEFAULT_DECODING.seed),
        version=TASK_VERSION,
        metadata=metadata,
    )
