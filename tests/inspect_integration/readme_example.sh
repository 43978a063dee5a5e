#!/usr/bin/env bash
# The README's "sitbench under Inspect" example, as written there (run from an empty directory).
set -euo pipefail
sitbench generate --suite pilot --out data/pilot
inspect eval sitbench/sit -T dataset=data/pilot -T config=D --model sitbench/mock/oracle --log-dir logs
sitbench import-inspect "$(ls logs/*.eval | head -1)" --dataset data/pilot --out runs/inspect-oracle
sitbench score runs/inspect-oracle
sitbench metrics runs/inspect-oracle --json > metrics.json
