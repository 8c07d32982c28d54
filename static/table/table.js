// The table page: connect, fold frames into the view, render, and send the player's
// choices. State that exists only in this browser (an open dialogue, 报叫 mode) is `ui`.

import { Connection } from "./connection.js";
import {
  FANJI_SECONDS, baogangDialog, dissolveBar, fanjiDialog, lastSettlementDialog, rematchBar,
  replacedDialog, resumeDialog, settlementDialog, standingsDialog,
} from "./dialogs.js";
import {
  actionMessage, applyFrame, autoPlayMessage, dissolveProposeMessage, dissolveVoteMessage,
  emptyView, leaveAutoPlayMessage, phraseMessage, readyNextMessage, rematchLeaveMessage,
  rematchMessage, resumeMessage,
} from "./protocol.js";
import { noteFrame } from "./fairness.js";
import { h, playerName, renderTable } from "./render.js";
import { announce, play, setSfxOn, setVoiceOn, sfxOn, voiceOn } from "./sound.js";

const config = JSON.parse(document.getElementById("table-config").textContent);
const root = document.getElementById("table-root");
const layer = document.getElementById("dialog-layer");
const banner = document.getElementById("reconnect-banner");
const toastEl = document.getElementById("toast");

const view = emptyView();
view.seat = config.seat;
view.variant = config.variant;
const PHRASES_MUTED = "mj-phrases-muted";
const BUBBLE_MS = 4000;
const DISSOLVE_REASONS = { dissolve_passed: "全体同意解散", offline: "全员离线太久，自动解散", admin: "管理员解散" };

const ui = {
  kongChoice: false,
  declareMode: false,
  baogang: null, // {options, checked} while the server waits for my 报杠 choice (Z20)
  fanjiUntil: 0, // the 翻鸡 reveal stays up until this time (ms)
  fanjiShownFor: null, // the hand (by version) whose reveal was already shown
  readySent: false,
  standings: false,
  askedResume: false, // the 是否取消托管 question was asked on this connection
  resumePrompt: false,
  autoQueued: false, // 托管 asked during a claim window: sent once the window closes (本轮后托管)
  showLast: false, // 上局结算 is open
  lastEnded: null, // {hand, observation} of the last hand this page saw end
  phrasesOpen: false,
  bubbles: {}, // seat -> {text, until}
  dissolveReason: null,
  set(patch) { Object.assign(ui, patch); draw(); },
  act(action, ticks) {
    ui.kongChoice = false;
    ui.declareMode = false;
    send(actionMessage(view, action, ticks));
  },
  discard(action) {
    if (!action) return;
    if (action.declare) { ui.declare(action); return; }
    ui.act(action);
  },
  // 报叫 is sent as is. If there are triplets to offer, the server then waits for the 报杠
  // choice: the observation's `me.baogang_panel` lists them and `legal` holds only `declare`,
  // which answers it (with ticks: 报杠; without: 不报). A timeout there is 不报.
  declare(action) {
    ui.act(action);
  },
};

/** Open, keep or close the 报杠 dialogue to follow the server's panel (Z20). */
function followBaogangPanel(obs) {
  const options = (obs && obs.phase !== "ended" && obs.me && obs.me.baogang_panel) || null;
  if (!options || !options.length) { ui.baogang = null; return; }
  const same = ui.baogang && ui.baogang.options.join() === options.join();
  if (!same) ui.baogang = { options, checked: [] };
}

let toastTimer = null;
function toast(text) {
  toastEl.textContent = text;
  toastEl.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { toastEl.hidden = true; }, 3000);
}

const RESYNC_MS = 2000;
const QUIET_ERRORS = new Set(["stale_version", "contribution_late", "already_contributed"]);
const LEAVE_ID = "rematch-leave";
let resyncTimer = null;

