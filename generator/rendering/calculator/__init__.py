"""The calculator's data: the catalog, the engine's constants, the words and the field table its page bakes in."""
