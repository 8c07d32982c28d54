// The standings page's 保存成绩图: the result drawn on a canvas as a PNG, which a phone can
// keep in its album or send in a chat (an SVG it cannot). Drawn from the page's own data
// (`result-image-data`), in the page's CJK fonts, at twice the CSS size for sharp text.

const FONT = '"Noto Sans CJK SC", "Noto Sans SC", "PingFang SC", "Microsoft YaHei", sans-serif';
const SCALE = 2;
// The layout in CSS pixels: the image is (PAD*2 + LABEL + COLUMN*players) wide and
// (HEAD + NAMES + ROW*(rows+1) + FOOT) high, rows being the hands (at least one).
export const LAYOUT = { PAD: 24, LABEL: 84, COLUMN: 108, HEAD: 92, NAMES: 52, ROW: 34, FOOT: 44 };
const INK = "#2c2c2c";
const MUTED = "#888";
const PLUS = "#c0392b";
const MINUS = "#1f7a4a";
const LINE = "#e5dcc3";

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

function colour(n) {
  return n > 0 ? PLUS : n < 0 ? MINUS : INK;
}

/** `text` cut to `width` with an ellipsis. */
function fit(ctx, text, width) {
  if (ctx.measureText(text).width <= width) return text;
  let cut = text;
  while (cut.length > 1 && ctx.measureText(`${cut}…`).width > width) cut = cut.slice(0, -1);
  return `${cut}…`;
}

/** The standings `data` drawn on a new canvas. */
export function drawResult(data) {
  const { PAD, LABEL, COLUMN, HEAD, NAMES, ROW, FOOT } = LAYOUT;
  const n = data.players.length;
  const rows = Math.max(1, data.hands.length);
  const width = PAD * 2 + LABEL + COLUMN * n;
  const height = HEAD + NAMES + ROW * (rows + 1) + FOOT;
  const canvas = document.createElement("canvas");
  canvas.width = width * SCALE;
  canvas.height = height * SCALE;
  const ctx = canvas.getContext("2d");
  ctx.scale(SCALE, SCALE);
  ctx.fillStyle = "#fffaf0";
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = "#1f5f3f";
  ctx.fillRect(0, 0, width, 6);
  ctx.textBaseline = "middle";

  ctx.textAlign = "center";
  ctx.fillStyle = "#8b4513";
  ctx.font = `bold 22px ${FONT}`;
  ctx.fillText(fit(ctx, data.title, width - PAD * 2), width / 2, 36);
  ctx.fillStyle = MUTED;
  ctx.font = `14px ${FONT}`;
  ctx.fillText(fit(ctx, data.subtitle, width - PAD * 2), width / 2, 66);

  const x = (seat) => PAD + LABEL + COLUMN * seat + COLUMN / 2;
  const line = (y) => { ctx.fillStyle = LINE; ctx.fillRect(PAD, y, width - PAD * 2, 1); };
  // The big winner's column, lightly gilded.
  data.players.forEach((p, seat) => {
    if (!p.big_winner) return;
    ctx.fillStyle = "#fcefc4";
    ctx.fillRect(x(seat) - COLUMN / 2 + 2, HEAD, COLUMN - 4, NAMES + ROW * (rows + 1));
  });
  let y = HEAD;
  data.players.forEach((p, seat) => {
    ctx.fillStyle = INK;
    ctx.font = `bold 15px ${FONT}`;
    ctx.fillText(fit(ctx, p.name, COLUMN - 10), x(seat), y + (p.big_winner ? 16 : NAMES / 2));
    if (p.big_winner) {
      ctx.fillStyle = "#f4c542";
      ctx.beginPath();
      ctx.roundRect(x(seat) - 26, y + 29, 52, 18, 9);
      ctx.fill();
      ctx.fillStyle = "#5b3a0a";
      ctx.font = `bold 12px ${FONT}`;
      ctx.fillText("大赢家", x(seat), y + 38);
    }
  });
  y += NAMES;
  line(y);
  const label = (text, top, bold) => {
    ctx.textAlign = "left";
    ctx.fillStyle = bold ? INK : MUTED;
    ctx.font = `${bold ? "bold " : ""}14px ${FONT}`;
    ctx.fillText(text, PAD + 4, top + ROW / 2);
    ctx.textAlign = "center";
  };
  if (!data.hands.length) {
    ctx.fillStyle = MUTED;
    ctx.font = `14px ${FONT}`;
    ctx.fillText("没有打完的牌局", width / 2, y + ROW / 2);
    y += ROW;
    line(y);
  }
  for (const hand of data.hands) {
    label(`第${hand.number}局`, y, false);
    ctx.font = `15px ${FONT}`;
    hand.points.forEach((points, seat) => {
      ctx.fillStyle = colour(points);
      ctx.fillText(signed(points), x(seat), y + ROW / 2);
    });
    y += ROW;
    line(y);
  }
  label("合计", y, true);
  ctx.font = `bold 18px ${FONT}`;
  data.players.forEach((p, seat) => {
    ctx.fillStyle = colour(p.total);
    ctx.fillText(signed(p.total), x(seat), y + ROW / 2);
  });
  y += ROW;
  ctx.fillStyle = INK;
  ctx.fillRect(PAD, y, width - PAD * 2, 1.5);
  ctx.fillStyle = MUTED;
  ctx.font = `12px ${FONT}`;
  ctx.textAlign = "right";
  ctx.fillText(`麻将亲友圈 · ${data.when}`, width - PAD, y + FOOT / 2);
  return canvas;
}

async function main() {
  const data = JSON.parse(document.getElementById("result-image-data").textContent);
  await document.fonts.ready;
  const png = drawResult(data).toDataURL("image/png");
  const link = document.getElementById("result-image");
  link.href = png;
  link.hidden = false;
  document.getElementById("result-image-preview").src = png;
  document.getElementById("result-image-figure").hidden = false;
}

main();
