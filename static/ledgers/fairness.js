// 洗牌公证 on the replay page: checks the revealed seed in this browser, against what this
// browser stored while the hand was played (static/table/fairness.js), so that a server
// that rewrote both its seed and its commitment afterwards is still caught.
//   1. sha256(salt + seed) equals the commitment this browser saw (before the deal, or only
//      after it for a page opened mid-hand: the summary says which);
//   2. this seat's own contribution is in the hand's list (and the list is the one the deal
//      announced);
//   3. the wall seed, sha256(seed + "|seat:value"…), shuffles a wall that deals this seat
//      exactly the tiles it was dealt, and that is the wall of the hand's record.
// With nothing stored (another device, another browser) only the server's data can be
// compared with itself, and the page says so.

import { fairRecord } from "../table/fairness.js";

const data = JSON.parse(document.getElementById("replay-data").textContent);
const seed = data.seed;
const utf8 = (text) => new TextEncoder().encode(text);

async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

const hex = (bytes) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** majiang.wall.wall_seed: the seed mixed with every seat's contribution, in seat order. */
async function wallSeed(serverSeed, contributions) {
  const mixed = [...contributions].sort((a, b) => a.seat - b.seat).map((c) => `|${c.seat}:${c.value}`).join("");
  return mixed ? hex(await sha256(utf8(serverSeed + mixed))) : serverSeed;
}

// The wall shuffle of majiang.wall: Fisher–Yates driven by SHA-256(seed || counter_be32).
async function shuffledWall(kinds, wallSeedText) {
  const tiles = kinds.flatMap((k) => [k, k, k, k]);
  const base = utf8(wallSeedText);
  let counter = 0;
  let block = null;
  let offset = 32;
  async function next() {
    if (offset >= 32) {
      const buf = new Uint8Array(base.length + 4);
      buf.set(base);
      new DataView(buf.buffer).setUint32(base.length, counter);
      block = await sha256(buf);
      counter += 1;
      offset = 0;
    }
    let x = 0n;
    for (let i = 0; i < 8; i++) x = (x << 8n) | BigInt(block[offset + i]);
    offset += 8;
    return x;
  }
  for (let i = tiles.length - 1; i > 0; i--) {
    const j = Number((await next()) % BigInt(i + 1));
    [tiles[i], tiles[j]] = [tiles[j], tiles[i]];
  }
  return tiles;
}

/** The tiles `wall` deals to `seat` (majiang.round: 13 each from the dealer on, then one
 *  more to the dealer), sorted. */
function dealtFrom(wall, seat) {
  const players = data.players.length;
  const i = (seat - data.hand.dealer + players) % players;
  const tiles = wall.slice(13 * i, 13 * i + 13);
  if (seat === data.hand.dealer) tiles.push(wall[13 * players]);
  return tiles.sort();
}

const sameList = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const contributionsText = (list) => list.map((c) => `${c.seat + 1}号位`).join("、") || "无";

/** What a consistent check proved, in words. */
function checked(stored) {
  const n = seed.contributions.length;
  return [
    stored.early ? "承诺是本浏览器开局前记下的"
      : "承诺是本浏览器开局后才记下的，只能证明开局后没有再改",
    n ? `牌墙由种子和 ${n} 个座位的随机数共同决定`
      : "没有座位提交随机数，牌墙只由服务器的种子决定",
  ].join("；");
}

async function check() {
  const stored = fairRecord(data.hand.match, data.hand.number);
  const commitment = hex(await sha256(utf8(seed.salt + seed.seed)));
  const mixed = await wallSeed(seed.seed, seed.contributions);
  const wall = await shuffledWall(seed.kinds, mixed);
  const rows = []; // [ok, text]
  if (stored && stored.commitment) {
    const when = stored.early ? "开局前" : "开局后（中途打开牌桌时）";
    rows.push([commitment === stored.commitment, commitment === stored.commitment
      ? `承诺一致：sha256(salt + seed) 等于本浏览器${when}记下的承诺`
      : `承诺不一致：sha256(salt + seed) = ${commitment}，本浏览器${when}记下的是 ${stored.commitment}`]);
  } else {
    rows.push([commitment === seed.commitment, "本浏览器没有这一局的记录（可能在别的设备上玩的），只能与服务器保存的承诺对照："
      + (commitment === seed.commitment ? "一致" : "不一致")]);
  }
  if (stored && stored.mine) {
    const mine = seed.contributions.some((c) => c.seat === stored.seat && c.value === stored.mine);
    rows.push([mine, mine ? "你提交的随机数在本局的列表中" : "你提交的随机数不在本局的列表中"]);
  } else if (stored) {
    rows.push([true, "你没有为这一局提交随机数（第1局，或托管、离线、来不及时，都不提交）"]);
  }
  if (stored && stored.dealt) {
    const same = sameList(stored.dealt, seed.contributions);
    rows.push([same, same ? "随机数列表与发牌时公布的一致" : "随机数列表与发牌时公布的不一致"]);
  }
  if (stored && stored.tiles) {
    const same = sameList(dealtFrom(wall, stored.seat), [...stored.tiles].sort());
    rows.push([same, same ? "由 seed 和随机数洗出的牌墙发给你的牌，与你当时拿到的一致"
      : "由 seed 和随机数洗出的牌墙发给你的牌，与你当时拿到的不一致"]);
  }
  const recordOk = mixed === seed.wall_seed && wall.join(" ") === seed.wall.join(" ");
  rows.push([recordOk, `牌墙种子 = sha256(seed + 各座位随机数)，参与的座位：${contributionsText(seed.contributions)}；`
    + `洗出的牌墙与牌谱${recordOk ? "一致" : "不一致"}`]);
  const out = document.getElementById("verify-result");
  const ok = rows.every(([good]) => good);
  out.replaceChildren(...rows.map(([good, text]) => {
    const li = document.createElement("li");
    li.textContent = `${good ? "✔" : "✘"} ${text}`;
    li.dataset.ok = String(good);
    return li;
  }));
  out.dataset.ok = String(ok);
  out.dataset.stored = String(!!stored);
  if (!ok) {  // the card opens collapsed on its plain sentence: a mismatch must not hide
    document.getElementById("seed-plain").textContent =
      "本浏览器核对的结果与服务器的数据对不上，这一局的牌墙可能被改动过，详见下方。";
    document.getElementById("seed-check").open = true;
  }
  // Without this browser's record, agreement proves only that the server agrees with itself.
  // and "一致" says exactly what was checked: when the commitment was kept, who mixed in.
  document.getElementById("verify-summary").textContent = !ok ? "✘ 不一致"
    : stored ? `✔ 一致：${checked(stored)}` : "无本机记录（只能与服务器自己的数据对照）";
}

document.getElementById("verify").addEventListener("click", check);
check();
