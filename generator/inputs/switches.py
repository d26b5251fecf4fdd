"""An on/off setting as a person writes it (1/0, true/false, yes/no, on/off), shared by the plugin's
options (`plugin/config.py`) and the commands' (`commands/siteconfig.py`), which read the variables."""

from __future__ import annotations

ON, OFF = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


def switch(name: str, value: str | None, configured: bool) -> bool:
    """value (the variable `name`'s, if set) when it says on or off, else configured. Raises ValueError
    for a value that says neither."""
    value = (value or "").strip().lower()
    if not value:
        return configured
    if value in ON + OFF:
        return value in ON
    raise ValueError(f"{name} must be 1 or 0 (got {value!r})")
