// 战绩回放, the board: a step's state drawn from one seat's point of view (that seat at
// the bottom, as at the live table; the others open, since the hand is over, unless 明牌
// is off), and a step's moves in words with tile pictures. Built from the server's frames
// (apps/ledgers/replay.py) alone; tiles come from the live table's renderer.

import { h } from "../table/render.js";
import { linesByPlayer } from "../table/settlement.js";
import { backEl, sortTiles, tileEl, tileName } from "../table/tiles.js";

const POSITIONS = { 2: ["bottom", "top"], 3: ["bottom", "right", "left"], 4: ["bottom", "right", "top", "left"] };
const RELATION = { bottom: "", right: "下家", top: "对家", left: "上家" };
const MELDS = { pung: "碰", exposed_kong: "明杠", concealed_kong: "暗杠", added_kong: "补杠" };
const WIN_SOURCE = { self_draw: "自摸", on_discard: "胡", robbing_kong: "抢杠胡" };

/** The steps a player steps through: a frame, with the passes after it joined to it. */
export function stepsOf(frames) {
  const steps = [];
  frames.forEach((frame, i) => {
    if (frame.merged && steps.length) steps[steps.length - 1].last = i;
    else steps.push({ first: i, last: i });
  });
  return steps.map(({ first, last }) => {
    const moves = frames.slice(first, last + 1).flatMap((f) => f.moves);
    return { first, last, state: frames[last].state, moves, main: moves[0] };
  });
}

export function positionOf(seat, viewer, n) {
  return POSITIONS[n][(seat - viewer + n) % n];
}

function nameOf(data, seat) {
  const p = data.players.find((x) => x.seat === seat);
  return (p && p.name) || `${seat + 1}号位`;
}

function windOf(data, seat) {
  const p = data.players.find((x) => x.seat === seat);
  return (p && p.wind) || String(seat + 1);
}

function meldEl(meld, cls) {
  const n = meld.kind === "pung" ? 3 : 4;
  const tiles = [];
  for (let i = 0; i < n; i++) {
    // A concealed kong lies with its two end tiles face down, as at a real table.
    if (meld.kind === "concealed_kong" && (i === 0 || i === 3)) tiles.push(backEl(cls));
    else tiles.push(tileEl(meld.tile, cls));
  }
  return h("span", { class: `meld meld-${meld.kind}`, title: MELDS[meld.kind], "aria-label": `${MELDS[meld.kind]} ${tileName(meld.tile)}` }, tiles);
}

function badges(data, seat) {
  const out = [];
  if (seat.seat === data.hand.dealer) out.push(h("span", { class: "badge dealer", text: "庄" }));
  if (seat.declared) out.push(h("span", { class: "badge declared", text: data.variant === "duyun" ? "报听" : "报叫" }));
  if (seat.ticks && seat.ticks.length) out.push(h("span", { class: "badge baogang", text: `报杠 ${seat.ticks.map(tileName).join(" ")}` }));
  if (seat.won) out.push(h("span", { class: "badge won", text: seat.win ? WIN_SOURCE[seat.win.source] || "胡" : "胡" }));
  return out;
}

/** One seat's panel: who, the concealed tiles (the drawn or winning tile set apart), the
 *  melds and the river. `open`: the concealed tiles face up. */
