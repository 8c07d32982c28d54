"""The table page: the browser client that renders the live game (issue 8)."""
