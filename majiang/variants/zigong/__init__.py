"""自贡麻将 (variant id ``zigong``): the rulings Z1–Z21 of ``shared/rules/zigong.md``."""

from majiang.variants.zigong.variant import ZigongVariant

__all__ = ["ZigongVariant"]
