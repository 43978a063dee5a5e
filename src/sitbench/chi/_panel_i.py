"""The integration axis (placeholder until I1–I6 land)."""

TESTS: tuple[object, ...] = ()
SOLVERS: tuple[object, ...] = ()
