"""Bad-input classes: output that cannot be written (read-only folders, full disks, a full stdout).

These are the conditions a test can make for real as any user, root included (which ignores
``chmod``): a file where a folder of the output path should be, and a folder where an output file
should be. A read-only folder, a full disk and a full standard output are injected in
``test_output_errors.py``.
"""

from __future__ import annotations

from pathlib import Path

from ._harness import Invocation, Workspace
from .cases import case

KIND = "output cannot be written"


def _blocker(ws: Workspace) -> Path:
    """A file where the output's folder should be."""
    return ws.file("blocker", "a file, not a folder\n")


def _under_a_file(command: str, argv: list[str]) -> None:
    """``command`` told to write under a file (``{out}`` in ``argv``): the path and ENOTDIR are named."""
    def build(ws: Workspace) -> Invocation:
        out = _blocker(ws) / "out"
        values = {"{out}": str(out), "{data}": str(ws.dataset()), "{run}": str(ws.run()),
                  "{sample}": str(_sample(ws)) if "{sample}" in argv else ""}
        return Invocation([_fill(a, values) for a in argv], (str(out.parent), "Not a directory (ENOTDIR)"))

    case(KIND, f"{command}/out-under-a-file")(build)


def _fill(arg: str, values: dict[str, str]) -> str:
    for name, value in values.items():
        arg = arg.replace(name, value)
    return arg


def _sample(ws: Workspace) -> Path:
    """An audit sample of the workspace's run (made on demand)."""
    path = ws.root / "sample.json"
    if not path.exists():
        from ._harness import execute

        outcome = execute(Invocation(["audit", "sample", str(ws.run()), "--n", "5", "--seed", "1", "--phase", "dev",
                                      "--out", str(path)]))
        assert outcome.code == 0, outcome.err
    return path


_under_a_file("generate", ["generate", "--suite", "pilot", "--out", "{out}"])
_under_a_file("run", ["run", "{data}", "--config", "B", "--model", "mock/oracle", "--out", "{out}"])
_under_a_file("report", ["report", "{run}", "--out", "{out}/report.html"])
_under_a_file("audit-sheet", ["audit", "sheet", "{sample}", "--out", "{out}"])
_under_a_file("res", ["res", "run", "--model", "mock/oracle", "--out", "{out}"])
_under_a_file("chi", ["chi", "demo", "--out", "{out}"])
_under_a_file("schema", ["schema", "--out", "{out}"])
_under_a_file("merge", ["merge", "{run}", "--out", "{out}"])


def _folder_in_the_way(command: str, name: str, argv: list[str]) -> None:
    """A folder where ``command`` writes file ``name``: the file and EISDIR are named, nothing is torn."""
    def build(ws: Workspace) -> Invocation:
        run = ws.run()
        out = ws.directory("report")
        target = (run if command == "score" else out) / name
        if target.exists():
            target.unlink()
        (target / "inside").mkdir(parents=True)
        return Invocation([a.replace("{run}", str(run)).replace("{out}", str(out)) for a in argv],
                          (str(target), "Is a directory (EISDIR)"))

    case(KIND, f"{command}/{name}-is-a-folder")(build)


_folder_in_the_way("report", "metrics.json", ["report", "{run}", "--out", "{out}/report.html"])
_folder_in_the_way("report", "trials.csv", ["report", "{run}", "--out", "{out}/report.html"])
_folder_in_the_way("score", "scores.jsonl", ["score", "{run}"])
