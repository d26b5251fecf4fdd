"""`guide new-scenario NAME`: a commented scenario file to fill in, from templates/new_scenario.yaml.j2.

The file starts with the schema modeline and marks every value only the contributor knows with the
loader's PLACEHOLDER, which validation reports by line and column until it is replaced.
"""

from __future__ import annotations

from pathlib import Path

import jinja2

from generator import TEMPLATES
from generator.inputs.loader import PLACEHOLDER, SCENARIO_ID
from generator.model.schema import MODELINE


class ScenarioExists(Exception):
    pass


def check_name(name: str) -> str:
    """NAME as a scenario id, or ValueError saying what a name may hold."""
    if not SCENARIO_ID.match(name) or len(name) > 80:
        raise ValueError(
            f"NAME must be lower-case letters, digits and dashes, starting with a letter or digit, "
            f"at most 80 characters; it becomes the page address (got {name!r})"
        )
    return name


def scenario_text(name: str) -> str:
    # Plain text out (YAML, not HTML): no autoescaping.
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(TEMPLATES), undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True, autoescape=False)
    return env.get_template("new_scenario.yaml.j2").render(modeline=MODELINE, name=name, placeholder=PLACEHOLDER)


def write_new_scenario(root: Path, name: str) -> Path:
    """Write scenarios/NAME.yaml under root; never replaces an existing file."""
    path = root / "scenarios" / f"{check_name(name)}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        # "x": created only if absent, in one step, so a file that appears meanwhile is not replaced either.
        with path.open("x", encoding="utf-8", newline="\n") as f:
            f.write(scenario_text(name))
    except FileExistsError:
        raise ScenarioExists(path) from None
    return path
