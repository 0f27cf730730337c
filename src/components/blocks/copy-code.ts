// Copy buttons: one on every source panel, and one added to every fenced code block in the prose.
function wire(button: HTMLButtonElement, code: () => string) {
  button.hidden = false;
  const idle = button.innerHTML;
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(code());
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Press Ctrl+C';
    }
    setTimeout(() => (button.innerHTML = idle), 1600);
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
