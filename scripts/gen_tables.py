"""Write majiang/data/suit_table.bin (the hand-analysis lookup table)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from majiang.tablegen import build_table, pack

TARGET = Path(__file__).resolve().parent.parent / "majiang" / "data" / "suit_table.bin"

if __name__ == "__main__":
    table = build_table()
    TARGET.write_bytes(pack(table))
    print(f"wrote {len(table)} entries to {TARGET}")
