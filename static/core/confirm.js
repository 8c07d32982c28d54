// Forms that ask before they submit: <form data-confirm="确定…？">. A static script,
// because the Content-Security-Policy allows no inline event handlers (onsubmit=…).
document.addEventListener("submit", (event) => {
  const form = event.target;
  const question = form instanceof HTMLFormElement ? form.dataset.confirm : undefined;
  if (question && !window.confirm(question)) {
    event.preventDefault();
    event.stopImmediatePropagation();
  }
}, true);
