"""What every layer may use: the refusal base, the languages, the limits, where files live,
the host names, log lines and metrics. Imports nothing else of the companion."""