const conn = new Connection(config.ws, {
  hello: () => resumeMessage(view),
  onStatus(status) {
    if (status !== "open") ui.askedResume = false;
    banner.hidden = status === "open" || status === "connecting" || status === "replaced";
    banner.textContent = {
      refused: "无法进入牌桌",
      too_many: "你打开的牌桌页面太多了：关掉不用的页面，再刷新这一页",
    }[status] ?? "连接已断开，正在重新连接…";
    document.body.dataset.connection = status;
    if (status === "replaced") { view.replaced = true; draw(); }
  },
  onMessage(msg) {
    if (msg.type === "phrase") { showPhrase(msg); return; }
    // 离开 answered: this player gave up the seat, the club's page is next.
    if (msg.type === "rematch" && msg.id === LEAVE_ID) { location.href = config.club; return; }
    const wasMyTurn = myTurn();
    const wasAuto = !!(me() && me().auto_play);
    const couldDiscard = myLegal().some((a) => a.type === "discard");
    const matchBefore = view.match && view.match.match;
    const kind = applyFrame(view, msg);
    if (kind === "error") {
      // The window opened before 托管 arrived: it is sent again once the window closes.
      if (msg.code === "auto_play_in_window") { ui.set({ autoQueued: true }); return; }
      if (msg.code === "unavailable") {
        // The server cannot reach its database: say so, and resync until it can (a move
        // whose reply was lost may have been saved; the catch-up shows it).
        banner.hidden = false;
        banner.textContent = msg.message || "服务器正在重连…";
        clearTimeout(resyncTimer);
        resyncTimer = setTimeout(() => conn.send(resumeMessage(view)), RESYNC_MS);
        return;
      }
      // A stale action raced a newer state, which is already on its way; a contribution
      // came after the deal or from another tab (fairness.js): no need to alarm.
      if (!QUIET_ERRORS.has(msg.code)) toast(msg.message || "操作无效");
      return;
    }
    if (kind !== "state") return;
    if (view.match && matchBefore && view.match.match !== matchBefore) newMatch();
    noteFrame(view, msg, (m) => conn.send(m));
    if (document.body.dataset.connection === "open") banner.hidden = true;
    const obs = view.observation;
    // A page that opens (or reconnects) on an ended hand shows its settlement at once: the
    // 翻鸡 reveal is for those who saw the hand end, and a replay would eat the countdown.
    if (msg.type !== "update" && obs && obs.phase === "ended") ui.fanjiShownFor = handKey();
    followBaogangPanel(obs);
    if (!obs || !obs.me || !(obs.me.legal || []).length) {
      ui.kongChoice = false;
      ui.declareMode = false;
    }
    if (obs && obs.phase !== "ended") ui.readySent = false;
    if (obs && obs.phase === "ended" && obs.result) ui.lastEnded = { hand: view.match && view.match.hand, observation: obs };
    // A catch-up's missed events are old news: no sounds or notices for them.
    onEvents(msg.events || [], msg.type === "update");
    if (msg.type === "update" && !wasAuto && (msg.events || []).some((e) => e.type === "timeout" && e.seat === view.seat)) {
      // My seat's own timeout (the others see only a 托管 badge, if it comes on).
      toast(couldDiscard ? "超时，已自动出牌" : "超时，已自动过");
    }
    if (me() && me().auto_play) ui.autoQueued = false;
    if (ui.autoQueued && !inWindow() && view.stage === "hand") {
      ui.autoQueued = false;
      send(autoPlayMessage());
    }
    if ((msg.type === "snapshot" || msg.type === "catchup") && !ui.askedResume) {
      ui.askedResume = true;
      ui.resumePrompt = !!(me() && me().auto_play);
    }
    if (!(me() && me().auto_play)) ui.resumePrompt = false;
    if (!wasMyTurn && myTurn()) play("turn");
    draw();
  },
});

/** My seat's entry in the table's players (null for spectators). */
function me() {
  return view.players.find((p) => p.seat === view.seat) || null;
}

function myLegal() {
  const obs = view.observation;
  return (obs && obs.phase !== "ended" && obs.me && obs.me.legal) || [];
}

/** Whether a claim, rob or 报叫 window is open (public): 托管 waits for it to close. */
function inWindow() {
  const obs = view.observation;
  return !!(obs && ["claim", "rob", "declare"].includes(obs.phase));
}

/** The room's next match (再来一场) has started here: forget the last one's dialogues. */
function newMatch() {
  Object.assign(ui, { standings: false, showLast: false, lastEnded: null, readySent: false,
    dissolveReason: null, fanjiShownFor: null, fanjiUntil: 0, autoQueued: false });
}

function chooseAutoPlay() {
  if (inWindow()) { ui.set({ autoQueued: true }); return; }
  send(autoPlayMessage());
}

