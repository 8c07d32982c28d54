// Dialogues over the table: 报杠, the 翻鸡 reveal, the settlement, the final standings and
// the dissolve vote. Each builds its content from the view and plain callbacks.

import { h, playerName } from "./render.js";
import { categoryWords, linesByPlayer, subtotalTable } from "./settlement.js";
import { sortTiles, tileEl, tileName } from "./tiles.js";

export const FANJI_SECONDS = 5;

function modal(id, title, ...body) {
  return h("div", { class: "modal-backdrop", id: `${id}-backdrop` },
    h("div", { class: "modal", id, role: "dialog", "aria-modal": "true", "aria-labelledby": `${id}-title` },
      h("h2", { id: `${id}-title`, text: title }), ...body));
}

/** The 报杠 dialogue: one checkbox per tile; 报杠 needs at least one tick. `state` is
 *  {action, options, checked} and keeps the ticks across re-renders. */
export function baogangDialog(state, { onSubmit, onSkip, onToast }) {
  const boxes = state.options.map((t) => h("label", { class: "tick" },
    h("input", {
      type: "checkbox", value: t, name: "baogang", checked: state.checked.includes(t),
      onchange: (ev) => {
        state.checked = ev.target.checked ? [...state.checked, t] : state.checked.filter((x) => x !== t);
      },
    }), tileEl(t, "md"), h("span", { text: tileName(t) })));
  const submit = () => {
    const ticked = boxes.map((b) => b.querySelector("input")).filter((i) => i.checked).map((i) => i.value);
    if (!ticked.length) { onToast("没勾选任何选项，不能报杠"); return; }
    onSubmit(ticked);
  };
  // A sheet in the flow of my seat's panel, not a modal: the clock and my hand stay in sight.
  return h("div", { class: "modal sheet", id: "baogang", role: "dialog", "aria-labelledby": "baogang-title" },
    h("h2", { id: "baogang-title", text: "报杠" }),
    h("p", { class: "hint", text: "勾选要报杠的牌：报杠的牌出现时自动开杠；未勾选的牌本局不能杠。" }),
    h("div", { class: "ticks" }, boxes),
    h("div", { class: "buttons" },
      h("button", { class: "act act-baogang", onclick: submit, text: "报杠" }),
      h("button", { class: "act act-nobaogang", onclick: onSkip, text: "不报" })));
}

/** The 翻鸡 reveal: the turned tile, big, for a few seconds. */
export function fanjiDialog(summary) {
  const chickens = summary.chicken_tiles || [];
  return modal("fanji", "翻鸡",
    h("div", { class: "fanji-tile" }, tileEl(summary.fanji, "big")),
    h("p", { text: `翻出 ${tileName(summary.fanji)}${summary.jin_ji ? "，金鸡！" : ""}` }),
    chickens.length ? h("p", { class: "chickens" }, "本局鸡牌：", chickens.map((t) => tileEl(t, "xs"))) : null);
}

const KIND_TEXT = { ready: "听牌", notReady: "未听牌" };
const SOURCE_TEXT = { self_draw: "自摸", on_discard: "点炮", robbing_kong: "抢杠" };
const REASON_TEXT = { exhausted: "流局 (牌摸完)", win: "胡牌", last_player: "只剩一家未胡", dissolved: "解散" };

function countsText(obj) {
  const parts = Object.entries(obj || {}).filter(([, n]) => n).map(([k, n]) => `${k}×${n}`);
  return parts.length ? parts.join(" ") : "—";
}

/** A note in words: tile codes become names, and the "2^3=8" tail (the points are shown
 *  anyway) is dropped: "清一色+2 根+1 = 3番". */
export function noteText(note) {
  if (!note) return "";
  return note.replace(/, 2\^\d+=\d+$/, "").replace(/\b([1-9][msp])\b/g, (c) => tileName(c));
}

function totalCell(total) {
  return h("td", { class: `total ${total > 0 ? "plus" : total < 0 ? "minus" : ""}`, dataset: { total: String(total) }, text: `${total > 0 ? "+" : ""}${total}` });
}

