"""A server-made SVG line chart of members' cumulative scores over time."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils import timezone
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

COLORS = ("#1f5f3f", "#b3261e", "#1d4f91", "#8a5a00", "#6a1b9a", "#00838f", "#5d4037", "#455a64")
WIDTH, HEIGHT = 720, 320
LEFT, RIGHT, TOP, BOTTOM = 64, 160, 16, 40


def cumulative_chart_svg(series: list[dict[str, Any]]) -> SafeString:
    """An ``<svg>``: one polyline per member (x = order of results, y = running amount).

    ``series`` is :func:`apps.ledgers.selectors.cumulative_series`'s output.
    """
    times = sorted({when for s in series for when, _ in s["points"]})
    if not times:
        return mark_safe('<p class="muted">暂无数据</p>')
    values: list[float] = [0] + [v for s in series for _, v in s["points"]]
    low, high = min(values), max(values)
    if low == high:
        low, high = low - 1, high + 1
    index = {when: i + 1 for i, when in enumerate(times)}
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + plot_w * i / len(times)

    def y(v: float) -> float:
        return TOP + plot_h * (high - v) / (high - low)

    parts = [
        f'<svg class="ledger-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
        f'aria-label="成员累计得分走势" xmlns="http://www.w3.org/2000/svg">',
        f'<line x1="{LEFT}" y1="{y(0):.1f}" x2="{LEFT + plot_w}" y2="{y(0):.1f}" '
        'stroke="#999" stroke-dasharray="4 3"/>',
        f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + plot_h}" stroke="#666"/>',
        f'<text x="{LEFT - 6}" y="{y(high) + 4:.1f}" text-anchor="end" font-size="16">'
        f"{high}</text>",
        f'<text x="{LEFT - 6}" y="{y(low) + 4:.1f}" text-anchor="end" font-size="16">{low}</text>',
        f'<text x="{LEFT - 6}" y="{y(0) + 4:.1f}" text-anchor="end" font-size="16">0</text>',
        f'<text x="{LEFT}" y="{HEIGHT - 10}" font-size="16">{_day(times[0])}</text>',
        f'<text x="{LEFT + plot_w}" y="{HEIGHT - 10}" text-anchor="end" font-size="16">'
        f'{_day(times[-1])}</text>',
    ]
    for n, s in enumerate(series):
        color = COLORS[n % len(COLORS)]
        coords = [(x(0), y(0))] + [(x(index[when]), y(v)) for when, v in s["points"]]
        path = " ".join(f"{a:.1f},{b:.1f}" for a, b in coords)
        name, last = escape(s["name"]), s["points"][-1][1] if s["points"] else 0
        parts.append(
            f'<polyline data-member="{name}" fill="none" stroke="{color}" stroke-width="3" '
            f'points="{path}"><title>{name}: {last}</title></polyline>'
        )
        ly = TOP + 16 + 22 * n
        parts.append(
            f'<rect x="{WIDTH - RIGHT + 10}" y="{ly - 9}" width="12" height="12" fill="{color}"/>'
            f'<text x="{WIDTH - RIGHT + 24}" y="{ly}" font-size="16">{name} {last}</text>'
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))


def _day(when: datetime) -> str:
    return timezone.localtime(when).strftime("%m-%d %H:%M")
