"""The sitbench version, and the commit of the checkout it runs from."""

__version__ = "0.1.0"


def git_commit() -> str | None:
    """Commit of the sitbench checkout this code runs from, or None outside a git checkout.

    Recorded in run manifests (``git_commit``) beside ``package_version``.
    """
    import subprocess
    from pathlib import Path

    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent, capture_output=True,
                             check=False, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None
