"""Helpers shared by test suites: real server processes and WebSocket clients."""
