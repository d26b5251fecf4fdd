"""What a blogger pastes to show a chart elsewhere: an iframe of its embed page, or its image linked to its
page. Made as text here and escaped again where the page shows them."""

from __future__ import annotations

import html
from typing import Any

from generator.rendering.charts.images import NARROW_WIDTH
from generator.rendering.embeds import folders as embeds
from generator.rendering.embeds import unfurl


def iframe_snippet(site_url: str, c: Any) -> str:
    return unfurl.iframe(f"{site_url}embed/{c.id}/", c.title, "100%", unfurl.iframe_height(c))


def image_snippet(site_url: str, c: Any) -> str:
    names = embeds.file_names(c.id)
    page = site_url + embeds.page_url(c.page)
    src = f"{site_url}embed/{c.id}/{names['svg']}"
    alt = unfurl.chart_alt(c)
    # Its natural width at most, and the column's where that is narrower: a blog read on a phone
    # never scrolls sideways for it. Where the chart has a narrow image, a phone's screen gets
    # that one, as the chart's own page gives it, so its text is not shrunk to a few pixels.
    img = (f'<img src="{html.escape(src)}" alt="{html.escape(alt)}" width="{embeds.EXPORT_WIDTH}" '
           f'height="{embeds.image_height(c)}" style="max-width:100%;height:auto">')
    narrow = embeds.narrow_height(c, site_url)
    if narrow:
        src = f"{site_url}embed/{c.id}/{names['svg-narrow']}"
        img = (f'<picture><source media="{embeds.NARROW_MEDIA}" srcset="{html.escape(src)}" width="{NARROW_WIDTH}" '
               f'height="{narrow}">{img}</picture>')
    return f'<a href="{html.escape(page)}">{img}</a>'