function myTurn() {
  const obs = view.observation;
  return !!(obs && obs.phase !== "ended" && obs.me && (obs.me.legal || []).length);
}

/** Sounds, spoken calls and notices for the events of a live frame: every discard, 碰 杠 胡
 *  报听, a failed vote; and why a match was dissolved, from any frame. */
function onEvents(events, live) {
  for (const e of events) {
    if (e.type === "dissolve_passed") ui.dissolveReason = DISSOLVE_REASONS.dissolve_passed;
    if (e.type === "dissolve_forced") ui.dissolveReason = DISSOLVE_REASONS[e.reason] || "解散";
    if (!live) continue;
    announce(e, view.variant);
    if (e.type === "dissolve_failed") {
      toast(e.reason === "refused" ? `${playerName(view, e.seat)} 拒绝解散，牌局继续` : "解散投票超时，牌局继续");
    }
    if (e.type === "clock_paused" && e.reason === "offline") toast("全员离线，暂停计时");
  }
}

function phrasesMuted() {
  return localStorage.getItem(PHRASES_MUTED) === "1";
}

function showPhrase(msg) {
  if (phrasesMuted() && msg.seat !== view.seat) return;
  ui.bubbles[msg.seat] = { text: msg.text, until: Date.now() + BUBBLE_MS };
  setTimeout(draw, BUBBLE_MS + 50);
  draw();
}

function drawBubbles() {
  const now = Date.now();
  for (const [seat, b] of Object.entries(ui.bubbles)) {
    if (b.until < now) { delete ui.bubbles[seat]; continue; }
    const panel = root.querySelector(`.seat-panel[data-seat="${seat}"]`);
    if (panel) panel.append(h("div", { class: "phrase-bubble", dataset: { seat }, text: b.text }));
  }
}

function phrasePanel() {
  const muted = phrasesMuted();
  return h("div", { class: "phrase-panel", id: "phrase-panel", role: "dialog", "aria-label": "快捷语" },
    h("div", { class: "phrase-list" }, Object.entries(config.phrases || {}).map(([id, text]) => h("button", {
      class: "phrase", dataset: { phrase: id }, text,
      onclick: () => { send(phraseMessage(id)); ui.set({ phrasesOpen: false }); },
    }))),
    h("label", { class: "phrase-mute" }, h("input", {
      type: "checkbox", checked: muted,
      onchange: (ev) => { localStorage.setItem(PHRASES_MUTED, ev.target.checked ? "1" : "0"); },
    }), "屏蔽别人的快捷语"));
}

function leaveAutoPlay() {
  ui.resumePrompt = false;
  ui.autoQueued = false;
  send(leaveAutoPlayMessage());
  draw();
}

function send(msg) {
  if (!conn.send(msg)) toast("连接已断开，操作未发送");
}

function handKey() {
  const obs = view.observation;
  return obs ? JSON.stringify([view.match && view.match.hand, obs.dealer, obs.streak, obs.seats.map((s) => s.river.length)]) : null;
}

