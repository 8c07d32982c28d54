// The settlement in words: per-player subtotals by the lines' machine `kind`, and every
// line under the player it concerns ("李四 未叫牌，付 张三 幺鸡 1分"). Built from the
// settlement JSON alone, so the same view serves the hand just ended and 上局结算.

import { h, playerName } from "./render.js";
import { tileName } from "./tiles.js";

/** Subtotal columns: a label and the line kinds it sums (majiang.settlement.LineKind). */
export const KIND_GROUPS = [
  { key: "pattern", label: "牌型", kinds: ["pattern", "win"] },
  { key: "chicken", label: "鸡", kinds: ["chicken"] },
  { key: "dou", label: "豆", kinds: ["dou"] },
  { key: "kong", label: "杠/呼叫转移/退税", kinds: ["kong", "call_transfer", "tax_refund", "rob_transfer"] },
  { key: "baopai", label: "包牌", kinds: ["baopai"] },
  { key: "chajiao", label: "查叫", kinds: ["chajiao"] },
];

const GROUP_OF = Object.fromEntries(KIND_GROUPS.flatMap((g) => g.kinds.map((k) => [k, g.key])));

/** Which subtotal a line counts in (an unknown kind counts with the win). */
export function groupOf(line) {
  return GROUP_OF[line.kind] || "pattern";
}

/** The groups this variant's settlements use (都匀: 鸡 豆 包牌; 自贡: 杠), with 查叫. */
export function groupsFor(variant) {
  const skip = variant === "zigong" ? ["chicken", "dou", "baopai"] : variant === "duyun" ? ["kong"] : [];
  return KIND_GROUPS.filter((g) => !skip.includes(g.key));
}

function readyOf(st, seat) {
  const p = (st.players || []).find((x) => x && x.seat === seat) || (st.players || [])[seat] || {};
  return p.ready;
}

/** Net points per seat per group: {seat: {group: n}}, plus `total` per seat. */
export function subtotals(st, n) {
  const out = Array.from({ length: n }, () => ({ total: 0 }));
  for (const line of st.lines || []) {
    const g = groupOf(line);
    for (const [seat, sign] of [[line.payee, 1], [line.payer, -1]]) {
      if (!out[seat]) continue;
      out[seat][g] = (out[seat][g] || 0) + sign * line.points;
      out[seat].total += sign * line.points;
    }
  }
  return out;
}

/** Kinds a not-ready payer pays because of it (都匀 D18, D21; 查叫). */
const NOT_READY_KINDS = ["chicken", "dou", "chajiao"];

function paysForNotReady(st, line) {
  return NOT_READY_KINDS.includes(line.kind) && readyOf(st, line.payer) === false;
}

/** The seat a line concerns: the payer of a 包牌, or of what a not-ready seat pays; else
 *  the payee (the winner, the owner of the 鸡 or 豆). */
export function concernedSeat(st, line) {
  if (line.kind === "baopai" || paysForNotReady(st, line)) return line.payer;
  return line.payee;
}

/** A ruling reference such as "(D13, D20)" left out of what players read. */
export function withoutRulings(text) {
  return String(text || "").replace(/\s*[(（]\s*[DZ]\d+[^)）]*[)）]/g, "").trim();
}

function noteWords(note) {
  if (!note) return "";
  return withoutRulings(note).replace(/, 2\^\d+=\d+$/, "").replace(/\b([1-9][msp])\b/g, (c) => tileName(c));
}

/** A line's item as players say it: "牌型:平胡" → "平胡" (the hand page's words). */
export function categoryWords(line) {
  return String(line.category || "").replace(/^牌型[:：]/, "");
}

/** One line in words: who pays whom, what for, how much. */
export function lineWords(view, st, line) {
  const payer = playerName(view, line.payer);
  let why = "";
  if (line.kind === "baopai") why = " 包牌";
  else if (paysForNotReady(st, line)) why = view.observation && view.observation.variant === "zigong" ? " 未下叫" : " 未叫牌";
  const note = noteWords(line.note);
  return `${payer}${why ? `${why}，` : " "}付 ${playerName(view, line.payee)} ${categoryWords(line)} ${line.points}分${note ? `（${note}）` : ""}`;
}

function signed(n) {
  return `${n > 0 ? "+" : ""}${n}`;
}

/** The subtotal table: one row per player, one column per group, then the total. */
export function subtotalTable(view, st, variant, n) {
  const groups = groupsFor(variant);
  const sums = subtotals(st, n);
  const rows = [];
  for (let seat = 0; seat < n; seat++) {
    rows.push(h("tr", { dataset: { seat: String(seat) } },
      h("th", { scope: "row", text: playerName(view, seat) }),
      groups.map((g) => h("td", { class: "sub", dataset: { group: g.key, value: String(sums[seat][g.key] || 0) }, text: signed(sums[seat][g.key] || 0) })),
      h("td", { class: `sub-total ${sums[seat].total > 0 ? "plus" : sums[seat].total < 0 ? "minus" : ""}`, dataset: { value: String(sums[seat].total) }, text: signed(sums[seat].total) })));
  }
  return h("div", { class: "table-wrap" }, h("table", { class: "subtotals", id: "settlement-subtotals" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "玩家" }), groups.map((g) => h("th", { scope: "col", text: g.label })), h("th", { scope: "col", text: "合计" }))),
    h("tbody", {}, rows)));
}

/** Every line under the player it concerns; then what was counted but not paid, and why. */
export function linesByPlayer(view, st, n) {
  const voids = (st.summary && st.summary.void) || [];
  const sections = [];
  for (let seat = 0; seat < n; seat++) {
    const mine = (st.lines || []).filter((l) => concernedSeat(st, l) === seat);
    const unpaid = voids.filter((l) => l.payee === seat);
    if (!mine.length && !unpaid.length) continue;
    sections.push(h("section", { class: "player-lines", dataset: { seat: String(seat) } },
      h("h4", { text: playerName(view, seat) }),
      h("ol", { class: "lines" },
        mine.map((l) => h("li", { class: `kind-${l.kind}`, dataset: { payer: String(l.payer), payee: String(l.payee), points: String(l.points), kind: l.kind, category: l.category }, text: lineWords(view, st, l) })),
        unpaid.map((l) => h("li", { class: "void", dataset: { kind: l.kind, points: String(l.points) } },
          h("span", { class: "void-line", text: lineWords(view, st, l) }),
          h("span", { class: "void-reason", text: `不计：${withoutRulings(l.void)}` }))))));
  }
  const rulings = [...new Set([...(st.lines || []), ...voids].map((l) => l.ruling).filter(Boolean))];
  return h("div", { id: "settlement-lines", class: "grouped-lines" },
    sections.length ? sections : h("p", { text: "无输赢" }),
    rulings.length ? h("details", { class: "rulings" }, h("summary", { text: "规则出处" }), h("p", { text: rulings.join("、") })) : null);
}
