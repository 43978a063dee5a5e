"""``sitbench/…``: sitbench's deterministic mock candidates as an Inspect model API, fully offline.

``--model sitbench/mock/oracle`` and ``--model sitbench/mock/collapse`` answer exactly as
``sitbench run --model mock/oracle`` (``mock/collapse``) does: they read the structured view of the
turn the sitbench solver is replaying. Token counts come from sitbench's own WordPiece counter (the
tokenizer file ships with the package), never from tiktoken, whose encodings are downloaded on first
use — which is why Inspect's ``mockllm`` fails on a machine with no network.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from sitbench.candidates import CandidateRequest, DecodingConfig, Message
from sitbench.candidates.mock import CollapseCandidate, OracleCandidate
from sitbench.configs import wordpiece_counter
from sitbench.errors import InputError
from sitbench.integrations.inspect_ai._context import current_view

MOCKS: dict[str, type[OracleCandidate] | type[CollapseCandidate]] = {
    "mock/oracle": OracleCandidate, "mock/collapse": CollapseCandidate}


def offline_token_count(text: str) -> int:
    """Tokens of ``text`` by sitbench's WordPiece counter (offline; the count E6 and run manifests use)."""
    return wordpiece_counter().count(text)


def to_sitbench_messages(messages: list[ChatMessage]) -> list[Message]:
    """Inspect chat messages as sitbench messages (text only; tool messages are not part of SIT)."""
    out = []
    for message in messages:
        role = message.role if message.role in ("system", "user", "assistant") else "user"
        out.append(Message(role=role, content=message.text))
    return out


@modelapi(name="sitbench")
class SitbenchMockAPI(ModelAPI):
    """``sitbench/mock/oracle`` or ``sitbench/mock/collapse``: sitbench's mock candidates under Inspect."""

    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig = GenerateConfig(), **model_args: Any) -> None:  # noqa: B008 - Inspect's own
        super().__init__(model_name=model_name, base_url=base_url, api_key=api_key, api_key_vars=[],
                         config=config)
        if model_name not in MOCKS:
            raise InputError(f"--model sitbench/{model_name}: unknown; use sitbench/mock/oracle or "
                             "sitbench/mock/collapse (any other model runs through its own Inspect provider)")
        if model_args:
            raise InputError(f"--model sitbench/{model_name}: takes no model args (got {sorted(model_args)})")
        self.candidate = MOCKS[model_name]()

    async def generate(self, input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
                       config: GenerateConfig) -> ModelOutput:
        view = current_view()
        if view is None:
            raise InputError(f"sitbench/{self.model_name} answers only inside the sitbench/sit task: it reads "
                             "the structured view of the turn the sitbench solver replays")
        messages = to_sitbench_messages(input)
        request = CandidateRequest(trial_id="inspect", messages=messages, view=view,
                                   decoding=DecodingConfig(max_tokens=config.max_tokens or 512))
        response = await self.candidate.complete(request)
        text = response.text or ""
        output = ModelOutput.from_content(model=self.candidate.name, content=text)
        prompt = sum(offline_token_count(m.content) for m in messages)
        completion = offline_token_count(text)
        output.usage = ModelUsage(input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion)
        return output

    async def count_text_tokens(self, text: str) -> int:
        return offline_token_count(text)

    def max_connections(self) -> int:
        return 32


def mock_outputs(name: str = "mock/oracle") -> Callable[..., ModelOutput]:
    """``custom_outputs`` for Inspect's own ``mockllm``: sitbench's mock ``name`` answers, offline.

    ``get_model("mockllm/model", custom_outputs=mock_outputs())`` is Inspect's mockllm provider
    answering each turn of the sitbench solver as ``sitbench run --model mock/oracle`` would; each output
    carries its usage (sitbench's WordPiece count), so mockllm never reaches for tiktoken.
    """
    if name not in MOCKS:
        raise InputError(f"mock_outputs({name!r}): use one of {', '.join(MOCKS)}")
    candidate = MOCKS[name]()

    def output(input: list[ChatMessage], tools: list[ToolInfo], tool_choice: ToolChoice,
               config: GenerateConfig) -> ModelOutput:
        view = current_view()
        text = candidate.answer(view) if view is not None else "Default output from mockllm/model"
        result = ModelOutput.from_content(model="mockllm", content=text)
        prompt = sum(offline_token_count(m.text) for m in input)
        completion = offline_token_count(text)
        result.usage = ModelUsage(input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion)
        return result

    return output


_MOCKLLM_PATCHED = False


def offline_mockllm() -> None:
    """Make Inspect's ``mockllm`` count tokens offline (sitbench's WordPiece counter).

    Inspect 0.3.285's mockllm fills in usage with tiktoken's ``o200k_base``, which tiktoken downloads
    on first use: on a machine with no network every mockllm sample errors. The ``sitbench/sit`` task
    calls this when it is built, so ``inspect eval sitbench/sit --model mockllm/model`` runs offline;
    only mockllm's token estimate changes (its answers are Inspect's own).
    """
    global _MOCKLLM_PATCHED
    if _MOCKLLM_PATCHED:
        return
    from inspect_ai.model._providers.mockllm import MockLLM

    async def count_text_tokens(self: ModelAPI, text: str) -> int:
        return offline_token_count(text)

    MockLLM.count_text_tokens = count_text_tokens  # type: ignore[method-assign]
    _MOCKLLM_PATCHED = True