function perPlayer(st, seat) {
  const per = st.players || [];
  return per.find((x) => x && x.seat === seat) || (per[seat] && per[seat].seat === undefined ? per[seat] : null) || {};
}

/** 都匀 (D23): ready, won with the winning tile and pattern, 鸡 and 豆 by kind, total, ×底注. */
function duyunRows(view, st) {
  const obs = view.observation;
  const rows = [];
  for (let seat = 0; seat < obs.players; seat++) {
    const p = perPlayer(st, seat);
    const s = obs.seats[seat];
    const winTile = p.winning_tile || (s.win && s.win.tile);
    const total = p.total ?? st.totals[seat];
    rows.push(h("tr", { dataset: { seat: String(seat) } },
      h("th", { scope: "row", text: playerName(view, seat) }),
      h("td", { class: "ready", text: p.ready === undefined || p.ready === null ? "—" : (p.ready ? KIND_TEXT.ready : KIND_TEXT.notReady) }),
      h("td", { class: "won" }, (p.won ?? s.won) ? ["胡 ", winTile ? tileEl(winTile, "xs") : null, p.pattern ? ` ${p.pattern}` : ""] : "—"),
      h("td", { class: "ji", text: countsText(p.ji) }),
      h("td", { class: "dou", text: countsText(p.dou) }),
      totalCell(total),
      h("td", { class: "stake", text: p.stake_total !== undefined ? String(p.stake_total) : "" }),
    ));
  }
  return h("table", { class: "players duyun" },
    h("thead", {}, h("tr", {}, ["玩家", "听牌", "胡牌", "鸡", "豆", "得分", "×底注"].map((t) => h("th", { scope: "col", text: t })))),
    h("tbody", {}, rows));
}

/** The fan of a 自贡 seat: its win's pattern line (kind "pattern": the pattern in words, as
 *  the hand page says it, and the breakdown), else the fan it was paid 查叫 on. */
export function zigongFan(st, seat, p) {
  const line = st.lines.find((l) => l.payee === seat && l.kind === "pattern");
  if (line) return { name: categoryWords(line), note: noteText(line.note) };
  const paid = st.lines.some((l) => l.payee === seat && l.kind === "chajiao" && l.points > 0);
  if (paid && p.chajiao_fan !== undefined && p.chajiao_fan !== null) return { name: "查叫", note: `${p.chajiao_fan}番` };
  return null;
}

/** 自贡: 下叫, 胡牌 (how), 胡的牌, 番型 (from the pattern line), total. No 鸡/豆. */
function zigongRows(view, st) {
  const obs = view.observation;
  const rows = [];
  for (let seat = 0; seat < obs.players; seat++) {
    const p = perPlayer(st, seat);
    const s = obs.seats[seat];
    const won = p.won ?? s.won;
    const fan = zigongFan(st, seat, p);
    let ready = "—";
    if (won) ready = "已胡";
    else if (p.ready === true) ready = "下叫";
    else if (p.ready === false) ready = "未下叫";
    if ((p.declared ?? s.declared) && !won) ready += " (报叫)";
    rows.push(h("tr", { dataset: { seat: String(seat) } },
      h("th", { scope: "row", text: playerName(view, seat) }),
      h("td", { class: "ready", text: ready }),
      h("td", { class: "won", text: won ? `胡${s.win ? ` (${SOURCE_TEXT[s.win.source] || s.win.source})` : ""}` : "—" }),
      h("td", { class: "win-tile" }, won && s.win ? [tileEl(s.win.tile, "xs"), ` ${tileName(s.win.tile)}`] : "—"),
      h("td", { class: "fan" }, fan ? [h("b", { text: fan.name }), fan.note ? h("span", { class: "fan-note", text: ` ${fan.note}` }) : null] : "—"),
      totalCell(st.totals[seat]),
    ));
  }
  return h("table", { class: "players zigong" },
    h("thead", {}, h("tr", {}, ["玩家", "下叫", "胡牌", "胡的牌", "番型", "得分"].map((t) => h("th", { scope: "col", text: t })))),
    h("tbody", {}, rows));
}

