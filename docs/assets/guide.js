// Charts and sortable tables for the guide. Runs on every page Material's instant navigation
// swaps in (document$), and re-draws charts when the reader switches the colour scheme.
(function () {
  "use strict";

  // Charts paint as static SVG images (light and dark, switched by CSS). The first time a reader
  // points at, focuses or touches one, the Vega runtime loads and the live chart, with tooltips,
  // takes its place. Nothing the first paint needs waits for the runtime.
  const views = new Map(); // chart element -> live Vega view, so old views can be finalized
  const waits = new Map(); // chart element -> cancels its wait to come near the screen

  function scheme() {
    return document.body.getAttribute("data-md-color-scheme") === "slate" ? "dark" : "light";
  }

  // A chart's compiled spec: in the page (a <template>), or for the embed gallery, whose charts are
  // drawn live only on narrow screens, in the chart's embed folder (data-spec), fetched once.
  const fetched = new Map(); // spec URL -> promise of the parsed spec
  async function specFor(el) {
    const id = el.getAttribute("data-chart");
    const node = Array.from(document.querySelectorAll("template.guide-chart__spec"))
      .find((s) => s.getAttribute("data-chart") === id);
    if (node) return JSON.parse(node.content.textContent);
    const url = el.getAttribute("data-spec");
    if (!url) return null;
    if (!fetched.has(url)) {
      fetched.set(url, fetch(url).then((r) => {
        if (!r.ok) throw new Error(`could not load ${url}: ${r.status}`);
        return r.json();
      }).catch((err) => { fetched.delete(url); throw err; }));
    }
    return fetched.get(url);
  }

  async function upgrade(el) {
    if (!window.GuideCharts) return;
    let spec;
    try {
      spec = await specFor(el);
    } catch (err) {
      el.setAttribute("data-error", String(err));
      throw err;
    }
    if (!spec) return;
    const theme = scheme();
    try {
      await window.GuideCharts.loadRuntime();
      if (views.has(el)) views.get(el).finalize();
      el.replaceChildren();
      views.set(el, await window.GuideCharts.draw(el, spec, theme));
      el.setAttribute("data-live", "true");
    } catch (err) {
      el.setAttribute("data-error", String(err));
      throw err;
    }
  }

  // An image's smallest text is 10 px: narrower than 0.9 of its width (the wide image's, or its
  // <picture>'s narrow one on a phone), that text is under 9 px, and the live chart replaces it.
  function legibleWidth(el) {
    const s = el.querySelector("picture source");
    return 0.9 * (s && matchMedia(s.media).matches ? s : el.querySelector("img")).getAttribute("width");
  }

  function prepare(el) {
    if (el.getAttribute("data-ready")) return;
    el.setAttribute("data-ready", "true");
    el.setAttribute("data-theme", scheme());
    const once = () => {
      ["pointerenter", "focusin", "touchstart"].forEach((t) => el.removeEventListener(t, once));
      if (waits.has(el)) waits.get(el)();
      waits.delete(el);
      upgrade(el);
    };
    ["pointerenter", "focusin", "touchstart"].forEach((t) => el.addEventListener(t, once, { passive: true }));
    // Measured when the chart nears the screen, not now: while instant navigation swaps the page
    // in, a chart may not be laid out yet and read as 0 px wide. A chart without a static image (a
    // build with the guide plugin's images option off) has only its live form, drawn there too.
    const imageless = !el.querySelector("img.guide-chart__static");
    if (window.GuideCharts) {
      waits.set(el, window.GuideCharts.whenNear(el, () => {
        waits.delete(el);
        if (imageless || (el.clientWidth > 0 && el.clientWidth < legibleWidth(el))) once();
      }));
    }
  }

  function retheme() {
    // Static images follow the scheme through CSS; live views are drawn again in the new theme.
    document.querySelectorAll(".guide-chart__view").forEach((el) => {
      if (views.has(el)) {
        el.removeAttribute("data-drawn");
        upgrade(el);
      } else {
        el.setAttribute("data-theme", scheme());
      }
    });
  }

  function drawAll() {
    // Views and waits whose element left the page with the last navigation are released.
    for (const [el, view] of views) {
      if (!document.body.contains(el)) {
        view.finalize();
        views.delete(el);
      }
    }
    for (const [el, cancel] of waits) {
      if (!document.body.contains(el)) {
        cancel();
        waits.delete(el);
      }
    }
    document.querySelectorAll(".guide-chart__view").forEach(prepare);
  }

  function sortable(table) {
    if (table.getAttribute("data-sort-ready")) return;
    table.setAttribute("data-sort-ready", "true");
    const heads = table.querySelectorAll("thead th");
    heads.forEach((th, index) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "guide-sort";
      button.textContent = th.textContent;
      th.textContent = "";
      th.appendChild(button);
      th.setAttribute("aria-sort", "none");
      button.addEventListener("click", () => {
        const ascending = th.getAttribute("aria-sort") !== "ascending";
        heads.forEach((h) => h.setAttribute("aria-sort", "none"));
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        const body = table.tBodies[0];
        const rows = Array.from(body.rows);
        const key = (row) => {
          const cell = row.cells[index];
          const raw = cell.getAttribute("data-sort");
          if (raw !== null && raw !== "" && !isNaN(Number(raw))) return Number(raw);
          return cell.textContent.trim().toLowerCase();
        };
        rows.sort((a, b) => {
          const x = key(a), y = key(b);
          const order = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
          return ascending ? order : -order;
        });
        rows.forEach((row) => body.appendChild(row));
      });
    });
  }

  // A copy button on each embed snippet.
  function copyButtons() {
    document.querySelectorAll("details.guide-embed pre").forEach((pre) => {
      if (pre.querySelector("button.guide-copy")) return;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "guide-copy md-button";
      button.textContent = "Copy";
      button.addEventListener("click", async () => {
        const text = pre.querySelector("code").textContent;
        try {
          await navigator.clipboard.writeText(text);
          button.textContent = "Copied";
        } catch (err) {
          // Without clipboard access, select the snippet so the reader can copy it by hand.
          const range = document.createRange();
          range.selectNodeContents(pre.querySelector("code"));
          const sel = window.getSelection();
          sel.removeAllRanges();
          sel.addRange(range);
          button.textContent = "Selected: press Ctrl+C";
        }
      });
      pre.appendChild(button);
    });
  }

  // A table wider than its box says so: data-scrolls on Material's scroll box puts a line above it,
  // data-hidden a fade on the side that is out of view (guide.css). Kept true as the box is scrolled
  // or resized (a phone turned, a font loaded).
  // Material's box or, as Material styles it, the table inside: whichever of them scrolls.
  function scroller(box) {
    const table = box.querySelector(":scope > .md-typeset__table > table");
    return table && table.scrollWidth - table.clientWidth > 1 ? table : box;
  }

  function scrollSign(box) {
    const el = scroller(box);
    const over = el.scrollWidth - el.clientWidth > 1;
    const left = over && el.scrollLeft > 1;
    const right = over && el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
    const hidden = left && right ? "both" : left ? "left" : right ? "right" : null;
    if (over !== box.hasAttribute("data-scrolls")) box.toggleAttribute("data-scrolls", over);
    if (box.getAttribute("data-hidden") !== hidden) {
      if (hidden) box.setAttribute("data-hidden", hidden);
      else box.removeAttribute("data-hidden");
    }
  }
  const resized = "ResizeObserver" in window ? new ResizeObserver((entries) => entries.forEach((e) => scrollSign(e.target))) : null;

  function scrollSigns() {
    if (resized) resized.disconnect();
    document.querySelectorAll(".md-typeset__scrollwrap").forEach((box) => {
      if (!box.getAttribute("data-sign-ready")) {
        box.setAttribute("data-sign-ready", "true");
        // Scroll events do not bubble: the box and its table each report their own.
        box.addEventListener("scroll", () => scrollSign(box), { passive: true, capture: true });
      }
      scrollSign(box);
      if (resized) resized.observe(box);
    });
  }

  new MutationObserver(retheme).observe(document.body, {
    attributes: true,
    attributeFilter: ["data-md-color-scheme"],
  });

  // Material's search dialog and page-load progress bar carry roles without names; screen readers
  // (and axe) need one.
  function nameLandmarks() {
    const search = document.querySelector(".md-search[role=dialog]");
    if (search && !search.hasAttribute("aria-label")) search.setAttribute("aria-label", "Search");
    const progress = document.querySelector(".md-progress[role=progressbar]");
    if (progress && !progress.hasAttribute("aria-label")) progress.setAttribute("aria-label", "Loading the page");
  }

  // A block that scrolls sideways (a wide table, a long formula) takes keyboard focus and has a
  // name, so a keyboard user can scroll it too; one that fits the screen is no extra tab stop.
  // Material wraps tables in .md-typeset__scrollwrap; formulas are .guide-math.
  const scrollers = new ResizeObserver((entries) => entries.forEach((e) => keyboardScroll(e.target)));

  // Named by what it is and the headings it sits under, numbered when a section holds several, so
  // each region's name is its own.
  const HEADINGS = "h1, h2, h3, h4";
  function scrollName(el) {
    const kind = el.classList.contains("guide-math") ? "Formula" : "Table";
    const all = Array.from(document.querySelectorAll(HEADINGS + ", .md-typeset__scrollwrap, .guide-math"));
    let heading = null;
    let nth = 1;
    for (const node of all.slice(0, all.indexOf(el)).reverse()) {
      if (node.matches(HEADINGS)) { heading = node; break; }
      if (node.classList.contains("guide-math") === (kind === "Formula")) nth += 1;
    }
    // With the heading above it when there is one (two workloads each have "What the engine computes").
    const text = (h) => h.textContent.replace(/¶$/, "").trim();
    const headings = Array.from(document.querySelectorAll(HEADINGS));
    const parent = heading && headings.slice(0, headings.indexOf(heading)).reverse()
      .find((h) => Number(h.tagName[1]) < Number(heading.tagName[1]) && h.tagName !== "H1");
    const under = heading ? ` under “${parent ? text(parent) + "”, “" : ""}${text(heading)}”` : "";
    return `${kind}${nth > 1 ? " " + nth : ""}${under}, scrolls sideways`;
  }

  // A formula comes focusable from the build (mathml.py), for a reader whose scripts have not run.
  function keyboardScroll(el) {
    const scrolls = el.scrollWidth > el.clientWidth + 1;
    if (scrolls && !el.hasAttribute("data-guide-scroll")) {
      el.setAttribute("tabindex", "0");
      el.setAttribute("role", "region");
      el.setAttribute("aria-label", scrollName(el));
      el.setAttribute("data-guide-scroll", "");
    } else if (!scrolls && (el.hasAttribute("data-guide-scroll") || el.classList.contains("guide-math"))) {
      ["tabindex", "role", "aria-label", "data-guide-scroll"].forEach((a) => el.removeAttribute(a));
    }
  }

  function scrollables() {
    scrollers.disconnect();
    document.querySelectorAll(".md-typeset__scrollwrap, .guide-math").forEach((el) => {
      keyboardScroll(el);
      scrollers.observe(el);
    });
  }

  // Material writes the section in view into the address 250 ms after the reader last scrolled
  // (navigation.tracking); a page swapped in within those 250 ms gets the old page's section there,
  // as it is swapped in or in the task after. An anchor the page has no element for leaves the address.
  function dropForeignAnchor() {
    let id;
    try {
      id = decodeURIComponent(location.hash.slice(1));
    } catch {
      return; // not an anchor this site writes
    }
    if (id && !document.getElementById(id)) history.replaceState(history.state, "", location.pathname + location.search);
  }

  const start = () => {
    dropForeignAnchor();
    setTimeout(dropForeignAnchor);
    nameLandmarks();
    scrollables();
    drawAll();
    copyButtons();
    document.querySelectorAll("table[data-sortable]").forEach(sortable);
    // Material wraps tables in their scroll boxes in its own subscription, which may run after this one.
    requestAnimationFrame(scrollSigns);
  };
  if (window.document$) window.document$.subscribe(start);
  else document.addEventListener("DOMContentLoaded", start);
})();
