// 战绩回放: steps through the server-computed frames of a settled hand, forward and back,
// ending on the settlement (the seed check is fairness.js).
// Tiles are drawn with the live table's renderer (static/table/tiles.js).

import { linesByPlayer } from "../table/settlement.js";
import { tileEl, tileName } from "../table/tiles.js";

const data = JSON.parse(document.getElementById("replay-data").textContent);
const names = Object.fromEntries(data.players.map((p) => [p.seat, p.name]));
const MELDS = { pung: "碰", exposed_kong: "明杠", concealed_kong: "暗杠", added_kong: "补杠" };
const last = data.frames.length - 1;
let step = 0;

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children.flat()) if (c) node.append(c);
  return node;
}

function meldEl(meld) {
  const n = meld.kind === "pung" ? 3 : 4;
  return h("span", { class: "meld", title: MELDS[meld.kind] || meld.kind },
    Array.from({ length: n }, () => tileEl(meld.tile)));
}

function seatEl(seat, state) {
  const flags = [];
  if (seat.seat === data.hand.dealer) flags.push("庄");
  if (seat.declared) flags.push(data.variant === "duyun" ? "报听" : "报叫");
  if (seat.ticks) flags.push(`报杠 ${seat.ticks.map(tileName).join(" ") || "（不杠）"}`);
  if (seat.won) flags.push("胡");
  return h("div", {
    class: `replay-seat${state.turn === seat.seat ? " turn" : ""}`, "data-seat": String(seat.seat),
  },
  h("div", { class: "row" }, h("strong", { text: names[seat.seat] || `${seat.seat + 1}号位` }),
    flags.map((f) => h("span", { class: "badge", text: f }))),
  h("div", { class: "tiles hand" }, seat.hand.map((t) => tileEl(t)),
    seat.drawn ? tileEl(seat.drawn, "drawn") : null),
  h("div", { class: "tiles melds" }, seat.melds.map(meldEl)),
  h("div", { class: "tiles river" }, seat.river.map((r) =>
    tileEl(r.tile, r.claimed_by !== null && r.claimed_by !== undefined ? "claimed" : ""))));
}

function settlementEl() {
  const st = data.settlement;
  const box = document.getElementById("settlement");
  box.replaceChildren(h("h3", { text: "结算" }));
  if (data.fanji) {
    box.append(h("p", { class: "fanji" }, "翻鸡：", tileEl(data.fanji), ` ${tileName(data.fanji)}`));
  }
  const luobo = (st.summary || {}).luobo || [];
  if (luobo.length) box.append(h("p", { class: "luobo" }, "萝卜：", luobo.map((t) => tileEl(t))));
  // The lines in the live table's words, under the player each concerns.
  const view = { players: data.players, observation: { variant: data.variant } };
  box.append(linesByPlayer(view, st, data.players.length));
  box.append(h("p", { class: "totals" }, (st.totals || []).map((t, s) =>
    h("span", { class: "badge", "data-seat": String(s), text: `${names[s]} ${t > 0 ? "+" : ""}${t}` }))));
  return box;
}

function show(n) {
  step = Math.max(0, Math.min(last, n));
  const frame = data.frames[step];
  const state = frame.state;
  document.getElementById("seats").replaceChildren(...state.seats.map((s) => seatEl(s, state)));
  document.getElementById("step-label").textContent = `${step} / ${last} · 余牌 ${state.wall_remaining}`;
  document.getElementById("action-text").textContent = frame.text;
  document.getElementById("step-range").value = String(step);
  const box = settlementEl();
  box.hidden = step !== last;
}

document.getElementById("step-range").max = String(last);
document.getElementById("step-range").addEventListener("input", (e) => show(Number(e.target.value)));
const moves = { first: () => 0, prev: () => step - 1, next: () => step + 1, last: () => last };
document.querySelectorAll("[data-step]").forEach((b) =>
  b.addEventListener("click", () => show(moves[b.dataset.step]())));
document.addEventListener("keydown", (e) => {
  if (e.key === "ArrowRight") show(step + 1);
  if (e.key === "ArrowLeft") show(step - 1);
});
show(0);
document.getElementById("replay").dataset.ready = "true";
