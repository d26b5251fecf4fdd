"""Pages: the Markdown of every generated page, from the templates in generator/templates/."""
