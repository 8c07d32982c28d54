// 账本核对: this browser keeps, per club, the last chain head it was shown (its row count
// and the last row's signature) and on every ledger and 结账 page checks that the club's
// chain still runs through it: the row at the kept place has the kept signature, each row
// after it names the one before, and the last is the head. A chain rolled back to an older
// backup, or a past rewritten, shows a warning naming what changed; the kept head is then
// kept as it was, as evidence, until the chain runs through it again. What this proves and
// what it doesn't: docs/security.md.

const box = document.getElementById("ledger-chain");
const key = `ledger-chain:${box.dataset.club}`;
const when = (at) => new Date(at).toLocaleString("zh-CN", { hour12: false });

/** Why the chain the server sent does not extend `kept`, in words; "" if it does. */
function broken(kept, chain) {
  if (chain.seq < kept.seq) {
    const gone = chain.seq + 1 === kept.seq ? `${kept.seq}` : `${chain.seq + 1}–${kept.seq}`;
    return `账本被回退了：本浏览器 ${when(kept.at)} 看到的账本有 ${kept.seq} 条记录，` +
      `现在只有 ${chain.seq} 条，第 ${gone} 条（输赢、调账或结账记录）不见了。`;
  }
  const [first, ...rest] = chain.links;
  if (!first || first[0] !== kept.seq || first[2] !== kept.last) {
    return `账本的历史被改写了：本浏览器 ${when(kept.at)} 看到的第 ${kept.seq} 条记录，` +
      `现在已和当时不同（账本现有 ${chain.seq} 条）。这一条或它之前的记录被改动、删除或替换过。`;
  }
  let previous = first;
  for (const link of rest) {
    if (link[0] !== previous[0] + 1 || link[1] !== previous[2]) {
      return `账本第 ${previous[0] + 1} 条记录不接在第 ${previous[0]} 条之后：中间的记录缺失或被改动过。`;
    }
    previous = link;
  }
  if (previous[0] !== chain.seq || previous[2] !== chain.last) {
    return `账本的最后一条记录（第 ${chain.seq} 条）与记录本身不符。`;
  }
  return "";
}

function warn(kept, what) {
  box.querySelector("[data-what]").textContent = what;
  box.querySelector("[data-kept]").textContent =
    `本浏览器保留着 ${when(kept.at)} 看到的账本（共 ${kept.seq} 条）。` +
    `核对口令：${box.dataset.club}:${kept.seq}:${kept.last}`;
  box.hidden = false;
}

async function check() {
  let kept = null;
  try {
    kept = JSON.parse(localStorage.getItem(key));
  } catch {
    kept = null;
  }
  const since = kept && Number.isInteger(kept.seq) ? kept.seq : 0;
  const response = await fetch(`${box.dataset.url}?since=${since}`, { credentials: "same-origin" });
  if (!response.ok) return;
  const chain = await response.json();
  const what = since ? broken(kept, chain) : "";
  if (what) {
    warn(kept, what);
    return;
  }
  if (chain.seq > 0) {
    localStorage.setItem(key, JSON.stringify({ seq: chain.seq, last: chain.last, at: Date.now() }));
  }
}

check();
