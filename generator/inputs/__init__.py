"""Reading input: YAML with positions, validation into located problems, data/ and scenarios/ loading."""
