"""The plugin's incremental build: what MkDocs would make again, taken instead from what earlier
builds stored or, under `mkdocs serve`, left in the site folder. `build.IncrementalBuild` is the one
object; each page has one record (`build.PageRecord`). The plugin's `incremental: false` leaves it
out, and MkDocs builds every page itself."""
