"""The variant registry."""

from __future__ import annotations

from majiang.variant import Variant

__all__ = ["VARIANTS", "get_variant", "player_variants", "register"]

VARIANTS: dict[str, Variant] = {}
"""Every registered variant by id."""


def register(variant: Variant) -> Variant:
    """Add a variant to the registry (its id must be new)."""
    if variant.id in VARIANTS:
        raise ValueError(f"variant {variant.id!r} is already registered")
    VARIANTS[variant.id] = variant
    return variant


def get_variant(variant_id: str) -> Variant:
    """The variant with this id. Raises ``KeyError`` if there is none."""
    return VARIANTS[variant_id]


def player_variants() -> list[Variant]:
    """The variants clubs may play, in registration order (engine-test variants left out)."""
    return [variant for variant in VARIANTS.values() if variant.for_players]


def _load_builtin() -> None:
    # Imported here, not at the top, so that variant modules may import the registry.
    from majiang.variants.basic import BasicVariant  # noqa: PLC0415
    from majiang.variants.duyun import DuyunVariant  # noqa: PLC0415
    from majiang.variants.zigong import ZigongVariant  # noqa: PLC0415

    register(BasicVariant())
    register(DuyunVariant())
    register(ZigongVariant())


_load_builtin()
