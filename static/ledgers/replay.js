// 战绩回放: steps through the server-computed frames of a settled hand (each pass joined
// to the step before it), forward and back, by hand or playing at a chosen speed, from
// any seat's point of view, ending on the settlement. The board and the words are drawn by
// replay-board.js; the seed check is fairness.js.

import { moveEl, seatsEl, settlementEl, stepsOf } from "./replay-board.js";

const data = JSON.parse(document.getElementById("replay-data").textContent);
const steps = stepsOf(data.frames);
const last = steps.length - 1;
const SPEEDS = [0.5, 1, 2, 4];
const STEP_MS = 1200; // one step at 1×
const root = document.getElementById("replay");
let step = 0;
let viewer = data.me ?? data.hand.dealer ?? 0;
let speed = 1;
let timer = null;

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children.flat()) if (c) node.append(c);
  return node;
}

/** The seat whose discard is the step's latest (its last river tile is marked). */
function lastDiscardOf(moves) {
  const discards = moves.filter((m) => m.kind === "discard" && m.effective);
  return discards.length ? discards[discards.length - 1].seat : null;
}

function show(n) {
  step = Math.max(0, Math.min(last, n));
  const current = steps[step];
  const state = current.state;
  const open = document.getElementById("open-hands").checked;
  document.getElementById("seats").replaceChildren(...seatsEl(data, state, viewer, {
    open, lastDiscard: lastDiscardOf(current.moves), actor: current.main.seat,
  }));
  document.getElementById("step-label").textContent = `第 ${step} / ${last} 步`;
  document.getElementById("wall-left").textContent = `余牌 ${state.wall_remaining}`;
  document.getElementById("step-moves").replaceChildren(...current.moves.map(moveEl));
  document.getElementById("step-range").value = String(step);
  const box = document.getElementById("settlement");
  box.hidden = step !== last;
  document.querySelectorAll("#step-list li").forEach((li) => {
    const here = Number(li.dataset.step) === step;
    li.classList.toggle("current", here);
    if (here) li.setAttribute("aria-current", "step");
    else li.removeAttribute("aria-current");
  });
  root.dataset.step = String(step);
}

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(() => {
    show(step + 1);
    if (step >= last) pause();
    else schedule();
  }, STEP_MS / speed);
}

function play() {
  if (step >= last) show(0);
  root.dataset.playing = "true";
  const button = document.getElementById("play");
  button.setAttribute("aria-pressed", "true");
  button.setAttribute("aria-label", "暂停");
  button.title = "暂停（空格）";
  schedule();
}

function pause() {
  clearTimeout(timer);
  timer = null;
  root.dataset.playing = "false";
  const button = document.getElementById("play");
  button.setAttribute("aria-pressed", "false");
  button.setAttribute("aria-label", "播放");
  button.title = "播放（空格）";
}

const playing = () => root.dataset.playing === "true";
const toggle = () => (playing() ? pause() : play());

/** Go to step `n` by hand; a running play goes on from there. */
function go(n) {
  show(n);
  if (playing()) {
    if (step >= last) pause();
    else schedule();
  }
}

function setSpeed(value) {
  speed = value;
  root.dataset.speed = String(value);
  document.querySelectorAll("[data-speed]").forEach((b) =>
    b.setAttribute("aria-pressed", String(Number(b.dataset.speed) === value)));
  if (playing()) schedule();
}

function setViewer(seat) {
  viewer = seat;
  root.dataset.viewer = String(seat);
  document.querySelectorAll("#seat-picker [data-seat]").forEach((b) =>
    b.setAttribute("aria-checked", String(Number(b.dataset.seat) === seat)));
  show(step);
}

function buildPicker() {
  const picker = document.getElementById("seat-picker");
  picker.replaceChildren(...data.players.map((p) => h("button", {
    type: "button", class: "seat-choice", role: "radio", "data-seat": String(p.seat),
    "aria-checked": "false", title: `从${p.name}的座位看`,
  }, h("span", { class: "wind", text: p.wind }), h("span", { class: "name", text: p.short }))));
  picker.querySelectorAll("[data-seat]").forEach((b) =>
    b.addEventListener("click", () => setViewer(Number(b.dataset.seat))));
}

function buildStepList() {
  const list = document.getElementById("step-list");
  list.replaceChildren(...steps.map((s, i) => {
    const li = h("li", { "data-step": String(i), class: s.main.effective ? "" : "void" },
      h("button", { type: "button", class: "link", text: s.main.text }));
    li.querySelector("button").addEventListener("click", () => go(i));
    return li;
  }));
  document.getElementById("step-count").textContent = String(last);
}

const range = document.getElementById("step-range");
range.max = String(last);
range.addEventListener("input", (e) => go(Number(e.target.value)));
const moves = { first: () => 0, prev: () => step - 1, next: () => step + 1, last: () => last };
document.querySelectorAll("[data-step]").forEach((b) => {
  if (b.tagName === "BUTTON" && moves[b.dataset.step]) b.addEventListener("click", () => go(moves[b.dataset.step]()));
});
document.getElementById("play").addEventListener("click", toggle);
document.querySelectorAll("[data-speed]").forEach((b) =>
  b.addEventListener("click", () => setSpeed(Number(b.dataset.speed))));
document.getElementById("open-hands").addEventListener("change", () => show(step));
// Space plays and pauses, the arrows step, Home and End jump; a control with keys of its
// own (the slider, a text field) keeps them.
document.addEventListener("keydown", (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  const target = e.target;
  const typing = target instanceof HTMLElement && (target.isContentEditable
    || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
  if (typing && !(e.key === " " && target.type === "range")) return;
  if (e.key === " ") toggle();
  else if (e.key === "ArrowRight") go(step + 1);
  else if (e.key === "ArrowLeft") go(step - 1);
  else if (e.key === "Home") go(0);
  else if (e.key === "End") go(last);
  else return;
  e.preventDefault();
});
// A focused button would also take the space as a click when it is let go.
document.addEventListener("keyup", (e) => {
  if (e.key === " " && e.target instanceof HTMLButtonElement) e.preventDefault();
});
settlementEl(data, document.getElementById("settlement"));
buildPicker();
buildStepList();
setSpeed(SPEEDS.includes(1) ? 1 : SPEEDS[0]);
pause();
setViewer(viewer);
root.dataset.steps = String(last);
root.dataset.ready = "true";
