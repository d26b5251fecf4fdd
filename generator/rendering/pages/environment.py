"""The Jinja environment of the page templates (generator/templates/): its settings, and the filters and
names a template may use whatever the build; the Renderer adds what it reads of its own project."""

from __future__ import annotations

import jinja2

from generator import TEMPLATES
from generator.model import formatting as fmt
from generator.model.catalog import OPTION_LABELS, OPTIONS
from generator.model.wording import ANSWER_LABELS, EXPERIENCE_LABELS, RULE_LABELS, VERDICT_LABELS, withdrawn
from generator.rendering.charts import specs as ch
from generator.rendering.charts.images import CARD_HEIGHT, CARD_WIDTH, NARROW_WIDTH, PNG_SCALE
from generator.rendering.embeds import folders as embeds
from generator.rendering.embeds import unfurl
from generator.rendering.pages.escaping import front_matter, md, script_json, sentence
from generator.store.html_cache import scenario_page
from generator.store.template_cache import Compiled


def environment(compiled: Compiled | None) -> jinja2.Environment:
    """Every contributed string a template prints is escaped (autoescape, and `md` in Markdown); a name
    a template misspells is an error, not an empty string. compiled: the cache's store of compiled
    templates, where the build has a cache."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        bytecode_cache=compiled,
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(
        md=md, script_json=script_json, front_matter=front_matter, money=fmt.money, hourly=fmt.hourly, hourly_exact=fmt.hourly_exact,
        break_even=fmt.break_even, runs=fmt.runs, ratio=fmt.ratio, pct=fmt.pct, weeks=fmt.weeks, count=fmt.count, num=fmt.num,
        days=fmt.days, date=fmt.date, threshold=fmt.threshold, pixels=fmt.pixels, sentence=sentence,
        withdrawn=withdrawn,
    )
    env.globals.update(
        OPTION_LABELS=OPTION_LABELS,
        OPTIONS=OPTIONS,
        RULE_LABELS=RULE_LABELS,
        VERDICT_LABELS=VERDICT_LABELS,
        ANSWER_LABELS=ANSWER_LABELS,
        EXPERIENCE_LABELS=EXPERIENCE_LABELS,
        scenario_page=scenario_page,
        column_text=ch.column_text,
        root_prefix=embeds.relative_root,
        page_url=embeds.page_url,
        embed_names=embeds.file_names,
        export_width=embeds.EXPORT_WIDTH,
        image_height=embeds.image_height,
        narrow_width=NARROW_WIDTH,
        narrow_media=embeds.NARROW_MEDIA,
        narrow_break=embeds.NARROW_BELOW,
        png_scale=PNG_SCALE,
        iframe_width=unfurl.IFRAME_WIDTH,
        card_width=CARD_WIDTH,
        card_height=CARD_HEIGHT,
        plan_saving=unfurl.plan_saving,
    )
    return env
