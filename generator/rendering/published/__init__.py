"""Published text: Markdown for language models and scripts, data downloads, the methodology quoted, `guide diff`'s report."""
