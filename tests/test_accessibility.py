"""axe-core (bundled with axe-playwright-python) on each page type: no serious or critical violation."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe

PAGES = {
    "home": "",
    "scenario": "scenarios/one-off-run/",
    "calculator": "calculator/",
    "prices": "prices/",
    "changes": "changes/",
    "embed": "embed/one-off-run-1-cumulative/",
}


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_no_serious_or_critical_violations(scheme: str, browser, served_site: str):
    axe = Axe()
    context = browser.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 900})
    try:
        found = {}
        for name, url in PAGES.items():
            page = context.new_page()
            page.goto(served_site + url, wait_until="networkidle")
            if name == "calculator":
                # The chart draws once it nears the screen; check the page with it drawn.
                page.locator("#calc-chart").scroll_into_view_if_needed()
                page.wait_for_selector("#calc-chart[data-drawn] svg")
            result = axe.run(page)
            bad = [
                (v["id"], v["impact"], [n["target"] for n in v["nodes"][:3]])
                for v in result.response["violations"]
                if v["impact"] in ("serious", "critical")
            ]
            if bad:
                found[name] = bad
            page.close()
        assert not found, found
    finally:
        context.close()
