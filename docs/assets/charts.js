// The chart runtime, shared by the guide's pages, the calculator and the embed pages: loads Vega
// only when a chart first needs it (static SVG images paint first), and draws a compiled Vega
// spec in the light or the dark theme.
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

  function loadRuntime() {
    if (window.vegaEmbed) return Promise.resolve(window.vegaEmbed);
    if (!loading) {
      loading = new Promise((resolve, reject) => {
        const tag = document.createElement("script");
        tag.src = BUNDLE;
        tag.async = true;
        tag.onload = () => resolve(window.vegaEmbed);
        tag.onerror = () => { loading = null; reject(new Error("could not load " + BUNDLE)); };
        document.head.appendChild(tag);
      });
    }
    return loading;
  }

  // Draws a compiled Vega `spec` into `el`, replacing what it held. Returns an object to finalize().
  async function draw(el, spec, theme) {
    const embed = await loadRuntime();
    const result = await embed(el, spec, {
      mode: "vega", renderer: "svg", actions: false, config: THEMES[theme] || THEMES.light,
    });
    el.setAttribute("data-theme", theme);
    el.setAttribute("data-drawn", "true");
    return result;
  }

  window.GuideCharts = { loadRuntime, draw, THEMES };
})();
