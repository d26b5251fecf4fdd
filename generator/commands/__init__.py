"""The `guide` command line and what its subcommands do."""
