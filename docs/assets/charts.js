// The chart runtime, shared by the guide's pages, the calculator and the embed pages: loads Vega
// only when a chart first needs it (static SVG images paint first), and draws a compiled Vega
// spec in the light or the dark theme, with tooltips.
(function () {
  "use strict";
  if (window.GuideCharts) return;

  const script = document.currentScript;
  const BUNDLE = new URL(script.getAttribute("data-runtime") || "vendor/vega.js", script.src).href;
  // Colours for the slate scheme: the Vega-Lite "dark" theme's, on a transparent background.
  const THEMES = {
    light: { background: null },
    dark: {
      background: null,
      title: { color: "#fff", subtitleColor: "#ddd" },
      style: { "guide-label": { fill: "#fff" }, "guide-title": { fill: "#fff" } },
      axis: { domainColor: "#fff", gridColor: "#666", tickColor: "#fff" },
      legend: { labelColor: "#fff", titleColor: "#fff" },
    },
  };
  let loading = null;
  const tooltips = {}; // theme -> vega-tooltip handler, made once

  // Resolves to window.vega once the runtime has loaded; the first call adds its <script>.
  function loadRuntime() {
    if (window.vega && window.vega.View) return Promise.resolve(window.vega);
    if (!loading) {
      loading = new Promise((resolve, reject) => {
        const tag = document.createElement("script");
        tag.src = BUNDLE;
        tag.async = true;
        tag.onload = () => resolve(window.vega);
        tag.onerror = () => { loading = null; reject(new Error("could not load " + BUNDLE)); };
        document.head.appendChild(tag);
      });
    }
    return loading;
  }

  function tooltipFor(vega, theme) {
    // The slim runtime carries vega-tooltip; a full Vega build without it falls back on Vega's own
    // handler (the browser's title tooltip).
    if (!vega.Tooltip) return null;
    if (!tooltips[theme]) tooltips[theme] = new vega.Tooltip({ theme: theme === "dark" ? "dark" : "light" }).call;
    return tooltips[theme];
  }

  // Vega draws a title on one line, however long; in a narrow column (a phone) it would run past
  // the chart's right edge. Its words go on as many lines as the column needs instead, measured in
  // Vega's own title fonts (13 px bold, subtitle 12 px).
  let measurer = null;
  function lines(texts, font, room) {
    measurer = measurer || document.createElement("canvas").getContext("2d");
    measurer.font = font;
    const out = [];
    for (const text of [].concat(texts)) {
      let line = "";
      for (const word of String(text).split(" ")) {
        const next = line ? line + " " + word : word;
        if (line && measurer.measureText(next).width > room) {
          out.push(line);
          line = word;
        } else {
          line = next;
        }
      }
      out.push(line);
    }
    return out;
  }

  // The build wraps a title and its source line for a static image of fixed width; drawn live they
  // are wrapped again for the column, so a line that does not end a sentence runs on into the next
  // rather than standing as a short line of its own.
  function paragraphs(texts) {
    const out = [];
    let run = "";
    for (const line of [].concat(texts)) {
      run = run ? run + " " + line : String(line);
      if (/[.!?]$/.test(run)) { out.push(run); run = ""; }
    }
    if (run) out.push(run);
    return out;
  }

  // Vega's line heights for those fonts (the font size and 2 px).
  const TITLE_LINE = 15, SUBTITLE_LINE = 14;

  function fitTitle(spec, width) {
    const title = spec.title;
    if (!title || typeof title !== "object" || !width) return spec;
    const room = width - 2 * (typeof spec.padding === "number" ? spec.padding : 5);
    const fitted = Object.assign({}, title, { text: lines(paragraphs(title.text), "bold 13px sans-serif", room) });
    if (title.subtitle) fitted.subtitle = lines(paragraphs(title.subtitle), "12px sans-serif", room);
    // The chart is fitted into its height, title included: the lines the column adds to the title
    // (a phone) or takes from it are added to or taken from the height, so the plot keeps the room
    // it was designed with at every width (on a phone its rows would otherwise run into each other).
    const added = TITLE_LINE * (fitted.text.length - [].concat(title.text).length) +
      (title.subtitle ? SUBTITLE_LINE * (fitted.subtitle.length - [].concat(title.subtitle).length) : 0);
    const out = Object.assign({}, spec, { title: fitted });
    if (typeof spec.height === "number") out.height = spec.height + added;
    return out;
  }

  // Text marks (the labels drawn on the plot) carry their light colour in the spec itself, where a
  // theme cannot reach; on the dark background they take the colour the dark images give them.
  const DARK_NOTE = "#bbb";
  function darkNotes(node) {
    if (Array.isArray(node)) return node.map(darkNotes);
    if (!node || typeof node !== "object") return node;
    const out = {};
    for (const [key, value] of Object.entries(node)) out[key] = darkNotes(value);
    if (node.type === "text" && out.encode && out.encode.update && out.encode.update.fill) {
      out.encode = Object.assign({}, out.encode, { update: Object.assign({}, out.encode.update, { fill: { value: DARK_NOTE } }) });
    }
    return out;
  }

  // How a spec lays out at a given total width, run without drawing: the plot's width and height, and
  // whether everything (titles, axes, legends) falls inside the width. Only a spec whose width is
  // its container's (autosize "fit", as the build compiles every chart) is laid out this way.
  async function layout(vega, spec, config, width) {
    const signals = spec.signals.map((s) => (s.name === "width" ? { name: "width", value: width } : s));
    const view = new vega.View(vega.parse(Object.assign({}, spec, { signals }), config), { renderer: "none" });
    await view.runAsync();
    const bounds = view.scenegraph().root.bounds;
    const left = view.origin()[0];
    const out = { width: view.width(), height: view.height(), fits: left + bounds.x1 >= -0.5 && left + bounds.x2 <= width + 0.5 };
    view.finalize();
    return out;
  }

  const fitsContainer = (spec) => spec.autosize && spec.autosize.type === "fit" && typeof spec.height === "number" &&
    Array.isArray(spec.signals) && spec.signals.some((s) => s.name === "width" && /containerSize/.test(s.init || ""));
  // The width the charts are designed at (the static images'): where a chart lays out as designed.
  const DESIGNED = 640;
  // A bottom or top axis title is centred under the plot, in Vega's axis title font.
  const AXIS_TITLE_FONT = "bold 11px sans-serif";
  const across = (axis) => axis.orient === "bottom" || axis.orient === "top";

  // A column too narrow for the chart as designed (a phone) gets the layout the narrow static images
  // have (images.narrow_spec): legends under the plot, and axis titles on as many lines as the plot's
  // width needs, so nothing is cut at the column's edges and no text is drawn smaller to fit. The
  // plot keeps the height it is designed with; the chart grows downwards by what moved under it.
  // What a column's layout needs is kept per chart element, for the calculator's redraws.
  const layouts = new WeakMap();
  async function fitColumn(vega, el, spec, config) {
    const width = el.clientWidth;
    if (!width || !fitsContainer(spec)) return fitTitle(spec, width);
    const wide = fitTitle(spec, width);
    const key = width + "|" + JSON.stringify(config) + "|" + JSON.stringify(spec.axes.map((a) => a.title || ""));
    let known = layouts.get(el);
    if (!known || known.key !== key) {
      const here = await layout(vega, wide, config, width);
      known = { key, narrow: !here.fits || here.width < width / 2 };
      if (known.narrow) {
        known.plotHeight = (await layout(vega, spec, config, DESIGNED)).height;
        known.plotWidth = (await layout(vega, narrowSpec(spec, width, known.plotHeight, null), config, width)).width;
        // A legend in two columns wider than the column goes in one.
        known.columns = (await layout(vega, narrowSpec(spec, width, known.plotHeight, known.plotWidth), config, width)).fits ? 2 : 1;
      }
      layouts.set(el, known);
    }
    return known.narrow ? narrowSpec(spec, width, known.plotHeight, known.plotWidth, known.columns) : wide;
  }

  // plotWidth null: the bottom and top axes without their titles, to measure the plot's width.
  function narrowSpec(spec, width, plotHeight, plotWidth, columns = 2) {
    const room = width - 2 * (typeof spec.padding === "number" ? spec.padding : 5);
    const title = spec.title && typeof spec.title === "object" ? Object.assign({}, spec.title, {
      text: lines(paragraphs(spec.title.text), "bold 13px sans-serif", room),
      subtitle: spec.title.subtitle ? lines(paragraphs(spec.title.subtitle), "12px sans-serif", room) : spec.title.subtitle,
    }) : spec.title;
    const axes = (spec.axes || []).map((a) => {
      if (!a.title || !across(a)) return a;
      return Object.assign({}, a, { title: plotWidth === null ? "" : lines(paragraphs(a.title), AXIS_TITLE_FONT, plotWidth) });
    });
    const legends = (spec.legends || []).map((l) => Object.assign({}, l, { orient: "bottom", direction: "horizontal", columns }));
    const marks = (spec.marks || []).map(turnLabel);
    // Several legends under the plot go one above the other, not side by side past the edge.
    const config = Object.assign({}, spec.config);
    config.legend = Object.assign({}, config.legend, { layout: { bottom: { anchor: "start", direction: "vertical", margin: 6 } } });
    return Object.assign({}, spec, { autosize: { type: "fit-x", contains: "padding" }, height: plotHeight, title, axes, legends, marks, config });
  }

  // A label drawn on the plot at a point (a break-even, the plan's end) reads away from it, to the
  // side the designed width left room on; in a narrow plot that side may have none. It then reads
  // towards the wider side, and is cut short there rather than at the chart's edge.
  function turnLabel(mark) {
    const u = mark.type === "text" && mark.encode && mark.encode.update;
    const x = u && u.x;
    if (!x || !x.scale || !x.field || !u.align || !("value" in u.align)) return mark;
    const at = `scale(${JSON.stringify(x.scale)}, datum[${JSON.stringify(x.field)}])`;
    const left = `${at} < width / 2`;
    const update = Object.assign({}, u, {
      align: { signal: `${left} ? 'left' : 'right'` },
      dx: { signal: `${left} ? 4 : -4` },
      limit: { signal: `max(${at}, width - ${at}) - 4` },
    });
    return Object.assign({}, mark, { encode: Object.assign({}, mark.encode, { update }) });
  }

  // Draws a compiled Vega `spec` into `el`, replacing what it held. Returns { view, finalize() }.
  async function draw(el, spec, theme) {
    const vega = await loadRuntime();
    theme = THEMES[theme] ? theme : "light";
    spec = await fitColumn(vega, el, theme === "dark" ? Object.assign({}, spec, { marks: darkNotes(spec.marks) }) : spec, THEMES[theme]);
    const view = new vega.View(vega.parse(spec, THEMES[theme]), { renderer: "svg", hover: true });
    const tooltip = tooltipFor(vega, theme);
    if (tooltip) view.tooltip(tooltip);
    el.replaceChildren();
    // Vega names its container "Vega visualization"; the page's own role and label say what the chart shows.
    const role = el.getAttribute("role"), label = el.getAttribute("aria-label");
    await view.initialize(el).runAsync();
    for (const [name, value] of [["role", role], ["aria-label", label]]) {
      if (value !== null) el.setAttribute(name, value);
    }
    el.removeAttribute("aria-roledescription");
    el.setAttribute("data-theme", theme);
    el.setAttribute("data-drawn", "true");
    return {
      view,
      finalize() {
        view.finalize();
        if (tooltip) tooltip(null, null, null, null); // hide a tooltip the old view left showing
      },
    };
  }

  // Calls `callback` once, when `el` comes within a screen of the viewport (or at once where the
  // browser cannot tell). Returns a function that cancels the wait.
  function whenNear(el, callback) {
    if (!("IntersectionObserver" in window)) {
      callback();
      return () => {};
    }
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        observer.disconnect();
        callback();
      }
    }, { rootMargin: "50% 0px" });
    observer.observe(el);
    return () => observer.disconnect();
  }

  window.GuideCharts = { loadRuntime, draw, whenNear, THEMES };
})();
