// The table's sounds, all made in the browser: WebAudio tones (a click for every discard, a
// chime for a claim, a fanfare for a win, my turn, the last seconds) and spoken calls through
// the browser's own speech synthesis in Mandarin (碰, 杠, 胡, 自摸, 报听/报叫, each discard's
// tile name). No audio files, nothing from the network. Where the browser has no Chinese
// voice, a call falls back to its tone. 音效 and 语音 are switched apart and remembered here.

import { tileName } from "./tiles.js";

const SFX_OFF = "mj-sound-muted"; // the old 声音 switch: off stays off
const VOICE_OFF = "mj-voice-off";
const SHAPES = {
  discard: [[1800, 0, 0.025]],
  pung: [[520, 0, 0.09], [660, 0.09, 0.12]],
  kong: [[440, 0, 0.08], [550, 0.08, 0.08], [660, 0.16, 0.14]],
  declare: [[660, 0, 0.1], [880, 0.1, 0.16]],
  win: [[523, 0, 0.12], [659, 0.12, 0.12], [784, 0.24, 0.12], [1047, 0.36, 0.3]],
  turn: [[880, 0, 0.08]],
  tick: [[1200, 0, 0.04]],
};

let audio = null;

export function sfxOn() {
  return localStorage.getItem(SFX_OFF) !== "1";
}

export function setSfxOn(on) {
  localStorage.setItem(SFX_OFF, on ? "0" : "1");
}

export function voiceOn() {
  return localStorage.getItem(VOICE_OFF) !== "1";
}

export function setVoiceOn(on) {
  localStorage.setItem(VOICE_OFF, on ? "0" : "1");
}

function tone(name) {
  if (!SHAPES[name]) return;
  try {
    audio = audio || new AudioContext();
    if (audio.state === "suspended") audio.resume();
    const now = audio.currentTime;
    for (const [freq, start, length] of SHAPES[name]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = name === "tick" || name === "discard" ? "square" : "triangle";
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + start);
      gain.gain.exponentialRampToValueAtTime(0.25, now + start + 0.005);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + start);
      osc.stop(now + start + length + 0.02);
    }
  } catch {
    // No audio in this browser: play silently.
  }
}

/** Play one of the tones when 音效 is on (nothing before the page was touched). */
export function play(name) {
  if (sfxOn()) tone(name);
}

/** The browser's Mandarin voice (zh-CN first, then any zh), or null. */
export function chineseVoice() {
  const synth = window.speechSynthesis;
  if (!synth) return null;
  const voices = synth.getVoices() || [];
  const lang = (v) => String(v.lang || "").replace("_", "-").toLowerCase();
  return voices.find((v) => lang(v) === "zh-cn") || voices.find((v) => lang(v).startsWith("zh")) || null;
}

/** Say `text` in Mandarin when 语音 is on; whether it was said (false: no Chinese voice). */
export function speak(text) {
  if (!voiceOn() || !text) return false;
  const voice = chineseVoice();
  if (!voice) return false;
  const words = new SpeechSynthesisUtterance(text);
  words.voice = voice;
  words.lang = voice.lang;
  words.rate = 1.15;
  window.speechSynthesis.speak(words);
  return true;
}

/** The tone of a logged event, if it has one. */
export function soundOf(event) {
  if (event.type === "discard") return "discard";
  if (event.type === "pung") return "pung";
  if (event.type === "kong" || event.type === "concealed_kong" || event.type === "added_kong") return "kong";
  if (event.type === "win") return "win";
  if (event.type === "declare") return "declare";
  return null;
}

/** The call a player would say aloud for an event: the discard's tile name, 碰, 杠, 胡,
 *  自摸, 报听 (都匀) or 报叫 (自贡); null for events nobody calls. */
export function callOf(event, variant) {
  if (event.type === "discard" && event.tile) return tileName(event.tile);
  if (event.type === "pung") return "碰";
  if (event.type === "kong") return "杠";
  if (event.type === "win") return event.source === "self_draw" ? "自摸" : "胡";
  if (event.type === "declare") return variant === "duyun" ? "报听" : "报叫";
  return null;
}

/** Sound out a live event: its tone (音效) and its call (语音). A call that cannot be said,
 *  for want of a Chinese voice, is played as its tone even with 音效 off. */
export function announce(event, variant) {
  const sound = soundOf(event);
  const call = callOf(event, variant);
  const said = call ? speak(call) : false;
  if (sound && (sfxOn() || (call && voiceOn() && !said))) tone(sound);
}
