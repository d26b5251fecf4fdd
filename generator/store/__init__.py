"""The build cache on disk: what was validated, compiled, converted and themed before."""
