"""What the browser suites share: a tab in a fresh Chromium context that records every request, console
error and page error (`Tab`, `Recorder`), the pages they open and the phone they open them on. The
`open_tab` fixture in conftest.py makes the tabs."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout


LOCAL = "http://127.0.0.1"
PAGES = {"home": "", "scenario": "scenarios/one-off-run/", "prices": "prices/", "scenarios-index": "scenarios/"}
TIMEOUT_MS = 30_000

ALL_DRAWN = """(theme) => {
  const views = [...document.querySelectorAll('.guide-chart__view')];
  return views.length > 0 && views.every(v => v.dataset.drawn === 'true' && (!theme || v.dataset.theme === theme));
}"""
# Data marks (not axes, legends or titles): lines and areas are paths, bars are paths or rects,
# points are symbol paths, rules are lines.
CHART_STATE = """() => [...document.querySelectorAll('.guide-chart__view')].map(v => ({
  id: v.dataset.chart,
  drawn: v.dataset.drawn || null,
  theme: v.dataset.theme || null,
  error: v.dataset.error || null,
  svg: v.querySelectorAll('svg').length,
  marks: [...v.querySelectorAll('svg g.role-mark > path, svg g.role-mark > rect, svg g.role-mark > line')]
    .filter(e => e.tagName !== 'path' || (e.getAttribute('d') || '').length > 0).length,
  textFills: [...v.querySelectorAll('svg text')].map(t => t.getAttribute('fill')),
  text: [...v.querySelectorAll('svg text')].map(t => t.textContent).join(' | '),
}))"""


@dataclass
class Recorder:
    """What a page must not do: log errors, throw, or ask another host for anything."""

    errors: list[str] = field(default_factory=list)
    external: list[str] = field(default_factory=list)

    def on_console(self, msg) -> None:
        if msg.type == "error":
            loc = msg.location or {}
            self.errors.append(f"console: {msg.text} ({loc.get('url', '')}:{loc.get('lineNumber', '')})")

    def on_page_error(self, err) -> None:
        self.errors.append(f"pageerror: {err}")

    def on_request(self, request) -> None:
        url = request.url
        if not (url.startswith(LOCAL) or url.startswith(("data:", "blob:"))):
            self.external.append(url)

    def assert_clean(self) -> None:
        assert not self.errors, "errors in the browser:\n" + "\n".join(self.errors)
        assert not self.external, "requests that left 127.0.0.1:\n" + "\n".join(self.external)


@dataclass
class Tab:
    page: object
    recorder: Recorder
    base: str

    def goto(self, url: str) -> None:
        self.page.goto(self.base + url, wait_until="load")

    def reach_charts(self) -> None:
        """Point at every chart, as a reader would: that is what loads the live chart."""
        views = self.page.locator(".guide-chart__view")
        for i in range(views.count()):
            views.nth(i).hover()

    def charts_drawn(self, theme: str | None = None, expect: int | None = None) -> list[dict]:
        self.reach_charts()
        try:
            self.page.wait_for_function(ALL_DRAWN, arg=theme, timeout=TIMEOUT_MS)
        except PlaywrightTimeout:
            brief = [{k: c[k] for k in ("id", "drawn", "theme", "error", "svg", "marks")} for c in self.page.evaluate(CHART_STATE)]
            pytest.fail(f"charts on {self.page.url} not drawn{' in ' + theme if theme else ''}: {brief}; errors: {self.recorder.errors}")
        state = self.page.evaluate(CHART_STATE)
        if expect is not None:
            assert len(state) == expect, f"{len(state)} charts on {self.page.url}, the built page has {expect}"
        for c in state:
            assert c["error"] is None, c
            assert c["svg"] == 1, f"{c['id']}: no SVG"
            assert c["marks"] > 0, f"{c['id']}: the chart drew no marks"
        return state

    def scheme(self) -> str | None:
        return self.page.evaluate("() => document.body.getAttribute('data-md-color-scheme')")

    def toggle_to(self, scheme: str) -> None:
        """Click Material's palette toggle (auto -> light -> dark -> auto) until the body has the scheme."""
        for _ in range(4):
            if self.scheme() == scheme:
                return
            toggle = self.page.locator('label.md-header__button[for^="__palette"]:visible')
            assert toggle.count() == 1, "expected one visible palette toggle"
            before = toggle.get_attribute("for")
            toggle.click()
            # The next toggle replaces the clicked one once the palette has switched.
            self.page.wait_for_function(
                "(f) => { const l = [...document.querySelectorAll('label.md-header__button[for^=\"__palette\"]')]"
                ".find(l => l.offsetParent !== null); return l && l.getAttribute('for') !== f; }",
                arg=before, timeout=TIMEOUT_MS,
            )
        assert self.scheme() == scheme


def expected_charts(site: Path, url: str) -> int:
    return (site / url / "index.html").read_text(encoding="utf-8").count('class="guide-chart__view"')


def phone(width: int) -> dict:
    return {"viewport": {"width": width, "height": 740}, "is_mobile": True, "has_touch": True}