function drawDialogs() {
  layer.replaceChildren();
  const obs = view.observation;
  const matchOver = view.stage === "over" || (view.match && (view.match.status === "finished" || view.match.status === "dissolved"));
  if (ui.baogang && obs && obs.phase !== "ended") {
    // In my seat's panel, above my hand: the hand and the clock stay in sight.
    const panel = root.querySelector(".seat-panel.mine .my-row");
    (panel ? (el) => panel.before(el) : (el) => layer.append(el))(baogangDialog(ui.baogang, {
      // The dialogue stays open while the server's panel does, so a refusal can be shown
      // (the server's message, e.g. "抱歉，不能选择更多的杠") and the ticks changed.
      onSubmit: (ticks) => ui.act({ type: "declare" }, ticks),
      onSkip: () => ui.act({ type: "declare" }),
      onToast: toast,
    }));
  }
  if (obs && obs.phase === "ended" && obs.result) {
    const summary = obs.result.settlement.summary || {};
    const key = handKey();
    if (summary.fanji && ui.fanjiShownFor !== key) {
      ui.fanjiShownFor = key;
      ui.fanjiUntil = Date.now() + FANJI_SECONDS * 1000;
      setTimeout(draw, FANJI_SECONDS * 1000 + 50);
    }
    if (Date.now() < ui.fanjiUntil) layer.append(fanjiDialog(summary));
    else if (ui.standings && matchOver) {
      layer.append(standingsDialog(view, (view.match && view.match.totals) || obs.result.settlement.totals, standingsOptions()));
    } else {
      const readyDone = ui.readySent || (view.match && (view.match.ready || []).includes(view.seat));
      layer.append(settlementDialog(view, {
        readyDone,
        matchOver,
        onReady: () => { ui.readySent = true; send(readyNextMessage()); draw(); },
        onStandings: () => ui.set({ standings: true }),
      }));
    }
  } else if (matchOver && view.match && view.match.totals) {
    layer.append(standingsDialog(view, view.match.totals, standingsOptions()));
  }
  if (view.dissolve) {
    layer.append(dissolveBar(view, view.dissolve, { onVote: (agree) => send(dissolveVoteMessage(agree)) }));
  }
  if (matchOver && view.rematch && view.rematch.state !== "none") {
    layer.append(rematchBar(view, view.rematch, {
      onAgree: () => send(rematchMessage()),
      onLeave: () => { if (window.confirm("确定离开这一桌吗？座位会让给别人。")) send(rematchLeaveMessage(LEAVE_ID)); },
      onLobby: () => { location.href = config.lobby; },
      onClub: () => { location.href = config.club; },
    }));
  }
  const mine = me();
  if (mine && !mine.auto_play && view.stage === "hand" && obs && obs.phase !== "ended") {
    // 托管 by choice, where 取消托管 appears once it is on; in a claim window it waits.
    const who = root.querySelector(".seat-panel.mine .who");
    if (who) {
      who.append(ui.autoQueued
        ? h("button", { class: "small act-auto queued", id: "auto-button", title: "取消", onclick: () => ui.set({ autoQueued: false }), text: "本轮后托管 ✕" })
        : h("button", { class: "small act-auto", id: "auto-button", onclick: chooseAutoPlay, text: "托管" }));
    }
  }
  if (mine && mine.auto_play && view.stage !== "over") {
    // Above my hand, in the flow of my seat's panel: nothing of mine is covered.
    const panel = root.querySelector(".seat-panel.mine") || layer;
    panel.prepend(h("div", { class: "auto-banner", id: "auto-banner", role: "status" },
      h("span", { class: "auto-text", text: "托管中" }), h("span", { class: "auto-hint", text: "系统正在替你出牌" }),
      h("button", { class: "act act-leave-auto", onclick: leaveAutoPlay, text: "取消托管" })));
    if (ui.resumePrompt) layer.append(resumeDialog({ onResume: leaveAutoPlay, onStay: () => ui.set({ resumePrompt: false }) }));
  }
  if (ui.showLast) drawLastSettlement();
  if (ui.phrasesOpen) layer.append(phrasePanel());
  if (view.replaced) {
    layer.replaceChildren(replacedDialog({ onTakeBack: () => location.reload() }));
  }
}

/** 上局结算: the last hand this page saw end in full, else the last one the server keeps. */
function drawLastSettlement() {
  const last = view.lastSettlement;
  const onClose = () => ui.set({ showLast: false });
  if (ui.lastEnded && (!last || ui.lastEnded.hand === last.hand)) {
    layer.append(settlementDialog({ ...view, observation: ui.lastEnded.observation, match: { ...view.match, hand: ui.lastEnded.hand } }, { onClose }));
  } else if (last) {
    layer.append(lastSettlementDialog(view, last, { onClose }));
  }
}

function standingsOptions() {
  const status = view.match && view.match.status;
  return {
    onLeave: () => { location.href = config.lobby; },
    resultUrl: view.match ? `/rooms/${config.room}/result/${view.match.match}/` : null,
    onRematch: () => send(rematchMessage()),
    reason: status === "dissolved" ? (ui.dissolveReason || "解散") : null,
  };
}

