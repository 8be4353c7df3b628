"""CSS core: tokens (tinycss2), typed values, colours and the readers that turn tokens
into values. Everything above it (filters, style properties, animations) parses with
these; it imports nothing of Lamina but ``errors``."""