function seatEl(data, state, seat, pos, { open, lastDiscard, actor }) {
  const hand = [...seat.hand];
  let winTile = null;
  if (seat.won && seat.win) {
    const at = hand.lastIndexOf(seat.win.tile);
    if (at >= 0) hand.splice(at, 1);
    winTile = seat.win.tile;
  }
  const handBox = h("div", { class: "tiles hand" });
  for (const t of sortTiles(hand)) handBox.append(open ? tileEl(t, "hand-tile") : backEl("hand-tile"));
  if (seat.drawn) handBox.append(open ? tileEl(seat.drawn, "hand-tile drawn") : backEl("hand-tile drawn"));
  if (winTile) {
    handBox.append(h("span", { class: "win-tile" }, tileEl(winTile, "hand-tile winning"),
      h("small", { text: WIN_SOURCE[seat.win.source] || "胡" })));
  }
  const river = h("div", { class: "tiles river", "aria-label": `${nameOf(data, seat.seat)}的牌河` });
  seat.river.forEach((r, i) => {
    let cls = "river-tile";
    if (r.claimed_by !== null && r.claimed_by !== undefined) cls += " claimed";
    if (r.won_by && r.won_by.length) cls += " won-on";
    if (lastDiscard === seat.seat && i === seat.river.length - 1) cls += " last";
    river.append(tileEl(r.tile, cls));
  });
  const turn = state.phase !== "ended" && state.turn === seat.seat;
  const classes = ["replay-seat", `pos-${pos}`];
  if (turn) classes.push("turn");
  if (seat.won) classes.push("won");
  if (actor === seat.seat) classes.push("acting");
  return h("section", { class: classes.join(" "), dataset: { seat: String(seat.seat) }, "aria-label": `${nameOf(data, seat.seat)}的座位` },
    h("div", { class: "who" },
      h("span", { class: "wind", text: windOf(data, seat.seat) }),
      h("strong", { class: "name", text: nameOf(data, seat.seat) }),
      RELATION[pos] ? h("span", { class: "relation", text: RELATION[pos] }) : null,
      badges(data, seat)),
    h("div", { class: "tiles-row" }, handBox,
      seat.melds.length ? h("div", { class: "tiles melds" }, seat.melds.map((m) => meldEl(m, "meld-tile"))) : null),
    h("div", { class: "river-row" }, river));
}

/** Every seat of `state`, placed around `viewer`. */
export function seatsEl(data, state, viewer, { open, lastDiscard, actor }) {
  const n = state.seats.length;
  return state.seats.map((seat) => {
    const pos = positionOf(seat.seat, viewer, n);
    return seatEl(data, state, seat, pos, { open: open || seat.seat === viewer, lastDiscard, actor });
  });
}

/** One move in words: "王五 打出 [二筒] 二筒，报听"; a decision that did not take effect is
 *  struck through, with why. */
export function moveEl(move) {
  const classes = ["move", `kind-${move.kind}`];
  if (move.main) classes.push("main");
  if (move.kind === "pass" || move.kind === "draw") classes.push("minor");
  if (!move.effective) classes.push("void");
  const said = h("span", { class: "said" });
  if (move.name) said.append(h("b", { class: "who", text: move.name }), " ");
  said.append(h("span", { class: "verb", text: move.verb }));
  for (const t of move.tiles || []) {
    said.append(" ", h("span", { class: "tile-word" }, tileEl(t, "word-tile"), h("span", { class: "tile-name", text: tileName(t) })));
  }
  if (move.extra) said.append(h("span", { class: "extra", text: move.extra }));
  return h("li", { class: classes.join(" "), dataset: { seat: move.seat === null || move.seat === undefined ? "" : String(move.seat), kind: move.kind, effective: String(move.effective) } },
    said, move.note ? h("span", { class: "note", text: move.note }) : null);
}

/** The settlement: 翻鸡 and 萝卜, every line under the player it concerns, the totals. */
export function settlementEl(data, box) {
  const st = data.settlement || {};
  box.replaceChildren(h("h3", { text: "结算" }));
  if (data.fanji) {
    box.append(h("p", { class: "fanji" }, "翻鸡：", tileEl(data.fanji, "word-tile"), ` ${tileName(data.fanji)}`));
  }
  const luobo = (st.summary || {}).luobo || [];
  if (luobo.length) box.append(h("p", { class: "luobo" }, "萝卜：", luobo.map((t) => tileEl(t, "word-tile"))));
  const view = { players: data.players, observation: { variant: data.variant } };
  box.append(linesByPlayer(view, st, data.players.length));
  box.append(h("p", { class: "totals" }, (st.totals || []).map((t, s) =>
    h("span", { class: `badge ${t > 0 ? "plus" : t < 0 ? "minus" : ""}`, dataset: { seat: String(s) }, text: `${nameOf(data, s)} ${t > 0 ? "+" : ""}${t}` }))));
  return box;
}
