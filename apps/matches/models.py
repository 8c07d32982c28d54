"""Database models of the matches app; none yet."""
