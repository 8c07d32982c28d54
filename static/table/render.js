// Draws the table from a `view` (see protocol.js). Everything drawn comes from the
// observation the server sent for this viewer: other seats' concealed tiles are never in
// it before the hand ends, so they are never in the DOM either (only face-down backs).

import { backEl, sortTiles, tileEl, tileName } from "./tiles.js";

const POSITIONS = { 2: ["bottom", "top"], 3: ["bottom", "right", "left"], 4: ["bottom", "right", "top", "left"] };
const MELD_NAMES = { pung: "碰", exposed_kong: "明杠", concealed_kong: "暗杠", added_kong: "补杠" };

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

export function declareLabel(variant) {
  return variant === "duyun" ? "报听" : "报叫";
}

export function playerName(view, seat) {
  const p = view.players.find((x) => x.seat === seat);
  return (p && (p.name || p.display_name || p.username)) || `${seat + 1}号位`;
}

// A seat panel names a computer by its given name (电脑·阿竹（标准） → 阿竹): the 电脑 badge
// beside it says the rest, and a phone's side panels have room for about three characters.
function panelName(view, seat) {
  const name = playerName(view, seat);
  const p = view.players.find((x) => x.seat === seat);
  return p && p.computer ? name.replace(/^电脑\s*·\s*/, "").replace(/（[^（）]*）$/, "") : name;
}

/** Which screen position each seat takes: my seat (or seat 0 for spectators) at the bottom. */
export function positionOf(view, seat) {
  const n = view.observation.players;
  const base = view.seat ?? 0;
  return POSITIONS[n][(seat - base + n) % n];
}

/** Copies of each tile this viewer can see: own hand, melds, rivers, revealed hands, 萝卜. */
export function visibleCounts(obs) {
  const counts = {};
  const add = (code, n = 1) => { counts[code] = (counts[code] || 0) + n; };
  if (obs.me) {
    obs.me.hand.forEach((t) => add(t));
    if (obs.me.drawn) add(obs.me.drawn);
  }
  for (const s of obs.seats) {
    for (const m of s.melds) add(m.tile, m.kind === "pung" ? 3 : 4);
    // A claimed discard is counted in its meld, a won one in the winner's open hand.
    for (const r of s.river) if (r.claimed_by === undefined && !r.won_by) add(r.tile);
    // 一炮多响: each winner's hand this page sees holds the one won tile; count it once.
    for (const r of s.river) {
      if (!Array.isArray(r.won_by)) continue;
      const shown = r.won_by.filter((w) => (obs.me && w === obs.me.seat) || obs.seats[w].concealed);
      if (shown.length > 1) add(r.tile, 1 - shown.length);
    }
    if (s.concealed && (!obs.me || s.seat !== obs.me.seat)) s.concealed.forEach((t) => add(t));
  }
  const luobo = obs.luobo;
  if (Array.isArray(luobo)) luobo.forEach((t) => add(typeof t === "string" ? t : t.tile));
  return counts;
}

function badge(cls, text) {
  return h("span", { class: `badge ${cls}`, text });
}

function seatBadges(view, seat) {
  const obs = view.observation;
  const s = obs.seats[seat];
  const p = view.players.find((x) => x.seat === seat) || {};
  const out = [];
  // 自贡 has no 连庄数 (Z5): its dealer is only 庄.
  if (obs.dealer === seat) out.push(badge("dealer", obs.streak > 1 && obs.variant !== "zigong" ? `庄 连${obs.streak}` : "庄"));
  if (p.computer) out.push(badge("computer", "电脑")); // a computer seat is never "offline"
  else if (p.connected === false) out.push(badge("offline", "离线"));
  else if (p.connected === true) out.push(badge("online", "在线"));
  if (!p.computer && (p.auto_play || p.auto)) out.push(badge("auto", "托管"));
  if (s.declared) out.push(badge("declared", declareLabel(obs.variant)));
  if (s.baogang) out.push(badge("baogang", "报杠"));
  if (s.won) out.push(badge("won", "胡"));
  return out;
}

