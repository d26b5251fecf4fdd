"""The model: typed scenarios and catalog, the decision engine, results and how they read. Pure: no files, no MkDocs."""
