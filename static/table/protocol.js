// The table protocol as the page uses it (docs/protocol.md is the reference).
// Server frames are folded into one plain `view` object that render.js draws; client
// messages are built here so that no other module knows the wire format.

/** A fresh, empty view. */
export function emptyView() {
  return {
    v: null, // last version seen
    seat: null, // my seat, null for spectators
    observation: null,
    players: [], // [{seat, name, connected, auto_play}]
    deadline: null, // ms since epoch, or null
    stage: null, // "hand" | "between" | "over"
    match: null, // the frame's `table`: {hand, hands_total, hands_played, totals, status, stage, ready, players, dissolve}
    dissolve: null, // {proposer, votes: {seat: bool}, deadline}
    autoDeadline: null, // ms: when a pending seat in 托管 acts (its real deadline)
    pausedLeft: null, // ms left on a paused clock (dissolve vote, table offline), or null
    lastSettlement: null, // {hand, settlement} of the last ended hand (上局结算)
    rematch: null, // the room's 再来一场 prompt: {state, deadline, seat_count, seats: [{seat, name, agreed, computer}]}
    replaced: false, // this seat was opened in another tab (the server closed us: 4009)
    events: [],
  };
}

function toMillis(value) {
  if (value === null || value === undefined) return null;
  if (typeof value === "number") return value < 1e11 ? value * 1000 : value;
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : t;
}

/** Fold one server frame into `view`; returns what happened: "state", "error" or null.
 *  Frames: snapshot {v, seat, observation, table}, update/catchup {from, v, events,
 *  observation, table}, waiting {seat} (no match yet), error {code, message, v}. */
export function applyFrame(view, msg) {
  if (msg.type === "error") return "error";
  if (msg.type === "waiting") {
    if (msg.seat !== undefined) view.seat = msg.seat;
    view.stage = "waiting";
    return "state";
  }
  if (msg.type === "rematch") {
    // Not versioned: the room's shared 再来一场 prompt (open, expired, or none).
    view.rematch = { state: msg.state, deadline: toMillis(msg.deadline), seat_count: msg.seat_count, seats: msg.seats };
    return "state";
  }
  if (msg.type === "replaced") {
    view.replaced = true;
    return "state";
  }
  if (msg.type === "presence") {
    // Not versioned: who is connected now ({seat, connected} per seat).
    const on = new Map(msg.players.map((p) => [p.seat, p.connected]));
    view.players = view.players.map((p) => (on.has(p.seat) ? { ...p, connected: on.get(p.seat) } : p));
    return "state";
  }
  if (!["snapshot", "update", "catchup"].includes(msg.type)) return null;
  if (msg.v !== undefined) view.v = msg.v;
  if (msg.type === "snapshot") view.events = [];
  if (msg.seat !== undefined) view.seat = msg.seat;
  if (msg.observation !== undefined) {
    view.observation = msg.observation;
    view.hints = msg.hints || []; // 听牌提示 for this observation (room setting)
  }
  const table = msg.table;
  if (table && view.match && table.match !== view.match.match) {
    // The room's next match (再来一场): nothing of the last one carries over.
    view.lastSettlement = null;
    view.rematch = null;
    view.events = [];
  }
  if (table) {
    view.match = table;
    view.stage = table.stage;
    view.deadline = toMillis(table.deadline);
    if (Array.isArray(table.players)) {
      // `connected` is null in updates (presence is not versioned): keep what we knew.
      const known = new Map(view.players.map((p) => [p.seat, p.connected]));
      view.players = table.players.map((p) => (
        p.connected === null && known.has(p.seat) ? { ...p, connected: known.get(p.seat) } : p));
    }
    view.dissolve = table.dissolve || null;
    view.autoDeadline = toMillis(table.auto_deadline);
    view.pausedLeft = table.paused_left ?? null;
  }
  if (msg.last_settlement) view.lastSettlement = msg.last_settlement;
  if (Array.isArray(msg.events)) {
    for (const e of msg.events) if (e.type === "settlement") view.lastSettlement = { hand: e.hand, settlement: e.settlement };
    view.events = view.events.concat(msg.events).slice(-30);
  }
  return "state";
}

/** The message sent on every (re)connect: catch up from the last version seen. */
export function resumeMessage(view) {
  return view.v === null ? { type: "hello" } : { type: "hello", v: view.v };
}

/** A rules action from a legal-action entry, e.g. {type: "discard", tile: "5m"}. */
export function actionMessage(view, action, ticks) {
  const msg = { type: action.type, v: view.v };
  if (action.tile) msg.tile = action.tile;
  if (action.declare) msg.declare = true;
  if (ticks !== undefined) msg.ticks = ticks;
  return msg;
}

export const readyNextMessage = () => ({ type: "ready_next" });
export const dissolveProposeMessage = () => ({ type: "dissolve_propose" });
export const dissolveVoteMessage = (agree) => ({ type: "dissolve_vote", agree });
export const leaveAutoPlayMessage = () => ({ type: "resume" });
export const autoPlayMessage = () => ({ type: "auto_play" });
export const rematchMessage = () => ({ type: "rematch" });
export const rematchLeaveMessage = (id) => ({ type: "rematch_leave", id });
export const phraseMessage = (phrase) => ({ type: "phrase", phrase });
