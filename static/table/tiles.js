// Tile graphics: each tile is an inline SVG built from its code ("5m", "1s", "9p").
// 万 = Chinese numeral over a red 万; 条 = green bamboo sticks (1s is a bird, 幺鸡);
// 筒 = circles. No Unicode mahjong glyphs: only shapes and CJK text.

const SVG_NS = "http://www.w3.org/2000/svg";
const NUMERALS = "一二三四五六七八九";
const SUIT_NAME = { m: "万", s: "条", p: "筒" };
export const SUIT_ORDER = { m: 0, s: 1, p: 2 };

/** The Chinese name of a tile: "五万", "幺鸡" for 1s. */
export function tileName(code) {
  if (code === "1s") return "幺鸡";
  return NUMERALS[Number(code[0]) - 1] + SUIT_NAME[code[1]];
}

/** Sort key: 万, 条, 筒, then rank ascending (the seeds' hand order). */
export function tileKey(code) {
  return SUIT_ORDER[code[1]] * 10 + Number(code[0]);
}

export function sortTiles(codes) {
  return [...codes].sort((a, b) => tileKey(a) - tileKey(b));
}

function el(name, attrs) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

const PIP_LAYOUT = {
  1: [[30, 40, 17]],
  2: [[30, 23, 11], [30, 57, 11]],
  3: [[17, 19, 9], [30, 40, 9], [43, 61, 9]],
  4: [[19, 24, 10], [41, 24, 10], [19, 56, 10], [41, 56, 10]],
  5: [[18, 21, 9], [42, 21, 9], [30, 40, 9], [18, 59, 9], [42, 59, 9]],
  6: [[19, 17, 8.5], [41, 17, 8.5], [19, 40, 8.5], [41, 40, 8.5], [19, 63, 8.5], [41, 63, 8.5]],
  7: [[15, 14, 7], [30, 22, 7], [45, 30, 7], [19, 50, 7.5], [41, 50, 7.5], [19, 67, 7.5],
    [41, 67, 7.5]],
  8: [[19, 14, 7.5], [41, 14, 7.5], [19, 31, 7.5], [41, 31, 7.5], [19, 48, 7.5], [41, 48, 7.5],
    [19, 65, 7.5], [41, 65, 7.5]],
  9: [[15, 17, 7.5], [30, 17, 7.5], [45, 17, 7.5], [15, 40, 7.5], [30, 40, 7.5],
    [45, 40, 7.5], [15, 63, 7.5], [30, 63, 7.5], [45, 63, 7.5]],
};

// Circle colours per rank, traditional-ish: blue, green, red.
const PIP_COLORS = {
  1: ["#c0392b"], 2: ["#1e6fb8", "#1e8449"], 3: ["#1e6fb8", "#c0392b", "#1e8449"],
  4: ["#1e6fb8", "#1e8449", "#1e8449", "#1e6fb8"],
  5: ["#1e6fb8", "#1e8449", "#c0392b", "#1e8449", "#1e6fb8"],
  6: ["#1e8449", "#1e8449", "#c0392b", "#c0392b", "#c0392b", "#c0392b"],
  7: ["#1e8449", "#1e8449", "#1e8449", "#c0392b", "#c0392b", "#c0392b", "#c0392b"],
  8: Array(8).fill("#1e6fb8"),
  9: ["#1e6fb8", "#1e6fb8", "#1e6fb8", "#c0392b", "#c0392b", "#c0392b", "#1e8449",
    "#1e8449", "#1e8449"],
};

function drawPips(svg, rank) {
  PIP_LAYOUT[rank].forEach(([x, y, r], i) => {
    const color = PIP_COLORS[rank][i];
    svg.append(el("circle", { cx: x, cy: y, r, fill: "none", stroke: color, "stroke-width": r > 12 ? 3 : 2 }));
    svg.append(el("circle", { cx: x, cy: y, r: r * 0.55, fill: color }));
    svg.append(el("circle", { cx: x, cy: y, r: r * 0.2, fill: "#fffaf0" }));
  });
}

// Bamboo stick centres [x, y] and stick height per rank; red sticks listed separately.
const STICK_LAYOUT = {
  2: { h: 24, at: [[30, 24], [30, 56]] },
  3: { h: 24, at: [[30, 24], [19, 56], [41, 56]] },
  4: { h: 24, at: [[19, 24], [41, 24], [19, 56], [41, 56]] },
  5: { h: 22, at: [[16, 22], [44, 22], [30, 40], [16, 58], [44, 58]], red: [2] },
  6: { h: 24, at: [[15, 24], [30, 24], [45, 24], [15, 56], [30, 56], [45, 56]] },
  7: { h: 18, at: [[30, 14], [15, 40], [30, 40], [45, 40], [15, 64], [30, 64], [45, 64]], red: [0] },
  8: { h: 24, at: [[12, 24], [24, 24], [36, 24], [48, 24], [12, 56], [24, 56], [36, 56], [48, 56]] },
  9: { h: 18, at: [[15, 16], [30, 16], [45, 16], [15, 40], [30, 40], [45, 40], [15, 64],
    [30, 64], [45, 64]], red: [1, 4, 7] },
};

