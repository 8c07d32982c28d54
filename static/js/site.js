// Small behaviours shared by the pages: confirmations, copy buttons and share dialogs.
(() => {
  // <form data-confirm="确定……？">: ask before an irreversible action.
  document.addEventListener("submit", (event) => {
    const message = event.target.dataset && event.target.dataset.confirm;
    if (message && !window.confirm(message)) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);

  async function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return;
    }
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }

  document.addEventListener("click", async (event) => {
    const copy = event.target.closest("[data-copy]");
    if (copy) {
      event.preventDefault();
      const source = document.getElementById(copy.dataset.copy);
      const text = source ? (source.value || source.textContent).trim() : "";
      const label = copy.dataset.label || copy.textContent;
      copy.dataset.label = label;
      try {
        await copyText(text);
        copy.textContent = "已复制";
      } catch (error) {
        if (source && source.select) source.select();
        copy.textContent = "请长按复制";
      }
      setTimeout(() => { copy.textContent = label; }, 2000);
      return;
    }
    const open = event.target.closest("[data-open]");
    if (open) {
      const dialog = document.getElementById(open.dataset.open);
      if (dialog && dialog.showModal) { event.preventDefault(); dialog.showModal(); }
      return;
    }
    const close = event.target.closest("[data-close]");
    if (close) {
      event.preventDefault();
      close.closest("dialog").close();
      return;
    }
    if (event.target.tagName === "DIALOG") event.target.close();  // a tap on the backdrop
  });
})();