/** Every seat's final hand: melds, then the concealed tiles (the winning tile set apart). */
function finalHands(view) {
  const obs = view.observation;
  const items = [];
  for (let seat = 0; seat < obs.players; seat++) {
    const s = obs.seats[seat];
    const concealed = s.concealed ? sortTiles(s.concealed) : null;
    let winTile = null;
    if (concealed && s.win && concealed.includes(s.win.tile)) {
      winTile = s.win.tile;
      concealed.splice(concealed.indexOf(winTile), 1);
    }
    const melds = s.melds.map((m) => h("span", { class: `fmeld meld-${m.kind}`, dataset: { kind: m.kind } },
      Array.from({ length: m.kind === "pung" ? 3 : 4 }, () => tileEl(m.tile, "xs"))));
    items.push(h("li", { dataset: { seat: String(seat) } },
      // A long name (电脑·小梅（标准）) wraps at its parts rather than losing what tells it apart.
      h("span", { class: "name", text: playerName(view, seat).replace("·", "·\u200b").replace("（", "\u200b（") }),
      h("span", { class: "tiles" },
        melds,
        concealed ? h("span", { class: "concealed" }, concealed.map((t) => tileEl(t, "xs"))) : h("span", { text: "—" }),
        winTile ? h("span", { class: "win-tile", title: "胡的牌" }, tileEl(winTile, "xs")) : null)));
  }
  return h("ul", { class: "final-hands", id: "final-hands" }, items);
}

/** The settlement dialogue of an ended hand, shaped by the variant. */
export function settlementDialog(view, { onReady, readyDone, matchOver, onStandings, onClose }) {
  const obs = view.observation;
  const result = obs.result;
  const st = result.settlement;
  const sum = st.summary || {};
  const zigong = obs.variant === "zigong";
  const won = obs.seats.some((s) => s.won);
  const head = sum.result || (won ? "胡" : (zigong ? "流局" : "黄庄"));
  const info = h("dl", { class: "summary" },
    h("dt", { text: "结果" }), h("dd", { class: "result", text: head }),
    h("dt", { text: "庄家" }), h("dd", { class: "dealer", text: playerName(view, sum.dealer ?? obs.dealer) }));
  // 连庄数 pays in 都匀 (D4, D10a); 自贡's dealer earns nothing by staying (Z5).
  if (!zigong) info.append(h("dt", { text: "连庄" }), h("dd", { class: "streak", text: String(sum.streak ?? obs.streak) }));
  if (sum.fanji) info.append(h("dt", { text: "翻牌" }), h("dd", { class: "fanji" }, tileEl(sum.fanji, "xs"), ` ${tileName(sum.fanji)}${sum.jin_ji ? " 金鸡" : ""}`));
  if (sum.chicken_tiles) info.append(h("dt", { text: "鸡牌" }), h("dd", { class: "chickens" }, sum.chicken_tiles.length ? sum.chicken_tiles.map((t) => tileEl(t, "xs")) : "无"));
  if (sum.base_stake !== undefined) info.append(h("dt", { text: "底注" }), h("dd", { class: "stake", text: String(sum.base_stake) }));
  // A match the club ledger does not book (电脑, 练习房, bots not allowed): the table settles
  // as usual and says so.
  if (view.match && view.match.booked === false) info.append(h("dt", { text: "记账" }), h("dd", { class: "unbooked", text: UNBOOKED }));
  if (zigong) {
    const winners = obs.seats.filter((s) => s.won).map((s) => playerName(view, s.seat));
    info.append(h("dt", { text: "胡牌" }), h("dd", { class: "winners", text: winners.length ? winners.join("、") : "无" }));
    if (sum.reason) info.append(h("dt", { text: "结束" }), h("dd", { text: REASON_TEXT[sum.reason] || sum.reason }));
    if (Array.isArray(sum.luobo) && sum.luobo.length) info.append(h("dt", { text: "萝卜" }), h("dd", { class: "luobo-tiles" }, sum.luobo.map((t) => tileEl(t, "xs"))));
  }
  const table = h("div", { class: "table-wrap" }, zigong ? zigongRows(view, st) : duyunRows(view, st));
  const buttons = h("div", { class: "buttons" });
  if (onClose) buttons.append(h("button", { class: "act act-close", onclick: onClose, text: "关闭" }));
  else if (matchOver) buttons.append(h("button", { class: "act act-standings", onclick: onStandings, text: "查看总成绩" }));
  else {
    buttons.append(h("span", { class: "next-countdown", id: "next-hand-countdown" }));
    if (view.seat !== null) {
      buttons.append(readyDone
        ? h("button", { class: "act", disabled: true, text: "已准备，等待其他玩家" })
        : h("button", { class: "act act-ready", onclick: onReady, text: "准备下一局" }));
    }
  }
  const number = view.match && view.match.hand;
  const dlg = modal("settlement", `${onClose ? "上局结算" : "本局结算"}${number ? ` · 第${number}局` : ""} · ${head}`, info,
    h("h3", { text: "小计" }), subtotalTable(view, st, obs.variant, obs.players),
    table,
    h("h3", { text: "各家手牌" }), finalHands(view),
    h("h3", { text: "明细" }), linesByPlayer(view, st, obs.players),
    buttons);
  dlg.querySelector(".modal").classList.add(`variant-${obs.variant}`);
  return dlg;
}

