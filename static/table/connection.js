// A WebSocket that reconnects by itself. It reports its status ("connecting", "open",
// "closed") so the page can show the reconnect banner, and re-sends the resume message
// (with the last version seen) every time it opens. A socket can also die in silence (a
// phone that lost its signal gets no close for minutes): after QUIET_MS without a frame it
// sends `ping`, and when nothing at all comes within ANSWER_MS more it replaces the socket,
// which shows the banner until a new one opens.

const QUIET_MS = 10_000;
const ANSWER_MS = 5_000;

export class Connection {
  constructor(path, { onMessage, onStatus, hello }) {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    this.url = `${scheme}//${location.host}${path}`;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.hello = hello; // () => message to send on open, or null
    this.delay = 500;
    this.stopped = false;
    this.ws = null;
    this.heardAt = 0;
    this.pingedAt = null;
    setInterval(() => this.checkAlive(), 1000);
  }

  connect() {
    this.onStatus(this.ws ? "reconnecting" : "connecting");
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.delay = 500;
      this.heardAt = Date.now();
      this.pingedAt = null;
      const hello = this.hello();
      if (hello) ws.send(JSON.stringify(hello));
      this.onStatus("open");
    });
    ws.addEventListener("message", (ev) => {
      this.heardAt = Date.now();
      this.pingedAt = null;
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      if (msg.type === "pong") return;
      this.onMessage(msg);
    });
    ws.addEventListener("close", (ev) => {
      if (this.ws !== ws) return;
      if (ev.code === 4009) { // this seat was opened in another tab: that one plays now
        this.stopped = true;
        this.onStatus("replaced");
        return;
      }
      if (ev.code === 4429) { // this account or address holds too many table pages open
        this.stopped = true;
        this.onStatus("too_many");
        return;
      }
      if (this.stopped || ev.code === 4401 || ev.code === 4403 || ev.code === 4404) {
        this.onStatus(this.stopped ? "closed" : "refused");
        return;
      }
      this.onStatus("reconnecting");
      setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(this.delay * 2, 5000);
    });
  }

  /** Ping a quiet socket; replace one that did not answer (see the top of this file). */
  checkAlive() {
    const ws = this.ws;
    if (this.stopped || !ws || ws.readyState !== WebSocket.OPEN) return;
    const now = Date.now();
    if (this.pingedAt === null) {
      if (now - this.heardAt >= QUIET_MS) {
        ws.send(JSON.stringify({ type: "ping" }));
        this.pingedAt = now;
      }
    } else if (now - this.pingedAt >= ANSWER_MS) {
      this.connect(); // the old socket's events are ignored from now on
      ws.close();
    }
  }

  send(obj) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(obj));
      return true;
    }
    return false;
  }

  /** Drop the socket as if the network failed (used by the page's own checks). */
  drop() {
    if (this.ws) this.ws.close();
  }
}
