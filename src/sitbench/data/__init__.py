"""Datasets: the reference pilot and the writer of the three stores."""

from sitbench.data._pilot import pilot_content
from sitbench.data._visible import visible_evidence
from sitbench.data._write import DatasetContent, certify_pair, refresh_manifest, write_dataset

__all__ = ["DatasetContent", "certify_pair", "pilot_content", "refresh_manifest", "visible_evidence", "write_dataset"]
