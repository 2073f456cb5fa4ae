"""The appliance: config, the table loop, the event store, the web pages and the command line."""

#: The release: pyproject.toml reads it from here, `dicetable --version` prints it, and
#: CHANGELOG.md has a section for each.
__version__ = "0.3.21"
