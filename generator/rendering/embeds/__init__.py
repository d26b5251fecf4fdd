"""Embeds: each chart's embed/<id>/ folder, and what a link to a page or a chart unfurls to."""
