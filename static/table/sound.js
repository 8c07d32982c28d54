// Short generated sounds (WebAudio, no files): 碰, 杠, 胡, my turn and the last seconds.
// Muting is remembered in this browser (localStorage).

const KEY = "mj-sound-muted";
const SHAPES = {
  pung: [[520, 0, 0.09], [660, 0.09, 0.12]],
  kong: [[440, 0, 0.08], [550, 0.08, 0.08], [660, 0.16, 0.14]],
  win: [[523, 0, 0.12], [659, 0.12, 0.12], [784, 0.24, 0.12], [1047, 0.36, 0.3]],
  turn: [[880, 0, 0.08]],
  tick: [[1200, 0, 0.04]],
};

let audio = null;

export function soundMuted() {
  return localStorage.getItem(KEY) === "1";
}

export function setSoundMuted(muted) {
  localStorage.setItem(KEY, muted ? "1" : "0");
}

/** Play one of the sounds (nothing when muted or before the page was touched). */
export function play(name) {
  if (soundMuted() || !SHAPES[name]) return;
  try {
    audio = audio || new AudioContext();
    if (audio.state === "suspended") audio.resume();
    const now = audio.currentTime;
    for (const [freq, start, length] of SHAPES[name]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = name === "tick" ? "square" : "triangle";
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + start);
      gain.gain.exponentialRampToValueAtTime(0.25, now + start + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + start);
      osc.stop(now + start + length + 0.02);
    }
  } catch {
    // No audio in this browser: play silently.
  }
}

/** The sound of a logged event, if it has one. */
export function soundOf(event) {
  if (event.type === "pung") return "pung";
  if (event.type === "kong" || event.type === "concealed_kong" || event.type === "added_kong") return "kong";
  if (event.type === "win") return "win";
  return null;
}
