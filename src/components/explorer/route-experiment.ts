// route and reshard: the node strip follows the queue name as the reader types (the slot from the real
// keyspace module, the owners from the last layout the cluster reported); "Route it" and "Move its slot"
// run the experiments and show what the cluster answered; "Move it atomically" runs the reshard's
// atomic mode (Valkey 9.1), and the two reshard modes' answers stand side by side.
import type { ReshardResult } from '../../../server/experiments/reshard.ts';
import type { RouteNode, RouteResult } from '../../../server/experiments/route.ts';
import { queueKey, slot } from '../../../server/keyspace/index.ts';
import { defineExperiment, type ExplorerApi } from './explorer-api.ts';
import { markup, show } from '../../lib/html.ts';
import { refusalText } from './explorer-view.ts';
import { queueRefusal, queueRefusedView } from './queue-refusal.ts';
import { nodeStrip, routePins, routeView, sharedSlotNote } from './node-view.ts';
import { reshardColumns, reshardView } from './reshard-view.ts';

const FALLBACK_NODES: RouteNode[] = [
  { address: 'sandbox', slots: [[0, 5460]] },
  { address: 'sandbox', slots: [[5461, 10922]] },
  { address: 'sandbox', slots: [[10923, 16383]] },
];

export function wireRoute(section: HTMLElement, api: ExplorerApi): void {
  const form = section.querySelector<HTMLFormElement>('[data-form]')!;
  const input = form.elements.namedItem('queue') as HTMLInputElement;
  const map = section.querySelector('[data-node-map]')!;
  const shared = section.querySelector('[data-shared]')!;
  const region = section.querySelector('[data-result]')!;
  let nodes = FALLBACK_NODES;

  const draw = () => {
    const refused = queueRefusal(input.value);
    if (refused) {
      show(region, queueRefusedView(refused));
      return;
    }
    const n = slot(queueKey(input.value, 'pending'));
    show(map, nodeStrip(nodes, routePins(input.value, n)));
    show(shared, sharedSlotNote(input.value, n));
  };

  /**
   * A reshard in one mode fills that mode's column and keeps the other's last answer, so the two ways a
   * slot moves stand side by side.
   */
  const reshard = async (mode: 'keys' | 'atomic') => {
    if (!region.querySelector('[data-reshard-modes]')) show(region, reshardColumns());
    const column = region.querySelector<HTMLElement>(`[data-reshard-mode="${mode}"] [data-column]`)!;
    show(
      column,
      markup`<p class="xp-note">${mode === 'keys' ? 'Moving the slot key by key' : 'Moving the slot atomically'}…</p>`,
    );
    const outcome = await api.run<ReshardResult>('reshard', { queue: input.value, mode });
    show(column, outcome.ok ? reshardView(outcome.result) : refusalText(outcome.code, outcome.message));
  };

  form.addEventListener('input', draw);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = (event.submitter as HTMLButtonElement | null)?.value ?? 'route';
    const refused = queueRefusal(input.value);
    if (refused) {
      show(region, queueRefusedView(refused));
      return;
    }
    if (button === 'reshard' || button === 'reshard-atomic') {
      await reshard(button === 'reshard' ? 'keys' : 'atomic');
      return;
    }
    show(region, markup`<p class="xp-note">Routing…</p>`);
    const outcome = await api.run<RouteResult>('route', { queue: input.value });
    if (!outcome.ok) {
      show(region, refusalText(outcome.code, outcome.message));
      return;
    }
    nodes = outcome.result.nodes;
    draw();
    shared.replaceChildren();
    show(region, routeView(outcome.result));
  });
}

defineExperiment('emq-route-experiment', wireRoute);
