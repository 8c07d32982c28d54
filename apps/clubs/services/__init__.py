"""Writes of the clubs app, one module per entity (HackSoft style).

Every service takes keyword-only arguments, runs inside ``transaction.atomic``, checks the
actor's role itself and raises the typed errors of :mod:`apps.clubs.errors`.
"""