function meldEl(m, small) {
  const n = m.kind === "pung" ? 3 : 4;
  const tiles = [];
  for (let i = 0; i < n; i++) {
    // A concealed kong shows two tiles face down, as at a real table; its tile is public.
    if (m.kind === "concealed_kong" && (i === 0 || i === 3)) tiles.push(backEl(small ? "sm" : "md"));
    else tiles.push(tileEl(m.tile, small ? "sm" : "md"));
  }
  return h("div", { class: `meld meld-${m.kind}`, title: MELD_NAMES[m.kind], "aria-label": `${MELD_NAMES[m.kind]} ${tileName(m.tile)}` }, tiles);
}

function opponentPanel(view, seat, pos, isTurn) {
  const obs = view.observation;
  const s = obs.seats[seat];
  const hand = h("div", { class: "opp-hand" });
  if (s.concealed) {
    sortTiles(s.concealed).forEach((t) => hand.append(tileEl(t, "sm")));
  } else {
    const n = s.hand_size - (s.has_drawn ? 1 : 0);
    for (let i = 0; i < n; i++) hand.append(backEl("sm"));
    if (s.has_drawn) hand.append(backEl("sm drawn"));
  }
  return h("section", { class: `seat-panel pos-${pos}${isTurn ? " is-turn" : ""}`, dataset: { seat: String(seat) }, "aria-label": `${playerName(view, seat)}的座位` },
    h("div", { class: "who" }, h("span", { class: "name", text: panelName(view, seat), title: playerName(view, seat) }), seatBadges(view, seat)),
    h("div", { class: "hand-size", text: `${s.hand_size}张` }),
    hand,
    h("div", { class: "melds" }, s.melds.map((m) => meldEl(m, true))),
    s.win ? h("div", { class: "win-note" }, "胡 ", tileEl(s.win.tile, "xs")) : null,
  );
}

function riverEl(view, seat, pos) {
  const obs = view.observation;
  const river = obs.seats[seat].river;
  const last = obs.last_discard;
  const box = h("div", { class: `river pos-${pos}`, dataset: { seat: String(seat) }, "aria-label": `${playerName(view, seat)}的牌河` });
  river.forEach((r, i) => {
    let cls = "river-tile";
    if (r.claimed_by !== undefined) cls += " claimed";
    if (r.won_by) cls += " won-on";
    if (last && last.seat === seat && i === river.length - 1) cls += " last";
    box.append(tileEl(r.tile, cls));
  });
  return box;
}

/** A seat's wind for this hand: the dealer is 东, then 南 西 北 in turn order. */
export function seatWind(obs, seat) {
  return "东南西北"[(seat - obs.dealer + obs.players) % obs.players];
}

function compassEl(view) {
  const obs = view.observation;
  const n = obs.players;
  const arrows = [];
  for (let seat = 0; seat < n; seat++) {
    const pos = positionOf(view, seat);
    const active = obs.phase !== "ended" && obs.turn === seat;
    const dealer = seat === obs.dealer;
    arrows.push(h("span", { class: `dir pos-${pos}${active ? " active" : ""}${dealer ? " dealer" : ""}`, dataset: { seat: String(seat) }, title: playerName(view, seat) },
      seatWind(obs, seat), dealer ? h("span", { class: "dealer-mark", text: "庄" }) : null));
  }
  const stateText = obs.phase === "ended" ? "本局结束" : obs.phase === "declare" ? "报听/报叫" : obs.phase === "claim" ? "等待操作" : obs.phase === "rob" ? "抢杠" : `${playerName(view, obs.turn)}出牌`;
  return h("div", { class: "compass", "aria-label": "桌面信息" },
    arrows,
    h("div", { class: "countdown", id: "countdown", "aria-label": "倒计时", text: "" }),
    h("div", { class: "wall", text: `余${obs.wall_remaining}张` }),
    h("div", { class: "turn-text", id: "turn-text", text: stateText }),
  );
}

/** My waits with how many copies of each remain unseen, or null when not ready. */
export function waitHints(obs) {
  if (!obs.me || !obs.me.waits || obs.me.waits.length === 0) return null;
  const seen = visibleCounts(obs);
  return obs.me.waits.map((t) => ({ tile: t, left: Math.max(0, 4 - (seen[t] || 0)) }));
}

