"""The kit every page shares: the start page, links in URLs, the stream pages' refusals and
render cache, live version polls, downloads, sessions, headers, rate limits and request logs."""
