"""The build cache can be trusted: damage to it, or to a built file linked into it, never reaches a
site; it refuses to live where builds only read; it stays bounded and can be pruned; builds that
share it, or are killed, leave it and the machine clean. Each build here runs `mkdocs build
--strict` in a subprocess, on a copy of the project with two scenarios, to keep cold builds quick."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from site_support import TWO_SCENARIO_DAY, build_into, copy_two_scenario_project, run_mkdocs_build, site_hashes, tree_hashes

from generator.store import cachefile, registry

REPO = Path(__file__).resolve().parents[1]


def charts_rendered(proc: subprocess.CompletedProcess[str]) -> int:
    return int(re.search(r"embed images: (\d+) charts rendered", proc.stderr).group(1))


def cut(path: Path, size: int) -> None:
    with path.open("r+b") as f:
        f.truncate(size)


@pytest.mark.slow
def test_the_build_after_any_damage_is_byte_identical_to_a_clean_build(two_scenario_project: Path, tmp_path: Path):
    cache = tmp_path / "cache"
    site = tmp_path / "one"
    build_into(two_scenario_project, site, cache)
    clean = site_hashes(site)
    # As if built an hour ago, then built again: the second build records the digests of the files
    # it checked, which the build after the damage must not trust where a file changed.
    for path in cache.rglob("*"):
        if path.is_file():
            _aged(path, 3600)
    build_into(two_scenario_project, tmp_path / "warm", cache)
    assert json.loads(cachefile.unchecked((cache / cachefile.DIGESTS).read_bytes()) or b"{}"), "the warm build recorded no digest"
    embeds = cache / "embeds"
    pngs = sorted(p for p in embeds.glob("*.png"))
    svgs = sorted(p for p in embeds.glob("*.svg") if ".dark." not in p.name)
    texts = {ext: sorted((embeds / "texts").glob(f"*{ext}")) for ext in (".html", ".csv")}
    runtime = next(cache.glob("vega-runtime-*.js"))
    pages = sorted((cache / "pages").glob("*.json"))
    assert len(pngs) >= 4 and svgs and texts[".html"] and texts[".csv"] and pages
    # Damage a disk, an interrupted copy or an editor can do, each to a different file.
    cut(pngs[0], 30)
    cut(pngs[1], 1000)
    svg = svgs[0].read_bytes()
    svgs[0].write_bytes(svg[: len(svg) // 3] + svg[len(svg) // 2 :])
    cut(texts[".html"][0], texts[".html"][0].stat().st_size // 2)
    cut(texts[".csv"][0], texts[".csv"][0].stat().st_size // 2)
    pages[0].write_bytes(pages[0].read_bytes().replace(b"Workload", b"Workl0ad", 1))
    cut(runtime, runtime.stat().st_size // 2)
    # A built file edited in place: a hard link, so the cache's file changes with it.
    built_svg = next((site / "embed").rglob("*-dark.svg"))
    with built_svg.open("r+b") as f:
        f.seek(200)
        f.write(b"EDITED")
    assert built_svg.stat().st_nlink > 1
    # And every other file in the cache cut to half its size, but the sums the images are checked
    # against and the recorded digests: each image must be caught by its own check, not because
    # its chart's record broke or the digests were lost.
    damaged = {pngs[0], pngs[1], svgs[0], texts[".html"][0], texts[".csv"][0], pages[0], runtime, built_svg.resolve()}
    for path in cache.rglob("*"):
        if path.is_file() and path not in damaged and not path.name.endswith(".sums.json") and path.name != cachefile.DIGESTS and path.stat().st_size > 1:
            cut(path, path.stat().st_size // 2)

    again = build_into(two_scenario_project, tmp_path / "two", cache)
    assert charts_rendered(again) > 0
    after = site_hashes(tmp_path / "two")
    assert [p for p in clean if after.get(p) != clean[p]] == [] and after.keys() == clean.keys()
    # Nothing of the damage stays for later builds either.
    build_into(two_scenario_project, tmp_path / "three", cache)
    assert site_hashes(tmp_path / "three") == clean


@pytest.mark.slow
@pytest.mark.parametrize("place", ["docs", "scenarios", "data", "data/deeper", "under a file"])
def test_a_cache_where_it_must_not_or_cannot_be_is_refused_in_one_line_before_anything_is_written(two_scenario_project: Path, tmp_path: Path, place: str):
    if place == "under a file":
        (tmp_path / "a-file").write_text("not a folder")
        cache = tmp_path / "a-file" / "cache"
        says = "guide: the build cache cannot be created: Not a directory"
    else:
        cache = two_scenario_project / place / ".cache"
        says = f"guide: the build cache must not be inside {place.split('/')[0]}/, which builds only read"
    before = tree_hashes(two_scenario_project)
    site = tmp_path / "site"
    proc = run_mkdocs_build(two_scenario_project, site, cache=cache)
    output = proc.stdout + proc.stderr  # MkDocs prints an aborted build's message on stdout
    assert proc.returncode != 0
    assert "Traceback" not in output
    lines = [ln for ln in output.splitlines() if "guide:" in ln]
    assert len(lines) == 1 and says in lines[0], output
    assert not site.exists() and not cache.exists()
    assert tree_hashes(two_scenario_project) == before
    cli = subprocess.run([sys.executable, "-m", "generator", "--root", str(two_scenario_project), "cache", "prune"], capture_output=True, text=True,
                         env={**os.environ, "GUIDE_CACHE_DIR": str(cache)})
    assert cli.returncode == 2 and cli.stdout == ""
    assert len(cli.stderr.strip().splitlines()) == 1 and says in cli.stderr


@pytest.mark.slow
def test_prune_removes_what_the_current_tree_does_not_use(two_scenario_project: Path, tmp_path: Path, seed_cache):
    cache = seed_cache(tmp_path / "cache")
    build_into(two_scenario_project, tmp_path / "one", cache)
    extra = two_scenario_project / "scenarios" / "zz-extra.yaml"
    text = (two_scenario_project / "scenarios" / "case-series-a-startup.yaml").read_text(encoding="utf-8")
    extra.write_text(text.replace('title: "', 'title: "Extra: ', 1), encoding="utf-8")
    build_into(two_scenario_project, tmp_path / "two", cache)
    assert len(list((cache / "pages").glob("*.json"))) == 3
    assert len(list((cache / "html").glob("*.json"))) == 3  # the three scenario pages
    extra.unlink()
    templates = sorted(p.relative_to(cache) for p in (cache / "templates").rglob("*.bc"))
    assert len(templates) > 20  # ours and Material's, compiled by the builds
    stale = cache / "templates" / "0123456789abcdef" / "main.html-0123456789abcdef.bc"  # another code state's
    stale.parent.mkdir()
    stale.write_bytes(b"compiled by other code")
    size = sum(p.stat().st_size for p in cache.rglob("*") if p.is_file())
    # From the copy, as the builds ran: Jinja keys a compiled template by its file's path.
    pruned = subprocess.run([sys.executable, "-m", "generator", "--root", str(two_scenario_project), "cache", "prune"], capture_output=True, text=True,
                            cwd=two_scenario_project, env={**os.environ, "GUIDE_CACHE_DIR": str(cache)})
    assert pruned.returncode == 0, pruned.stderr
    assert re.match(r"removed [1-9]\d* file\(s\)", pruned.stdout), pruned.stdout
    assert len(list((cache / "pages").glob("*.json"))) == 2
    assert len(list((cache / "html").glob("*.json"))) == 2  # the two scenario pages of this tree
    assert len(list((cache / "themed").glob("*.json"))) == 2  # and the files the theme made of them
    assert sum(p.stat().st_size for p in cache.rglob("*") if p.is_file()) < size
    # Material's compiled templates stay though prune never renders a theme page; the stale ones go.
    assert sorted(p.relative_to(cache) for p in (cache / "templates").rglob("*.bc")) == templates
    # What the tree uses is all still there: the next build renders nothing.
    after = build_into(two_scenario_project, tmp_path / "three", cache)
    assert charts_rendered(after) == 0
    assert "guide: 2 page files from the cache" in after.stderr
    assert site_hashes(tmp_path / "three") == site_hashes(tmp_path / "one")


def test_after_a_build_the_cache_is_cut_to_its_bound_least_recently_used_first(tmp_path: Path):
    cache = tmp_path / "cache"
    now = time.time()
    files = {}
    for i, age_days in enumerate([30, 20, 10, 5, 0.001]):
        path = cache / "embeds" / f"file-{i}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x" * 1024 * 1024)
        os.utime(path, (now - age_days * 86400, now - age_days * 86400))
        files[age_days] = path
    build = cachefile.Cache(cache)
    build.begin_build()
    build.mark_used(files[30])  # the oldest, but this build used it
    os.utime(files[30], (now - 30 * 86400, now - 30 * 86400))
    removed = build.keep_bounded(now=now, max_mb=2.5)
    left = sorted(p.name for p in cache.rglob("*.png"))
    # 5 MB against a bound of 2.5 MB: the files this build did not use go, least recently used first,
    # until the cache is under the bound; the one used a minute ago stays (a build beside this one
    # may be about to link it).
    assert (removed, left) == (3, sorted([files[30].name, files[0.001].name]))


def _aged_files(cache: Path, count: int, days: float) -> list[Path]:
    then = time.time() - days * 86400
    files = []
    for i in range(count):
        path = cache / "embeds" / f"file-{i}.png"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x")
        os.utime(path, (then, then))
        files.append(path)
    return files


def test_a_lone_build_sets_a_used_files_time_of_last_use_as_it_marks_it(tmp_path: Path):
    (path,) = _aged_files(tmp_path / "cache", 1, days=30)
    mtime = path.stat().st_mtime_ns
    build = cachefile.Cache(tmp_path / "cache", between_builds=False)
    build.begin_build()
    build.mark_used(path)
    assert time.time() - path.stat().st_atime < 60
    assert path.stat().st_mtime_ns == mtime  # the bytes' time, which digests rely on, is left alone


def test_a_serve_process_sets_the_times_of_last_use_between_saves_and_stops_when_asked(tmp_path: Path):
    files = _aged_files(tmp_path / "cache", 600, days=30)
    served = cachefile.Cache(tmp_path / "cache", between_builds=True)
    served.begin_build()
    for path in files:
        served.mark_used(path)
    assert all(time.time() - p.stat().st_atime > 29 * 86400 for p in files)  # not during the save
    served.touch_used(stopping=lambda: True)  # a save came at once
    assert all(time.time() - p.stat().st_atime > 29 * 86400 for p in files)
    served.touch_used()
    assert all(time.time() - p.stat().st_atime < 60 for p in files)


def test_holding_the_cache_to_its_bound_removes_nothing_once_a_save_has_come(tmp_path: Path):
    files = _aged_files(tmp_path / "cache", 300, days=30)
    build = cachefile.Cache(tmp_path / "cache")
    build.begin_build()
    assert build.keep_bounded(max_mb=0, stopping=lambda: True) == 0
    assert all(p.exists() for p in files)
    assert build.keep_bounded(max_mb=0) == 300  # and everything unused, when nothing stops it


@pytest.mark.slow
def test_builds_sharing_one_cache_at_once_both_make_the_clean_site(two_scenario_project: Path, tmp_path: Path, seed_cache):
    cache = tmp_path / "shared"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "GUIDE_CACHE_DIR": str(cache)}
    procs = [
        subprocess.Popen([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / name)], cwd=two_scenario_project, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for name in ("one", "two")
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err
    # The build to compare with, alone with its cache: whose images need not be made afresh.
    build_into(two_scenario_project, tmp_path / "alone", seed_cache(tmp_path / "own-cache"))
    alone = site_hashes(tmp_path / "alone")
    assert site_hashes(tmp_path / "one") == alone
    assert site_hashes(tmp_path / "two") == alone


def _descendants(pid: int) -> dict[int, str]:
    """Every living process below pid, with its command line."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found, todo = {}, [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found[child] = _cmdline(child)
            todo.append(child)
    return found


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited; only its parent's bookkeeping is left


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_killed_build_leaves_no_image_worker_behind(two_scenario_project: Path, tmp_path: Path, sig: signal.Signals):
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "GUIDE_CACHE_DIR": str(tmp_path / "cold")}  # cold: images must render
    proc = subprocess.Popen([sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(tmp_path / "site")], cwd=two_scenario_project, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        workers: dict[int, str] = {}
        while time.monotonic() < deadline and proc.poll() is None:
            workers = {pid: cmd for pid, cmd in _descendants(proc.pid).items() if "multiprocessing" in cmd}
            if any("spawn_main" in cmd for cmd in workers.values()):
                break
            time.sleep(0.05)
        assert any("spawn_main" in cmd for cmd in workers.values()), "the build finished before its image workers were seen"
        proc.send_signal(sig)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(_alive(pid) for pid in workers):
        time.sleep(0.1)
    assert [workers[pid] for pid in workers if _alive(pid)] == []


def _without_privileges() -> list[str]:
    """A command prefix under which file modes bind this process.

    Root ignores a missing write bit; dropping every capability (CAP_DAC_OVERRIDE
    among them) leaves root bound by the modes while it keeps its own home, where
    CI keeps the interpreter. Any other user is bound by them already.
    """
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv, which drops the capabilities that ignore file modes")
    prefix = [setpriv, "--bounding-set=-all", "--inh-caps=-all", "--"]
    tried = subprocess.run([*prefix, "true"], capture_output=True, text=True)
    if tried.returncode != 0:
        pytest.skip(f"root here cannot drop its capabilities: {tried.stderr.strip()}")
    return prefix


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="needs POSIX file modes")
@pytest.mark.slow
def test_a_warm_cache_that_cannot_be_written_is_read_and_left_as_it_is(monkeypatch, seed_cache):
    monkeypatch.setenv("GUIDE_TODAY", TWO_SCENARIO_DAY)
    with tempfile.TemporaryDirectory(prefix="guide-ro-") as tmp:
        base = Path(tmp)
        root = copy_two_scenario_project(base / "project")
        cache = seed_cache(base / "cache")
        build_into(root, base / "clean", cache)
        clean = site_hashes(base / "clean")
        for png in (cache / "embeds").glob("*.png"):
            png.unlink()  # some images must be rendered, somewhere other than the cache
        subprocess.run(["chmod", "-R", "a-w", str(cache)], check=True)
        before = {p: p.read_bytes() for p in sorted(cache.rglob("*")) if p.is_file()}
        prefix = _without_privileges()
        probe = subprocess.run([*prefix, "touch", str(cache / "probe")], capture_output=True)
        assert probe.returncode != 0, "the cache must refuse writes for this test to mean anything"
        out = base / "out"
        env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "GUIDE_CACHE_DIR": str(cache)}
        proc = subprocess.run([*prefix, sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(out / "site")],
                              cwd=root, env=env, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert charts_rendered(proc) > 0
        assert site_hashes(out / "site") == clean
        assert {p: p.read_bytes() for p in sorted(cache.rglob("*")) if p.is_file()} == before
        subprocess.run(["chmod", "-R", "u+w", str(cache)], check=True)


# --- digests recorded for later builds -----------------------------------------------------------


def _aged(path: Path, seconds: float) -> None:
    """Give path a modification time `seconds` ago, as if it had been written by an earlier build."""
    then = time.time() - seconds
    os.utime(path, (then, then))


def _written_an_hour_ago(cache: Path, name: str, data: bytes) -> Path:
    path = cache / "embeds" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    _aged(path, 3600)
    return path


def test_a_digest_recorded_by_an_earlier_build_is_trusted_while_its_file_is_unchanged(tmp_path: Path, monkeypatch):
    cache = tmp_path / "cache"
    image = _written_an_hour_ago(cache, "chart.png", b"the rendered image")
    first = cachefile.Cache(cache)
    first.begin_build()
    assert first.digest(image) == (18, hashlib.sha256(b"the rendered image").hexdigest())
    first.mark_used(image)
    first.save_digests()
    assert (cache / cachefile.DIGESTS).exists()

    # The next build, a new process: the file is not read again while it is as it was recorded.
    later = cachefile.Cache(cache)
    later.begin_build()
    opened: list[Path] = []
    real_open = Path.open
    monkeypatch.setattr(Path, "open", lambda self, *a, **k: opened.append(self) or real_open(self, *a, **k))
    assert later.digest(image) == (18, hashlib.sha256(b"the rendered image").hexdigest())
    assert opened == []

    # Changed in place (the same size, as through a hard link in a built site): hashed again.
    with real_open(image, "r+b") as f:
        f.write(b"THE")
    assert later.digest(image) == (18, hashlib.sha256(b"THE rendered image").hexdigest())
    assert opened == [image]


def test_files_a_serve_dirty_build_settled_are_taken_as_checked_by_the_next_build_alone(tmp_path: Path, monkeypatch):
    cache = tmp_path / "cache"
    image = _written_an_hour_ago(cache, "chart.png", b"the rendered image")
    other = _written_an_hour_ago(cache, "other.png", b"another image")
    sums = (18, hashlib.sha256(b"the rendered image").hexdigest())
    served = cachefile.Cache(cache)
    served.begin_build()
    assert served.linkable(image, *sums)
    served.settle([image, cache / "embeds" / "never-checked.png"])
    assert served.settled(image) and not served.settled(other) and not served.settled(cache / "embeds" / "never-checked.png")
    # Named by their keys (files a save carried as they were), the same.
    served.settle((), [cachefile.path_key(image), cachefile.path_key(cache / "embeds" / "never-checked.png")])
    assert served.settled(image) and not served.settled(cache / "embeds" / "never-checked.png")

    # The next build takes the settled file as it was checked: no stat, even where it changed since
    # (the trade `mkdocs serve --dirty` makes), but only for the bytes it was checked to hold.
    stats: list[Path] = []
    real_stat = Path.stat
    monkeypatch.setattr(Path, "stat", lambda self, *a, **k: stats.append(self) or real_stat(self, *a, **k))
    cut(image, 3)
    assert served.linkable(image, *sums)
    assert stats == []
    assert not served.linkable(image, 3, sums[1])  # other bytes: looked at, and found not to be these
    assert stats == [image]

    # Settling nothing (a failed build does) ends it: the file is looked at, and found changed.
    served.settle(())
    assert not served.settled(image)
    assert not served.linkable(image, *sums)


def test_a_digest_taken_just_after_its_file_was_written_is_not_recorded(tmp_path: Path):
    # A file written again within the same tick of the file system's clock keeps its modification
    # time: a digest taken that soon may not hold, so no later build may trust it.
    cache = tmp_path / "cache"
    old = _written_an_hour_ago(cache, "old.svg", b"<svg></svg>")
    fresh = cache / "embeds" / "fresh.svg"
    fresh.write_bytes(b"<svg/>")
    build = cachefile.Cache(cache)
    build.begin_build()
    for path in (fresh, old):
        build.digest(path)
        build.mark_used(path)
    build.save_digests()
    body = cachefile.unchecked((cache / cachefile.DIGESTS).read_bytes())
    assert body is not None and sorted(json.loads(body)) == ["embeds/old.svg"]


def test_a_damaged_digests_file_is_ignored(tmp_path: Path, monkeypatch):
    cache = tmp_path / "cache"
    image = _written_an_hour_ago(cache, "chart.svg", b"<svg>right</svg>")
    st = image.stat()
    wrong = {"embeds/chart.svg": [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_size, "0" * 64]}
    # Written without its header's size and hash, as a damaged or foreign file would be.
    (cache / cachefile.DIGESTS).write_text(json.dumps(wrong), encoding="utf-8")
    build = cachefile.Cache(cache)
    build.begin_build()
    assert build.digest(image) == (st.st_size, hashlib.sha256(b"<svg>right</svg>").hexdigest())


def test_two_caches_in_one_process_share_nothing_and_a_workers_copy_knows_the_folder_only(tmp_path: Path):
    one, other = cachefile.Cache(tmp_path / "one"), cachefile.Cache(tmp_path / "other")
    for cache in (one, other):
        cache.begin_build()
    entry = one.folder("rendered") / "entry.json"
    one.store(entry, "made once")
    one.memo("vega")["shape"] = "compiled"
    assert (one.wrote(), one.used()) == (True, frozenset({str(entry.absolute())}))
    assert (other.wrote(), other.used(), other.memo("vega")) == (False, frozenset(), {})
    copy = pickle.loads(pickle.dumps(one))
    assert (copy.directory, copy.used(), copy.memo("vega")) == (one.directory, frozenset(), {})
    assert copy.read_checked(entry) == b"made once"


def test_a_build_that_renders_images_records_their_digests_for_the_next(tmp_path: Path, monkeypatch):
    """The images a build renders are hashed before it ends, so the build after a cold one checks
    them by their stat alone; a digest taken too soon after the write is still not recorded."""
    import time

    from generator.rendering.charts.images import Images, Job

    folder = tmp_path / "cache"
    cache = cachefile.Cache(folder)
    cache.begin_build()
    images = Images(cache)
    spec = json.dumps({"$schema": "https://vega.github.io/schema/vega/v5.json", "width": 40, "height": 20, "background": "white",
                       "marks": [{"type": "rect", "encode": {"enter": {"width": {"value": 10}, "height": {"value": 10}}}}]})
    paths = images.add(Job(spec))
    images.wait()
    real = time.time_ns
    # As at the end of a build whose images were written more than RACY_NS before it.
    monkeypatch.setattr(cachefile.time, "time_ns", lambda: real() + cachefile.RACY_NS + 10**9)
    images.record_rendered()
    images.close()
    cache.save_digests()
    body = cachefile.unchecked((folder / cachefile.DIGESTS).read_bytes())
    assert body is not None
    assert sorted(json.loads(body)) == sorted(p.relative_to(folder).as_posix() for p in paths.values())
    assert len(paths) == 5


def _spec(width: int) -> str:
    return json.dumps({"$schema": "https://vega.github.io/schema/vega/v5.json", "width": width, "height": 20, "background": "white",
                       "marks": [{"type": "rect", "encode": {"enter": {"width": {"value": 10}, "height": {"value": 10}}}}]})


@pytest.fixture
def pools_started(monkeypatch) -> list[int]:
    """One item for each pool of image workers started while the test runs."""
    from generator.rendering.charts import images as images_module

    started: list[int] = []
    real_pool = images_module.process_pool
    monkeypatch.setattr(images_module, "process_pool", lambda *a, **k: started.append(1) or real_pool(*a, **k))
    return started


def test_builds_handed_the_same_image_workers_start_them_once_and_a_failed_render_ends_them(tmp_path: Path, pools_started):
    from generator.rendering.charts.images import Images, Job, Workers

    started = pools_started
    cache = cachefile.Cache(tmp_path / "cache")
    workers = Workers()
    try:
        for width in (40, 41):  # two saves under serve, each with a chart to render
            cache.begin_build()
            images = Images(cache, workers=workers)
            paths = images.add(Job(_spec(width)))
            images.wait()
            assert all(p.stat().st_size > 0 for p in paths.values())
        assert len(started) == 1
        # A render that fails ends the workers handed in: the next build starts new ones.
        broken = Images(cache, workers=workers)
        broken.add(Job('{"marks": "not a list"}'))
        with pytest.raises(Exception):
            broken.wait()
        again = Images(cache, workers=workers)
        again.add(Job(_spec(42)))
        again.wait()
        assert len(started) == 2
    finally:
        workers.close()
    # A build handed no workers starts its own, and ends them once its images are in.
    alone = Images(cache)
    alone.add(Job(_spec(43)))
    alone.wait()
    assert len(started) == 3


def _image_workers() -> int:
    """This process's image workers alive now (spawned: each runs multiprocessing's spawn_main)."""
    return sum("spawn_main" in _cmdline(pid) for pid in _descendants(os.getpid()))


def test_a_build_rendering_a_few_charts_starts_one_image_worker_and_the_other_cores_only_past_a_handful(tmp_path: Path):
    """A build after one scenario changed renders a chart or two: a worker per core would add a Python
    process and a JavaScript engine each to the build's peak memory for a fraction of a second."""
    from generator.rendering.charts.images import ONE_WORKER_UP_TO, Images, Job

    cores = os.cpu_count() or 1
    cache = cachefile.Cache(tmp_path / "cache")
    cache.begin_build()
    images = Images(cache)
    try:
        added = [images.add(Job(_spec(60 + i))) for i in range(ONE_WORKER_UP_TO)]
        assert _image_workers() == 1
        # The next `cores` renders: all but one go to the other cores' workers, one process each.
        added += [images.add(Job(_spec(60 + ONE_WORKER_UP_TO + i))) for i in range(cores)]
        assert _image_workers() == cores
        images.wait()
    finally:
        images.cancel()
    assert all(p.stat().st_size > 0 for paths in added for p in paths.values())
    assert _image_workers() == 0


def test_image_workers_warmed_between_saves_are_those_the_next_save_renders_with(tmp_path: Path, pools_started):
    import os

    from generator.rendering.charts.images import Images, Job, Workers

    started = pools_started
    cache = cachefile.Cache(tmp_path / "cache")
    workers = Workers()
    try:
        warmed = {future.result(timeout=120) for future in workers.warm()}
        assert len(warmed) >= 1 and os.getpid() not in warmed
        assert workers.warm() == []  # started already: nothing more to start
        cache.begin_build()
        images = Images(cache, workers=workers)
        paths = images.add(Job(_spec(44)))
        images.wait()
        assert all(p.stat().st_size > 0 for p in paths.values())
        assert len(started) == 1  # rendered by the workers the warming started
    finally:
        workers.close()


@pytest.mark.parametrize("shared", [False, True])
def test_a_build_that_stops_with_renders_still_queued_ends_and_leaves_handed_workers_usable(tmp_path: Path, shared: bool):
    import threading

    from generator.rendering.charts.images import Images, Job, Workers

    cache = cachefile.Cache(tmp_path / "cache")
    workers = Workers() if shared else None
    try:
        images = Images(cache, workers=workers)
        for width in range(40, 50):  # more than the workers take at once: some are still queued
            images.add(Job(_spec(width)))
        stopping = threading.Thread(target=images.cancel, daemon=True)
        stopping.start()
        stopping.join(timeout=120)
        assert not stopping.is_alive(), "cancel() did not return"
        if workers is not None:
            after = Images(cache, workers=workers)
            paths = after.add(Job(_spec(60)))
            after.wait()
            assert all(p.stat().st_size > 0 for p in paths.values())
    finally:
        if workers is not None:
            workers.close()


@pytest.mark.parametrize("between_builds", [True, False])
def test_entries_read_are_kept_for_later_builds_only_where_builds_follow(tmp_path: Path, between_builds: bool):
    """Under `mkdocs serve` an entry parsed once is the same entry for the rest of the process; a
    lone build (the plugin's cache outside serve) lets it go once used, and reads it again if asked."""
    cache = cachefile.Cache(tmp_path / "cache", between_builds=between_builds)
    entry = cache.folder("rendered") / "entry.json"
    entry.parent.mkdir(parents=True)
    cache.store_json(entry, {"page": "text"})
    parsed: list[bytes] = []

    def parse(body: bytes) -> dict:
        parsed.append(body)
        return json.loads(body)

    assert cache.read_remembered(entry, parse) == {"page": "text"}
    assert cache.read_remembered(entry, parse) == {"page": "text"}
    assert len(parsed) == (1 if between_builds else 2)
    assert str(entry.absolute()) in cache.used()


def test_an_entry_serve_stores_is_found_by_its_next_build_without_reading_the_file(tmp_path: Path, monkeypatch):
    read: list[Path] = []
    real = cachefile.Cache.read_checked
    monkeypatch.setattr(cachefile.Cache, "read_checked", lambda self, path: read.append(path) or real(self, path))
    served = cachefile.Cache(tmp_path / "cache")
    entry = served.folder("rendered") / "entry.json"
    served.store_json(entry, {"page": "# Title", "rows": [1, 2]}, json.loads)
    assert served.read_remembered(entry, json.loads) == {"page": "# Title", "rows": [1, 2]}
    assert read == []
    # A lone build keeps nothing for builds that do not follow: the entry is read from its file.
    alone = cachefile.Cache(tmp_path / "cache", between_builds=False)
    alone.store_json(entry, {"page": "# Title", "rows": [1, 2]}, json.loads)
    assert alone.read_remembered(entry, json.loads) == {"page": "# Title", "rows": [1, 2]}
    assert read == [entry]


@pytest.mark.parametrize("own", [
    {"a-first": "x"},                       # sorts before every common part
    {"m-middle": "x", "z-last": "y"},       # between them, and after them all
    {"code": "overridden", "page": "p"},    # one replaces a common part of the same name
    {},
])
def test_entries_named_from_shared_parts_get_the_name_of_all_their_parts_hashed_together(tmp_path: Path, own: dict[str, str]):
    def all_hashed_together(parts: dict[str, str]) -> Path:
        h = hashlib.sha256()
        for name, value in sorted(parts.items()):
            h.update(f"{name}\0{value}\0".encode())
        return tmp_path / f"{h.hexdigest()}.json"

    common = {"code": "c" * 64, "day": "2026-11-26", "site_url": "https://example.org/guide/", "libs": "mkdocs 1.6"}
    names = registry.EntryNames(tmp_path, common)
    for value in ("one", "two"):  # the second asks again of the hashes kept from the first
        mine = {name: f"{v}-{value}" for name, v in own.items()}
        assert names.path(mine) == all_hashed_together({**common, **mine})
    if own:
        assert names.path(dict.fromkeys(own, "one")) != names.path(dict.fromkeys(own, "two"))


def test_under_serve_an_entry_is_named_once_and_names_no_build_used_since_the_last_are_dropped(tmp_path: Path, monkeypatch):
    hashed: list[dict] = []
    digest = registry.EntryNames.digest

    def counted(self, own):
        hashed.append(own)
        return digest(self, own)

    monkeypatch.setattr(registry.EntryNames, "digest", counted)
    served = cachefile.Cache(tmp_path / "cache", between_builds=True)
    lone = cachefile.Cache(tmp_path / "cache", between_builds=False)
    a, b = {"scenario": "a"}, {"scenario": "b"}
    served.begin_build()
    first = served.names("rendered", {"site": "x"}).path(a)
    assert served.names("rendered", {"site": "x"}).path(a) == first  # named once
    assert len(hashed) == 1
    assert lone.names("rendered", {"site": "x"}).path(a) == first  # as a lone build names it
    assert served.names("rendered", {"site": "x"}).path(b) != first
    elsewhere = served.names("rendered", {"site": "y"}).path(a)
    assert elsewhere != first and len(hashed) == 4
    served.begin_build()  # the next save, whose pages are at x alone
    assert served.names("rendered", {"site": "x"}).path(a) == first and len(hashed) == 4
    served.begin_build()
    assert served.names("rendered", {"site": "x"}).path(a) == first and len(hashed) == 4
    assert served.names("rendered", {"site": "y"}).path(a) == elsewhere and len(hashed) == 5  # dropped, named again
    lone.begin_build()
    lone.names("rendered", {"site": "x"}).path(a)
    assert len(hashed) == 6  # a lone build keeps nothing for a next one