function hintsEl(obs) {
  const hints = waitHints(obs);
  if (!hints) return null;
  const total = hints.reduce((a, x) => a + x.left, 0);
  return h("div", { class: "wait-hints", id: "wait-hints", "aria-label": "听牌提示" },
    h("span", { class: "label", text: `听牌 (共剩${total}张)` }),
    hints.map((x) => h("span", { class: "hint", dataset: { wait: x.tile, left: String(x.left) } },
      tileEl(x.tile, "xs"), h("span", { class: "left", text: `剩${x.left}` }))));
}

/** 听牌提示 before a discard: the best few discards and what each leaves (server-side, from
 *  this seat's own observation); every playable tile carries its own hint as a title. */
function discardHintsEl(view) {
  const hints = view.hints || [];
  if (!hints.length) return null;
  const best = [...hints].sort((a, b) => a.shanten - b.shanten || b.left - a.left).slice(0, 3);
  return h("div", { class: "discard-hints", id: "discard-hints", "aria-label": "出牌提示" },
    h("span", { class: "label", text: "提示" }),
    best.map((x) => h("span", { class: "hint", dataset: { tile: x.tile, shanten: String(x.shanten), left: String(x.left) }, title: x.text },
      tileEl(x.tile, "xs"),
      h("span", { class: "left", text: x.shanten === 0 ? `听${x.kinds}种剩${x.left}张` : `差${x.shanten}张 有效${x.left}` }))));
}

/** The action buttons for the legal actions that are not plain discards. */
function actionsEl(view, ui) {
  const obs = view.observation;
  const legal = (obs.me && obs.me.legal) || [];
  const bar = h("div", { class: "actions", id: "actions" });
  if (!legal.length) return bar;
  const label = declareLabel(obs.variant);
  const by = (t) => legal.filter((a) => a.type === t);
  const wins = by("win");
  const pungs = by("pung");
  const kongs = by("kong");
  const passes = by("pass");
  const declares = by("declare");
  const declDiscards = legal.filter((a) => a.type === "discard" && a.declare);
  if (ui.kongChoice) {
    kongs.forEach((a) => bar.append(h("button", { class: "act act-kong-choice", dataset: { tile: a.tile }, onclick: () => ui.act(a) }, "杠 ", tileEl(a.tile, "xs"))));
    bar.append(h("button", { class: "act act-cancel", onclick: () => ui.set({ kongChoice: false }), text: "取消" }));
    return bar;
  }
  // The 报杠 choice (Z20) is made in its sheet, just below; `declare` here only answers it.
  if (obs.me.baogang_panel) return bar;
  if (ui.declareMode) {
    bar.append(h("span", { class: "prompt", text: `${label}：请选择要打出的牌` }));
    bar.append(h("button", { class: "act act-cancel", onclick: () => ui.set({ declareMode: false }), text: "取消" }));
    return bar;
  }
  wins.forEach((a) => bar.append(h("button", { class: "act act-win", onclick: () => ui.act(a), text: "胡" })));
  if (kongs.length === 1) bar.append(h("button", { class: "act act-kong", onclick: () => ui.act(kongs[0]), text: "杠" }));
  else if (kongs.length > 1) bar.append(h("button", { class: "act act-kong", onclick: () => ui.set({ kongChoice: true }), text: "杠" }));
  pungs.forEach((a) => bar.append(h("button", { class: "act act-pung", onclick: () => ui.act(a), text: "碰" })));
  declares.forEach((a) => bar.append(h("button", { class: "act act-declare", onclick: () => ui.declare(a), text: label })));
  if (declDiscards.length) bar.append(h("button", { class: "act act-declare", onclick: () => ui.set({ declareMode: true }), text: label }));
  passes.forEach((a) => bar.append(h("button", { class: "act act-pass", onclick: () => ui.act(a), text: "过" })));
  return bar;
}