function drawSticks(svg, rank) {
  const { h, at, red = [] } = STICK_LAYOUT[rank];
  at.forEach(([x, y], i) => {
    const color = red.includes(i) ? "#c0392b" : "#1e8449";
    const top = y - h / 2;
    svg.append(el("rect", { x: x - 3.5, y: top, width: 7, height: h, rx: 3, fill: color }));
    svg.append(el("rect", { x: x - 1, y: top + 2, width: 2, height: h - 4, rx: 1, fill: "#fffaf0", opacity: 0.55 }));
    for (const f of [0.33, 0.66]) {
      svg.append(el("line", { x1: x - 4, x2: x + 4, y1: top + h * f, y2: top + h * f, stroke: "#0b3d20", "stroke-width": 1.2 }));
    }
  });
}

// 幺鸡: a bird standing on a bamboo stalk, drawn distinctly from every other tile.
function drawBird(svg) {
  svg.append(el("path", { d: "M14 52 Q6 40 12 28 Q18 38 24 42 Z", fill: "#1e8449" })); // tail
  svg.append(el("path", { d: "M16 50 Q10 34 20 24 Q22 38 28 42 Z", fill: "#c0392b" }));
  svg.append(el("ellipse", { cx: 32, cy: 46, rx: 14, ry: 11, fill: "#1e8449" })); // body
  svg.append(el("path", { d: "M24 44 Q34 36 42 46 Q34 52 24 44 Z", fill: "#1e6fb8" })); // wing
  svg.append(el("circle", { cx: 44, cy: 30, r: 7, fill: "#1e8449" })); // head
  svg.append(el("path", { d: "M41 23 Q44 16 47 23 Z", fill: "#c0392b" })); // crest
  svg.append(el("path", { d: "M50 29 L57 31 L50 33 Z", fill: "#d68910" })); // beak
  svg.append(el("circle", { cx: 46, cy: 29, r: 1.6, fill: "#fffaf0" }));
  svg.append(el("path", { d: "M38 38 Q40 40 38 44", stroke: "#1e8449", "stroke-width": 6, fill: "none" })); // neck
  svg.append(el("line", { x1: 30, y1: 56, x2: 28, y2: 68, stroke: "#d68910", "stroke-width": 2 }));
  svg.append(el("line", { x1: 36, y1: 56, x2: 38, y2: 68, stroke: "#d68910", "stroke-width": 2 }));
  svg.append(el("rect", { x: 14, y: 68, width: 34, height: 4, rx: 2, fill: "#7e5109" }));
}

function drawCharacters(svg, rank) {
  const num = el("text", { x: 30, y: 33, "text-anchor": "middle", "font-size": 26, fill: "#1b2631", class: "tile-glyph" });
  num.textContent = NUMERALS[rank - 1];
  const wan = el("text", { x: 30, y: 68, "text-anchor": "middle", "font-size": 28, fill: "#c0392b", class: "tile-glyph" });
  wan.textContent = "万";
  svg.append(num, wan);
}

/** A face-up tile as an SVG element. `size` is a CSS class suffix (hand, river, meld, big). */
export function tileSvg(code) {
  const svg = el("svg", { viewBox: "0 0 60 80", class: "tile-face", "aria-hidden": "true" });
  svg.append(el("rect", { x: 1, y: 1, width: 58, height: 78, rx: 7, fill: "#fdf6e3", stroke: "#b9a77c", "stroke-width": 1.5 }));
  const rank = Number(code[0]);
  const suit = code[1];
  if (suit === "m") drawCharacters(svg, rank);
  else if (suit === "p") drawPips(svg, rank);
  else if (rank === 1) drawBird(svg);
  else drawSticks(svg, rank);
  return svg;
}

/** A face-up tile element with its Chinese name for screen readers and its code for tests. */
export function tileEl(code, cls = "") {
  const div = document.createElement("div");
  div.className = `tile ${cls}`.trim();
  div.dataset.tile = code;
  div.setAttribute("role", "img");
  div.setAttribute("aria-label", tileName(code));
  div.title = tileName(code);
  div.append(tileSvg(code));
  return div;
}

/** A face-down tile (an opponent's concealed tile): carries no tile information. */
export function backEl(cls = "") {
  const div = document.createElement("div");
  div.className = `tile back ${cls}`.trim();
  div.setAttribute("aria-hidden", "true");
  return div;
}
