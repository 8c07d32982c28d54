// The table page: connect, fold frames into the view, render, and send the player's
// choices. State that exists only in this browser (an open dialogue, 报叫 mode) is `ui`.

import { Connection } from "./connection.js";
import {
  FANJI_SECONDS, baogangDialog, dissolveDialog, fanjiDialog, settlementDialog, standingsDialog,
} from "./dialogs.js";
import {
  actionMessage, applyFrame, dissolveProposeMessage, dissolveVoteMessage, emptyView,
  readyNextMessage, resumeMessage,
} from "./protocol.js";
import { renderTable } from "./render.js";

const config = JSON.parse(document.getElementById("table-config").textContent);
const root = document.getElementById("table-root");
const layer = document.getElementById("dialog-layer");
const banner = document.getElementById("reconnect-banner");
const toastEl = document.getElementById("toast");

const view = emptyView();
view.seat = config.seat;

const ui = {
  kongChoice: false,
  declareMode: false,
  baogang: null, // {options, checked} while the server waits for my 报杠 choice (Z20)
  fanjiUntil: 0, // the 翻鸡 reveal stays up until this time (ms)
  fanjiShownFor: null, // the hand (by version) whose reveal was already shown
  readySent: false,
  standings: false,
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
let resyncTimer = null;

const conn = new Connection(config.ws, {
  hello: () => resumeMessage(view),
  onStatus(status) {
    banner.hidden = status === "open" || status === "connecting";
    banner.textContent = status === "refused" ? "无法进入牌桌" : "连接已断开，正在重新连接…";
    document.body.dataset.connection = status;
  },
  onMessage(msg) {
    const kind = applyFrame(view, msg);
    if (kind === "error") {
      if (msg.code === "unavailable") {
        // The server cannot reach its database: say so, and resync until it can (a move
        // whose reply was lost may have been saved; the catch-up shows it).
        banner.hidden = false;
        banner.textContent = msg.message || "服务器正在重连…";
        clearTimeout(resyncTimer);
        resyncTimer = setTimeout(() => conn.send(resumeMessage(view)), RESYNC_MS);
        return;
      }
      // A stale action raced a newer state, which is already on its way: no need to alarm.
      if (msg.code !== "stale_version") toast(msg.message || "操作无效");
      return;
    }
    if (kind !== "state") return;
    if (document.body.dataset.connection === "open") banner.hidden = true;
    const obs = view.observation;
    followBaogangPanel(obs);
    if (!obs || !obs.me || !(obs.me.legal || []).length) {
      ui.kongChoice = false;
      ui.declareMode = false;
    }
    if (obs && obs.phase !== "ended") ui.readySent = false;
    draw();
  },
});

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
    layer.append(baogangDialog(ui.baogang, {
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
      layer.append(standingsDialog(view, (view.match && view.match.totals) || obs.result.settlement.totals, { onLeave: () => { location.href = config.lobby; } }));
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
    layer.append(standingsDialog(view, view.match.totals, { onLeave: () => { location.href = config.lobby; } }));
  }
  if (view.dissolve) {
    layer.append(dissolveDialog(view, view.dissolve, { onVote: (agree) => send(dissolveVoteMessage(agree)) }));
  }
}

function drawTopbar() {
  const m = view.match;
  const obs = view.observation;
  document.getElementById("hand-no").textContent = m && m.hands_total ? `第${m.hand || 1}/${m.hands_total}局` : "";
  document.getElementById("wall-count").textContent = obs ? `余${obs.wall_remaining}张` : "";
}

function draw() {
  renderTable(root, view, ui);
  drawTopbar();
  drawDialogs();
  tick();
  document.body.dataset.phase = (view.observation && view.observation.phase) || "none";
  document.body.dataset.version = view.v ?? "";
}

function tick() {
  const cd = document.getElementById("countdown");
  if (cd) {
    const left = view.deadline && view.observation && view.observation.phase !== "ended"
      ? Math.max(0, Math.ceil((view.deadline - Date.now()) / 1000)) : null;
    cd.textContent = left === null ? "" : String(left);
    cd.classList.toggle("urgent", left !== null && left <= 5);
  }
  const dc = document.getElementById("dissolve-countdown");
  if (dc && view.dissolve && view.dissolve.deadline) {
    dc.textContent = `剩余 ${Math.max(0, Math.ceil((view.dissolve.deadline - Date.now()) / 1000))} 秒`;
  }
}
setInterval(tick, 250);

document.getElementById("dissolve-button").addEventListener("click", () => {
  if (window.confirm("确定申请解散牌局吗？")) send(dissolveProposeMessage());
});

// Tests and curious users may inspect the connection; nothing here holds hidden tiles.
window.mjTable = { view, ui, drop: () => conn.drop() };

draw();
conn.connect();
