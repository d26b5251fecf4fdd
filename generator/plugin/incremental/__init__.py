"""The plugin's incremental layer: what MkDocs would make again, taken instead from what earlier
builds stored or, under `mkdocs serve`, left in the site folder. The plugin calls it through one
interface (`layer.Layer`): `reuse.Reuse` when the plugin's `incremental` option is on,
`layer.Off`, which does nothing of its own, when it is off, and MkDocs then builds every page itself."""
