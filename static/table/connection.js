// A WebSocket that reconnects by itself. It reports its status ("connecting", "open",
// "closed") so the page can show the reconnect banner, and re-sends the resume message
// (with the last version seen) every time it opens.

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
  }

  connect() {
    this.onStatus(this.ws ? "reconnecting" : "connecting");
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.addEventListener("open", () => {
      this.delay = 500;
      const hello = this.hello();
      if (hello) ws.send(JSON.stringify(hello));
      this.onStatus("open");
    });
    ws.addEventListener("message", (ev) => {
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
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
