"""Fit the rule extractor's confidence weights on the development slice of the annotated corpus.

``python tests/verify/corpus/fit_confidence.py [--penalty 1.0] [--folds 5] [--seed 0]``

Each development case is read by the rule extractor; its label is whether the verdict from that reading
differs from the verdict of the annotated reading (the target's or, for theorem-qualified probes, the
partner's). The features are the confidence signals the extractor records (one indicator per signal
name). The model is a logistic regression of the label on the indicators with non-negative weights (a
signal can only lower the confidence) and an L2 penalty, fitted with scipy's L-BFGS-B. The script prints
the signal table, the in-sample and cross-validated AUROC on the development slice, and the constants to
paste into ``src/sitbench/verify/_confidence.py``. The held-out slice is never read here.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

sys.path.insert(0, str(Path(__file__).resolve().parent))
import corpus_tool

from sitbench.verify import error_auroc


def development_signals() -> tuple[list[list[str]], np.ndarray]:
    """The rule reading's signals and whether its verdict is wrong, for every development case."""
    signals, wrong = [], []
    for _, got, reading in corpus_tool.readings(corpus_tool.load_corpus("dev"), "rules"):
        signals.append(sorted(got.observation.confidence.signals))
        wrong.append(any(gold != read for gold, read in reading.verdicts))
    return signals, np.asarray(wrong, dtype=bool)


def fit(features: np.ndarray, wrong: np.ndarray, penalty: float) -> np.ndarray:
    """Bias and non-negative weights of an L2-penalised logistic regression (bias unpenalised)."""
    design = np.c_[np.ones(len(features)), features]
    y = wrong.astype(float)

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = design @ w
        # log(1 + e^z) - y z, written to stay finite for large |z|.
        value = float(np.sum(np.logaddexp(0.0, z) - y * z) + penalty * np.sum(w[1:] ** 2))
        grad = design.T @ (1.0 / (1.0 + np.exp(-z)) - y)
        grad[1:] += 2 * penalty * w[1:]
        return value, grad

    bounds = [(None, None)] + [(0.0, None)] * features.shape[1]
    return np.asarray(minimize(loss, np.zeros(design.shape[1]), jac=True, method="L-BFGS-B", bounds=bounds).x)


def cross_validated_auroc(features: np.ndarray, wrong: np.ndarray, penalty: float, folds: int,
                          seed: int) -> float:
    """AUROC of out-of-fold risks: each fold scored by weights fitted on the others (seeded split)."""
    order = np.random.default_rng(seed).permutation(len(wrong))
    risk = np.zeros(len(wrong))
    for fold in np.array_split(order, folds):
        train = np.setdiff1d(order, fold)
        w = fit(features[train], wrong[train], penalty)
        risk[fold] = np.c_[np.ones(len(fold)), features[fold]] @ w
    return error_auroc(list(-risk), list(wrong))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--penalty", type=float, default=1.0, help="L2 penalty on the weights (default 1.0)")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0, help="seed of the cross-validation split")
    args = parser.parse_args(argv)
    signals, wrong = development_signals()
    names = sorted({s for case in signals for s in case})
    features = np.array([[float(n in case) for n in names] for case in signals])
    w = fit(features, wrong, args.penalty)
    print(f"development slice: {len(wrong)} cases, {int(wrong.sum())} wrong verdicts; penalty {args.penalty}")
    print(f"{'signal':<28} {'cases':>5} {'wrong':>5} {'rate':>6} {'weight':>7}")
    for k, name in enumerate(names):
        has = features[:, k] > 0
        print(f"{name:<28} {int(has.sum()):>5} {int(wrong[has].sum()):>5} {wrong[has].mean():>6.3f} {w[k + 1]:>7.2f}")
    weights = {n: round(float(v), 2) for n, v in zip(names, w[1:], strict=True) if round(float(v), 2) > 0}
    bias = round(float(w[0]), 2)
    in_sample = error_auroc(list(-(bias + features @ np.array([weights.get(n, 0.0) for n in names]))), list(wrong))
    cv = cross_validated_auroc(features, wrong, args.penalty, args.folds, args.seed)
    print(f"AUROC on the development slice: in-sample {in_sample:.3f}, {args.folds}-fold cross-validated {cv:.3f}")
    print("\nCONFIDENCE_BIAS: float = " + f"{bias}")
    print("CONFIDENCE_WEIGHTS: Mapping[str, float] = MappingProxyType({")
    for name, value in sorted(weights.items(), key=lambda item: (-item[1], item[0])):
        print(f'    "{name}": {value},')
    print("})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
