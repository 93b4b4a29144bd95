"""What every layer may use: the refusal base, the languages, the limits, where files live,
the host names, log lines and metrics. Imports nothing else of the companion."""

# The one source of the version: the wheel's metadata, `companion --version`, `companion info`,
# `/healthz`, the page footer and the backups' manifests all read it (CHANGELOG.md says what
# each version changed).
__version__ = "0.2.0"
