// Copy buttons: one on every source panel, and one added to every fenced code block in the prose.
function wire(button: HTMLButtonElement, code: () => string) {
  button.hidden = false;
  const idle = button.innerHTML;
  // a button named by aria-label ("Copy queueKey") says what it shows while it shows it
  const idleName = button.getAttribute('aria-label');
  const say = (text: string) => {
    button.textContent = text;
    if (idleName) button.setAttribute('aria-label', text);
  };
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(code());
      say('Copied');
    } catch {
      say('Press Ctrl+C');
    }
    setTimeout(() => {
      button.innerHTML = idle;
      if (idleName) button.setAttribute('aria-label', idleName);
    }, 1600);
  });
}

for (const button of document.querySelectorAll<HTMLButtonElement>('.source-panel [data-copy]')) {
  const pre = button.closest('figure')!.querySelector('pre')!;
  wire(button, () => pre.innerText);
}

for (const pre of document.querySelectorAll<HTMLPreElement>('.prose pre')) {
  if (pre.closest('.source-panel')) continue;
  const wrap = document.createElement('div');
  wrap.className = 'code-block';
  pre.replaceWith(wrap);
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'copy-button';
  button.textContent = 'Copy';
  button.setAttribute('aria-label', 'Copy code');
  wrap.append(button, pre);
  wire(button, () => pre.innerText);
}
