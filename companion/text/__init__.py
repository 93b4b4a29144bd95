"""Words and pictures for readers: Markdown made safe, its blocks, the checks on text from
outside, game terms and lists in the reader's language, the story's chapters, SVG, byte-bounded caches.

Below the store: nothing here reads or writes the database."""