/** A settlement known only from its JSON (上局结算 after a reload): subtotals and lines. */
export function lastSettlementDialog(view, last, { onClose }) {
  const n = last.settlement.totals.length;
  return modal("settlement", `上局结算 · 第${last.hand}局`,
    h("h3", { text: "小计" }), subtotalTable(view, last.settlement, view.variant, n),
    h("h3", { text: "明细" }), linesByPlayer(view, last.settlement, n),
    h("div", { class: "buttons" }, h("button", { class: "act act-close", onclick: onClose, text: "关闭" })));
}

const END_TEXT = { dissolved: "已解散", finished: "全场结束" };
const UNBOOKED = "不记账（照常结算，但不记入亲友圈账本）";

/** The final standings at the end of the match, with its result page and 再来一场. */
export function standingsDialog(view, totals, { onLeave, resultUrl, onRematch, reason }) {
  const order = totals.map((t, seat) => ({ seat, t })).sort((a, b) => b.t - a.t);
  const top = Math.max(...totals);
  const status = (view.match && view.match.status) || "finished";
  const buttons = h("div", { class: "buttons" });
  // Once someone asked, the shared prompt (rematchBar) has the 同意 button.
  const asked = view.rematch && view.rematch.state !== "none";
  if (onRematch && view.seat !== null && !asked) {
    buttons.append(h("button", { class: "act act-rematch", onclick: onRematch, text: "再来一场" }));
  }
  if (resultUrl) buttons.append(h("a", { class: "act act-result", href: resultUrl, text: "成绩详情" }));
  buttons.append(h("button", { class: "act act-leave", onclick: onLeave, text: "返回房间" }));
  return modal("standings", `${END_TEXT[status] || "全场结束"} · 总成绩`,
    reason ? h("p", { class: "dissolve-reason", text: `解散原因：${reason}` }) : null,
    view.match && view.match.booked === false ? h("p", { class: "unbooked", text: UNBOOKED }) : null,
    h("ol", { class: "standings" }, order.map(({ seat, t }, i) => h("li", { dataset: { seat: String(seat) } },
      h("span", { class: "rank", text: `第${i + 1}名` }), h("span", { class: "name", text: playerName(view, seat) }),
      top > 0 && t === top ? h("span", { class: "badge big-winner", text: "大赢家" }) : null,
      h("span", { class: `total ${t > 0 ? "plus" : t < 0 ? "minus" : ""}`, text: `${t > 0 ? "+" : ""}${t}` })))),
    buttons);
}

/** Asked of a player who comes back to a seat in 托管. */
export function resumeDialog({ onResume, onStay }) {
  return modal("resume-prompt", "是否取消托管？",
    h("p", { text: "你离开期间系统在替你出牌。" }),
    h("div", { class: "buttons" },
      h("button", { class: "act act-resume", onclick: onResume, text: "取消托管" }),
      h("button", { class: "act act-stay", onclick: onStay, text: "继续托管" })));
}

