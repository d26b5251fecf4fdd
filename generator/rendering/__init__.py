"""Writing the site: pages, charts, embeds, images and the calculator's data."""