function myHandEl(view, ui) {
  const obs = view.observation;
  const me = obs.me;
  const legal = me.legal || [];
  const discards = legal.filter((a) => a.type === "discard" && !!a.declare === !!ui.declareMode);
  const canDiscard = new Set(discards.map((a) => a.tile));
  const row = h("div", { class: "my-hand", id: "my-hand", "aria-label": "我的手牌" });
  const tileButton = (code, extra) => {
    const ok = canDiscard.has(code);
    const t = tileEl(code, `hand-tile${extra}${ok ? " playable" : ""}${ui.declareMode && ok ? " declarable" : ""}`);
    const hint = ok && !ui.declareMode ? (view.hints || []).find((x) => x.tile === code) : null;
    if (hint) { t.dataset.hint = hint.text; t.setAttribute("title", hint.text); }
    if (ok) {
      t.setAttribute("role", "button");
      t.tabIndex = 0;
      t.addEventListener("click", () => ui.discard(discards.find((a) => a.tile === code)));
      t.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") t.click(); });
    }
    return t;
  };
  me.hand.forEach((code) => row.append(tileButton(code, "")));
  if (me.drawn) row.append(tileButton(me.drawn, " drawn"));
  return row;
}

function myPanel(view, ui) {
  const obs = view.observation;
  const seat = obs.me.seat;
  const s = obs.seats[seat];
  return h("section", { class: `seat-panel pos-bottom mine${obs.turn === seat && obs.phase !== "ended" ? " is-turn" : ""}`, dataset: { seat: String(seat) }, "aria-label": "我的座位" },
    h("div", { class: "who" }, h("span", { class: "name", text: playerName(view, seat) }), seatBadges(view, seat),
      obs.me.ticks && obs.me.ticks.length ? h("span", { class: "ticks" }, "报杠: ", obs.me.ticks.map((t) => tileEl(t, "xs"))) : null),
    hintsEl(obs),
    discardHintsEl(view),
    actionsEl(view, ui),
    h("div", { class: "my-row" },
      h("div", { class: "melds my-melds" }, s.melds.map((m) => meldEl(m, false))),
      s.won && s.concealed ? h("div", { class: "my-hand won" }, sortTiles(s.concealed).map((t) => tileEl(t, "hand-tile"))) : myHandEl(view, ui)),
  );
}

/** Before the first deal: the wall waits for every seat's random value (docs/security.md). */
function shufflingEl(view) {
  const upcoming = view.match && view.match.next;
  const given = new Set(((upcoming && upcoming.contributions) || []).map((c) => c.seat));
  const players = (view.match && view.match.players) || [];
  return h("div", { class: "placeholder shuffling" },
    h("div", { text: "正在洗牌…" }),
    h("div", { class: "shuffle-note", text: "各家送出的随机数和服务器事先承诺的种子一起决定牌墙，谁也不能单独选牌。" }),
    h("ul", { class: "shuffle-seats" }, players.map((p) => h("li", { text: `${p.name}：${given.has(p.seat) ? "已送出" : p.computer ? "电脑（不送）" : "等待中"}` }))),
    h("div", { class: "next-countdown", id: "next-hand-countdown" }));
}

/** Draw the whole table into `root`. */
export function renderTable(root, view, ui) {
  const obs = view.observation;
  root.replaceChildren();
  if (!obs) {
    root.append(view.stage === "between" ? shufflingEl(view) : h("div", { class: "placeholder", text: view.stage === "over" ? "对局已结束" : "等待牌局开始…" }));
    return;
  }
  const n = obs.players;
  const rivers = h("div", { class: `rivers players-${n}` });
  const seatsBox = h("div", { class: "opponents" });
  for (let seat = 0; seat < n; seat++) {
    const pos = positionOf(view, seat);
    rivers.append(riverEl(view, seat, pos));
    if (pos !== "bottom" || !obs.me) seatsBox.append(opponentPanel(view, seat, pos, obs.turn === seat && obs.phase !== "ended"));
  }
  rivers.append(compassEl(view));
  const luobo = Array.isArray(obs.luobo) && obs.luobo.length
    ? h("div", { class: "luobo", "aria-label": "萝卜牌" }, h("span", { text: "萝卜" }), obs.luobo.map((t) => tileEl(typeof t === "string" ? t : t.tile, "xs")))
    : null;
  root.append(seatsBox, h("div", { class: "center" }, rivers, luobo));
  if (obs.me) root.append(myPanel(view, ui));
  else root.append(h("div", { class: "spectator-note", text: "旁观中" }));
}
