// The fair shuffle as this browser sees it (docs/security.md, "Fairness players can check").
// For each match and hand, localStorage keeps what the table showed before the seed was
// revealed: the commitment first seen, this seat's own contribution, the contributions the
// deal announced and the tiles dealt to this seat. The replay page
// (static/ledgers/fairness.js) checks the revealed seed against these, not against the
// server's own rows, which a dishonest server could rewrite together.

const PREFIX = "mj-fair";
const KEEP = 2000; // hands kept (a few hundred bytes each); older ones are dropped

export function fairKey(match, hand) {
  return `${PREFIX}:${match}:${hand}`;
}

/** What this browser stored for a hand, or null. */
export function fairRecord(match, hand) {
  try {
    return JSON.parse(localStorage.getItem(fairKey(match, hand)));
  } catch {
    return null;
  }
}

/** Store `fields` for a hand, each only if not stored yet: the first sight is what counts. */
function remember(match, hand, fields) {
  const old = fairRecord(match, hand) || {};
  const add = Object.fromEntries(Object.entries(fields).filter(([k, v]) => v !== undefined && !(k in old)));
  if (!Object.keys(add).length) return;
  if (!("at" in old)) add.at = Date.now();
  try {
    localStorage.setItem(fairKey(match, hand), JSON.stringify({ ...old, ...add }));
  } catch {
    // Storage full or switched off: the table plays on, the replay will say nothing is kept.
  }
}

/** Drop the oldest hands beyond KEEP, so that storage stays small over years of play. */
function prune() {
  const keys = Object.keys(localStorage).filter((k) => k.startsWith(`${PREFIX}:`));
  if (keys.length <= KEEP) return;
  const at = (k) => { try { return JSON.parse(localStorage.getItem(k)).at || 0; } catch { return 0; } };
  keys.sort((a, b) => at(a) - at(b)).slice(0, keys.length - KEEP).forEach((k) => localStorage.removeItem(k));
}
try { prune(); } catch { /* storage switched off */ }

function randomHex() {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

const sent = new Set(); // hands this page has sent its contribution for

/** Note a frame's shuffle facts; between hands, contribute once to the committed next hand.
 *  `send(message)` returns whether the message went out. */
export function noteFrame(view, msg, send) {
  const table = msg.table;
  const match = table && table.match;
  if (!match) return;
  let hand = table.hand;
  // `early`: whether the commitment was first seen before the deal (a `commitment` event
  // or `table.next`), not at it or later (a page opened mid-hand).
  if (hand && table.commitment) remember(match, hand, { commitment: table.commitment, early: false });
  for (const e of msg.events || []) {
    if (e.type === "commitment") remember(match, e.hand, { commitment: e.commitment, early: true });
    if (e.type === "hand_start") {
      hand = e.hand;
      remember(match, hand, { commitment: e.commitment, early: false, dealt: e.contributions });
    }
    if (e.type === "deal" && e.tiles && e.seat === view.seat) remember(match, hand, { seat: e.seat, tiles: e.tiles });
  }
  const next = table.next;
  if (!next || view.seat === null || view.seat === undefined) return;
  remember(match, next.hand, { commitment: next.commitment, early: true });
  const key = fairKey(match, next.hand);
  if (sent.has(key) || next.contributions.some((c) => c.seat === view.seat)) return;
  // Another tab may have chosen this seat's value already: send the same one.
  remember(match, next.hand, { seat: view.seat, mine: randomHex() });
  const stored = fairRecord(match, next.hand);
  if (!stored) return; // nothing kept here, so nothing this browser could check later
  if (send({ type: "contribute", hand: next.hand, value: stored.mine })) sent.add(key);
}
