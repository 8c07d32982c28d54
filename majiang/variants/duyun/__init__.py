"""都匀独山捉鸡 (``duyun``): the rulings in ``/shared/rules/duyun.md`` (D1–D23).

Modules: :mod:`.settings` (the room settings), :mod:`.patterns` (D6), :mod:`.chickens`
(D15–D19, D21.3), :mod:`.settle` (D10–D14, D20–D23) and :mod:`.variant` (the hooks).
"""

from majiang.variants.duyun.variant import DuyunVariant

__all__ = ["DuyunVariant"]
