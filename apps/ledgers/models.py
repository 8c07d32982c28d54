"""Database models of the ledgers app; none yet."""