/** The dissolve vote in progress, as a compact bar over the table (which stays usable and
 *  whose clock the server has paused): who proposed, who agreed, and my buttons. */
export function dissolveBar(view, vote, { onVote }) {
  const votes = vote.votes || {};
  const n = view.observation ? view.observation.players : view.players.length;
  const items = [];
  for (let seat = 0; seat < n; seat++) {
    const v = votes[seat] ?? votes[String(seat)];
    items.push(h("li", { text: `${playerName(view, seat)}：${v === true ? "同意" : v === false ? "拒绝" : "未表态"}` }));
  }
  const mine = view.seat !== null ? (votes[view.seat] ?? votes[String(view.seat)]) : true;
  return h("div", { class: "vote-bar", id: "dissolve", role: "region", "aria-label": "解散投票" },
    h("p", { class: "vote-title" }, h("b", { text: `${playerName(view, vote.proposer)} 申请解散牌局` }),
      h("span", { text: "，全体同意后解散（投票期间暂停计时）" }),
      h("span", { class: "countdown", id: "dissolve-countdown" })),
    h("ul", {}, items),
    mine === undefined || mine === null ? h("div", { class: "buttons" },
      h("button", { class: "act act-agree", onclick: () => onVote(true), text: "同意" }),
      h("button", { class: "act act-refuse", onclick: () => onVote(false), text: "拒绝" })) : null);
}

/** The shared 再来一场 prompt, on every seated player's screen: who agreed, the countdown,
 *  同意 / 离开; after its deadline, what became of the seats. */
export function rematchBar(view, rematch, { onAgree, onLeave, onLobby, onClub }) {
  const seats = new Map(rematch.seats.map((s) => [s.seat, s]));
  const mine = seats.get(view.seat);
  if (rematch.state === "expired") {
    const text = mine
      ? "时间到：没同意的玩家已离座，房间重新开放，等人入座后开始。"
      : "时间到：你没有同意再来一场，已离座。";
    return h("div", { class: "vote-bar rematch-bar", id: "rematch", role: "region", "aria-label": "再来一场" },
      h("p", { class: "vote-title" }, h("b", { text: "再来一场" }), h("span", { text: ` ${text}` })),
      h("div", { class: "buttons" }, mine
        ? h("button", { class: "act act-lobby", onclick: onLobby, text: "回房间" })
        : h("button", { class: "act act-club", onclick: onClub, text: "回亲友圈" })));
  }
  const items = [];
  for (let seat = 0; seat < rematch.seat_count; seat++) {
    const s = seats.get(seat);
    const word = !s ? "空位" : s.agreed ? "已同意" : "等待中";
    items.push(h("li", { class: s && s.agreed ? "agreed" : "", dataset: { seat: String(seat) }, text: `${s ? s.name : `${seat + 1}号位`}：${word}` }));
  }
  return h("div", { class: "vote-bar rematch-bar", id: "rematch", role: "region", "aria-label": "再来一场" },
    h("p", { class: "vote-title" }, h("b", { text: "再来一场？" }),
      h("span", { text: "全体同意后开始，到时没同意的玩家离座" }),
      h("span", { class: "countdown", id: "rematch-countdown" })),
    h("ul", {}, items),
    view.seat !== null && mine ? h("div", { class: "buttons" },
      mine.agreed
        ? h("span", { class: "waiting", text: "已同意，等待其他玩家" })
        : h("button", { class: "act act-agree", onclick: onAgree, text: "同意" }),
      h("button", { class: "act act-refuse act-rematch-leave", onclick: onLeave, text: "离开" })) : null);
}

/** This seat was opened in another tab or device: this page no longer follows the table. */
export function replacedDialog({ onTakeBack }) {
  return modal("replaced", "已在另一个窗口打开",
    h("p", { text: "这个座位已在另一个窗口（或另一台设备）打开，这里不再更新，也不能出牌。" }),
    h("div", { class: "buttons" },
      h("button", { class: "act act-take-back", onclick: onTakeBack, text: "在这里继续" })));
}
