// <emq-console>: the console panel's behaviour. Runs the lines typed (as redis-cli would split them, on
// the server) and shows each line's reply redis-cli style, the course section an error is explained in,
// each key's slot, the wire and the keyspace after. Its inputs live in the query string; Reset restores
// the page's example.

import { refusalOf } from '../../../server/contract/catalogue/problem.ts';
import type { ConsoleLine } from '../../../server/contract/experiments/console.ts';
import { joined, markup, show, type SafeHtml } from '../../lib/html.ts';
import { breakable, keyText } from '../explorer/key-text.ts';
import { clearState, readState, writeState } from '../explorer/url-state.ts';
import { cliReply, wireView } from '../explorer/wire-view.ts';

interface ConsoleResult {
  node: 'standalone' | 'cluster';
  lines: ConsoleLine[];
  keyspace: Array<{ key: string; slot: number; type: string; value: unknown }> | null;
}

// A refusal ends with the names the console runs; the page says them once, under the lines.
const ALLOWED_TAIL = /\. Allowed: (.*)$/s;

function lineView(line: ConsoleLine): SafeHtml {
  const answer =
    line.outcome === 'reply'
      ? cliReply(line.reply)
      : line.outcome === 'refused'
        ? `(refused by the console, never sent) ${line.error!.message.replace(ALLOWED_TAIL, '.')}`
        : `(error) ${line.error!.message}`;
  const reading = line.reading && markup`<p class="cn-reading">${line.reading}</p>`;
  const learn =
    line.error?.learn &&
    markup`<p class="cn-learn">Explained in <a href="${line.error.learn.href}">${line.error.learn.title}</a></p>`;
  const keys =
    line.keys.length > 0 &&
    markup`<p class="cn-keys">${joined(
      line.keys.map((k) => markup`${keyText(k.key)} slot <b>${k.slot}</b>`),
      ' · ',
    )}</p>`;
  const node = line.answeredBy && markup`<p class="cn-node">answered by node ${line.answeredBy}</p>`;
  return markup`<li class="cn-line is-${line.outcome}" data-outcome="${line.outcome}">
<code class="cn-input">&gt; ${breakable(line.input)}</code>
<pre class="cn-reply">${answer}</pre>${reading}${learn}${keys}${node}${wireView(line.wire, line.proof, 'On the wire')}</li>`;
}

/** The console's allow-list, said once when a line was refused by name. */
function allowedView(lines: ConsoleLine[]): SafeHtml | '' | undefined {
  const names = lines.map((line) => ALLOWED_TAIL.exec(line.error?.message ?? '')?.[1]).find(Boolean);
  return names && markup`<p class="cn-allowed" data-allowed><b>Allowed:</b> ${names}</p>`;
}

function keyspaceView(keyspace: ConsoleResult['keyspace']): SafeHtml {
  if (!keyspace)
    return markup`<p class="xp-note">On the cluster the console writes nothing, so there is no keyspace of its own to show.</p>`;
  const rows = keyspace.map(
    (k) =>
      markup`<li>${keyText(k.key)} <span class="xp-hint">${k.type} · slot ${k.slot}</span> <code class="cn-value">${JSON.stringify(k.value)}</code></li>`,
  );
  return markup`<details class="cn-keyspace"><summary>The keyspace after: ${keyspace.length} key${keyspace.length === 1 ? '' : 's'}</summary><ul>${rows}</ul></details>`;
}

export class EmqConsole extends HTMLElement {
  #defaults = { lines: '', node: 'standalone' };

  connectedCallback(): void {
    const form = this.querySelector<HTMLFormElement>('form')!;
    const text = form.querySelector<HTMLTextAreaElement>('textarea')!;
    this.#defaults = { lines: text.defaultValue, node: this.dataset.node ?? 'standalone' };
    const saved = readState('console');
    if (saved) this.#fill(saved.lines ?? this.#defaults.lines, saved.node ?? this.#defaults.node);
    form.addEventListener('input', () => writeState('console', this.#values(), this.#defaults));
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.#run();
    });
    // Ctrl+Enter (⌘+Enter on a Mac) runs the lines, as in most consoles; Enter alone adds a line.
    text.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
    this.querySelector('[data-reset]')!.addEventListener('click', () => {
      this.#fill(this.#defaults.lines, this.#defaults.node);
      clearState('console');
      this.#output().replaceChildren();
    });
    for (const button of this.querySelectorAll<HTMLButtonElement>('button')) button.disabled = false;
  }

  #output(): HTMLElement {
    return this.querySelector<HTMLElement>('[data-output]')!;
  }

  #values(): { lines: string; node: string } {
    const form = this.querySelector<HTMLFormElement>('form')!;
    const data = new FormData(form);
    return { lines: String(data.get('lines') ?? ''), node: String(data.get('node') ?? 'standalone') };
  }

  #fill(lines: string, node: string): void {
    this.querySelector<HTMLTextAreaElement>('textarea')!.value = lines;
    for (const radio of this.querySelectorAll<HTMLInputElement>('input[name="node"]'))
      radio.checked = radio.value === node;
  }

  async #run(): Promise<void> {
    const { lines, node } = this.#values();
    const body = { lines: lines.split('\n').filter((line) => line.trim() !== ''), node };
    const output = this.#output();
    const button = this.querySelector<HTMLButtonElement>('button[type="submit"]')!;
    button.disabled = true;
    output.setAttribute('aria-busy', 'true');
    try {
      const response = await fetch('/api/experiments/console', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const payload = (await response.json()) as { result?: ConsoleResult };
      if (!payload.result) {
        const { code, detail } = refusalOf(payload, response.status);
        show(
          output,
          markup`<p class="xp-refused"><span class="xp-badge is-refused">${code}</span> ${detail}</p>`,
        );
        return;
      }
      show(
        output,
        markup`<ol class="cn-lines">${payload.result.lines.map(lineView)}</ol>${allowedView(payload.result.lines)}${keyspaceView(payload.result.keyspace)}`,
      );
    } catch {
      show(output, markup`<p class="xp-refused">The site did not answer; is the network up?</p>`);
    } finally {
      button.disabled = false;
      output.removeAttribute('aria-busy');
    }
  }
}

customElements.define('emq-console', EmqConsole);