function drawTopbar() {
  const lastButton = document.getElementById("last-settlement-button");
  const playing = view.observation && view.observation.phase !== "ended";
  lastButton.hidden = !((view.lastSettlement || ui.lastEnded) && playing);
  for (const [id, on, word] of [["sound-button", sfxOn(), "音效"], ["voice-button", voiceOn(), "语音"]]) {
    const button = document.getElementById(id);
    button.textContent = `${word}${on ? "开" : "关"}`;
    button.setAttribute("aria-pressed", String(on));
  }
  const m = view.match;
  const obs = view.observation;
  document.getElementById("hand-no").textContent = m && m.hands_total ? `第${m.hand || 1}/${m.hands_total}局` : "";
  document.getElementById("wall-count").textContent = obs ? `余${obs.wall_remaining}张` : "";
}

function draw() {
  renderTable(root, view, ui);
  drawBubbles();
  drawTopbar();
  drawDialogs();
  tick();
  document.body.dataset.phase = (view.observation && view.observation.phase) || "none";
  document.body.dataset.version = view.v ?? "";
}

/** The moment my seat must act by: the deadline, or sooner in 托管 (the server plays then). */
function effectiveDeadline() {
  const mine = me();
  if (mine && mine.auto_play && myTurn() && view.autoDeadline) return Math.min(view.deadline || Infinity, view.autoDeadline);
  return view.deadline;
}

let lastTickSecond = null;
function tick() {
  const cd = document.getElementById("countdown");
  if (cd) {
    const playing = view.observation && view.observation.phase !== "ended";
    const deadline = effectiveDeadline();
    const left = deadline && playing ? Math.max(0, Math.ceil((deadline - Date.now()) / 1000)) : null;
    const paused = playing && view.pausedLeft !== null;
    cd.textContent = paused ? "暂停" : left === null ? "" : String(left);
    cd.classList.toggle("paused", paused);
    cd.classList.toggle("urgent", !paused && left !== null && left <= 5);
    const mine = me();
    if (!paused && left !== null && left <= 5 && left > 0 && myTurn() && !(mine && mine.auto_play) && left !== lastTickSecond) play("tick");
    lastTickSecond = left;
  }
  const next = document.getElementById("next-hand-countdown");
  if (next) {
    const left = view.stage === "between" && view.deadline ? Math.max(0, Math.ceil((view.deadline - Date.now()) / 1000)) : null;
    const first = !view.observation; // before hand 1: the wall waits for the seats' values
    next.textContent = view.pausedLeft !== null ? "计时暂停中" : left === null ? "" : `${left} 秒后${first ? "开局" : "开始下一局"}`;
  }
  const rc = document.getElementById("rematch-countdown");
  if (rc && view.rematch && view.rematch.deadline) {
    rc.textContent = `剩余 ${Math.max(0, Math.ceil((view.rematch.deadline - Date.now()) / 1000))} 秒`;
  }
  const dc = document.getElementById("dissolve-countdown");
  if (dc && view.dissolve && view.dissolve.deadline) {
    dc.textContent = `剩余 ${Math.max(0, Math.ceil((view.dissolve.deadline - Date.now()) / 1000))} 秒`;
  }
}
setInterval(tick, 250);

const moreButton = document.getElementById("more-button");
const moreMenu = document.getElementById("more-menu");
function showMore(open) {
  moreMenu.hidden = !open;
  moreButton.setAttribute("aria-expanded", String(open));
}
moreButton.addEventListener("click", () => showMore(moreMenu.hidden));
// A choice in the menu, or a tap elsewhere, closes it.
document.addEventListener("click", (ev) => { if (!moreButton.contains(ev.target) && !moreMenu.hidden) showMore(false); });

document.getElementById("last-settlement-button").addEventListener("click", () => ui.set({ showLast: true }));
document.getElementById("sound-button").addEventListener("click", () => { setSfxOn(!sfxOn()); draw(); });
document.getElementById("voice-button").addEventListener("click", () => {
  setVoiceOn(!voiceOn());
  if (!voiceOn() && window.speechSynthesis) window.speechSynthesis.cancel();
  draw();
});
document.getElementById("phrase-button").addEventListener("click", () => ui.set({ phrasesOpen: !ui.phrasesOpen }));
document.getElementById("dissolve-button").addEventListener("click", () => {
  if (window.confirm("确定申请解散牌局吗？")) send(dissolveProposeMessage());
});

// Tests and curious users may inspect the connection; nothing here holds hidden tiles.
window.mjTable = { view, ui, drop: () => conn.drop() };

draw();
conn.connect();
