"""Bad-input classes: bounds on options that size work, empty inputs, agents that exit or cannot be reached."""

from __future__ import annotations
