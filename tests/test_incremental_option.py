"""The plugin's `incremental` option: off, the plugin only generates its files and MkDocs builds every
page itself; the site is the same, file for file and byte for byte."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from site_support import build_into, site_hashes

from generator.plugin import config as plugin_config
from generator.store import registry


def _incremental_off(root: Path) -> None:
    mkdocs_yml = root / "mkdocs.yml"
    text = mkdocs_yml.read_text(encoding="utf-8")
    assert text.count("      incremental: true\n") == 1
    mkdocs_yml.write_text(text.replace("      incremental: true\n", "      incremental: false\n"), encoding="utf-8")


@pytest.mark.slow
def test_a_build_without_the_incremental_layer_makes_the_site_a_cold_and_a_warm_incremental_build_make(
        two_scenario_project: Path, tmp_path: Path, seed_cache):
    root = two_scenario_project
    on, off = seed_cache(tmp_path / "on-cache"), seed_cache(tmp_path / "off-cache")
    cold = build_into(root, tmp_path / "cold", on)
    assert "guide: 0 page files from the cache" in cold.stderr
    warm = build_into(root, tmp_path / "warm", on)
    # The warm build took both scenario pages' files from what the cold one stored.
    assert re.search(r"guide: 2 page files from the cache", warm.stderr), warm.stderr
    _incremental_off(root)
    plain = build_into(root, tmp_path / "plain", off)
    assert "page files from the cache" not in plain.stderr
    stores = [off / registry.STORES[store].folder for store in ("converted", "themed")]
    assert not any(store.exists() for store in stores), "the layer off stores no page"

    cold_site, plain_site = site_hashes(tmp_path / "cold"), site_hashes(tmp_path / "plain")
    assert len(cold_site) > 100
    only_cold = sorted(set(cold_site) - set(plain_site))
    only_plain = sorted(set(plain_site) - set(cold_site))
    differing = sorted(p for p in set(cold_site) & set(plain_site) if cold_site[p] != plain_site[p])
    assert (only_cold, only_plain, differing) == ([], [], []), "incremental on and off make different sites"
    assert site_hashes(tmp_path / "warm") == cold_site


def test_guide_incremental_overrides_the_option_for_one_build(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(plugin_config.INCREMENTAL_ENV, raising=False)
    assert plugin_config.incremental(True) is True
    assert plugin_config.incremental(False) is False
    monkeypatch.setenv(plugin_config.INCREMENTAL_ENV, "0")
    assert plugin_config.incremental(True) is False
    monkeypatch.setenv(plugin_config.INCREMENTAL_ENV, "on")
    assert plugin_config.incremental(False) is True
    monkeypatch.setenv(plugin_config.INCREMENTAL_ENV, "maybe")
    with pytest.raises(ValueError, match="GUIDE_INCREMENTAL must be 1 or 0"):
        plugin_config.incremental(True)
