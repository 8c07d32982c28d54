"""The API's schema generator: drf-spectacular's, describing an operation by its own
view's docstring only (not one inherited from a base view, which is written for the code)."""

from __future__ import annotations

import inspect

from drf_spectacular.openapi import AutoSchema as SpectacularAutoSchema


class AutoSchema(SpectacularAutoSchema):
    def get_description(self) -> str:  # type: ignore[override]  # spectacular's signature
        method = getattr(self.view, getattr(self.view, "action", self.method.lower()), None)
        own = self.view.__class__.__dict__.get("__doc__")
        for doc in (getattr(method, "__doc__", None), own):
            if doc:
                return inspect.cleandoc(doc)
        return ""
