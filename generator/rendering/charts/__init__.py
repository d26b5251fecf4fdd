"""Charts and their images: Vega-Lite specs, Vega compiled at build time, static SVG and PNG, link cards."""
