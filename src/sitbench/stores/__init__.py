"""The three dataset stores (seed §4.1), each with its own loader.

Only :func:`load_visible` may feed a prompt builder; :func:`load_hidden` feeds the
scorer; :func:`load_pairs` feeds collision certification and pair-balanced metrics.

A value that becomes part of a path (an annotator, a lineage id, a file of a manifest) follows one
rule, :func:`name_problem` / :func:`check_name`, and a file named after one is made with
:func:`child_path`, which keeps it inside the folder the user named.
"""

from sitbench._names import (
    NAME_MAX,
    NAME_RULE,
    PathName,
    RelativePath,
    check_name,
    child_path,
    name_problem,
    relative_path_problem,
)
from sitbench.stores._dataset import LoadedDataset, load_dataset
from sitbench.stores._io import (
    decode_utf8,
    describe_os_error,
    describe_validation_error,
    dumps,
    iter_jsonl,
    iter_jsonl_bytes,
    jsonl_line_error,
    load_model,
    parse_json_text,
    parse_jsonl_line,
    read_bytes,
    read_json,
    read_text,
    reject_unpaired_surrogate,
    sha256_file,
    unpaired_surrogate,
    write_json,
    write_jsonl,
    write_lines,
    write_text_atomic,
)
from sitbench.stores._layout import (
    HIDDEN_DIR,
    LINEAGES_DIR,
    MANIFEST,
    PAIRS,
    PAIRS_DIR,
    PROBES,
    QUERIES,
    REGISTRY,
    SUBJECTS_DIR,
    VISIBLE_DIR,
    require_dataset_dir,
)
from sitbench.stores.hidden import HiddenStore, load_hidden
from sitbench.stores.pairs import load_pairs
from sitbench.stores.visible import VisibleStore, load_visible

__all__ = [
    "HIDDEN_DIR",
    "LINEAGES_DIR",
    "MANIFEST",
    "NAME_MAX",
    "NAME_RULE",
    "PAIRS",
    "PAIRS_DIR",
    "PROBES",
    "QUERIES",
    "REGISTRY",
    "SUBJECTS_DIR",
    "VISIBLE_DIR",
    "HiddenStore",
    "LoadedDataset",
    "PathName",
    "RelativePath",
    "VisibleStore",
    "check_name",
    "child_path",
    "decode_utf8",
    "describe_os_error",
    "describe_validation_error",
    "dumps",
    "iter_jsonl",
    "iter_jsonl_bytes",
    "jsonl_line_error",
    "load_dataset",
    "load_hidden",
    "load_model",
    "load_pairs",
    "load_visible",
    "name_problem",
    "parse_json_text",
    "parse_jsonl_line",
    "read_bytes",
    "read_json",
    "read_text",
    "reject_unpaired_surrogate",
    "relative_path_problem",
    "require_dataset_dir",
    "sha256_file",
    "unpaired_surrogate",
    "write_json",
    "write_jsonl",
    "write_lines",
    "write_text_atomic",
]
