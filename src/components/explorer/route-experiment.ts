// route and reshard: the node strip follows the queue name as the reader types (the slot from the real
// keyspace module, the owners from the last layout the cluster reported); "Route it" and "Move its slot"
// run the experiments and show what the cluster answered.
import type { ReshardResult } from '../../../server/experiments/reshard.ts';
import type { RouteNode, RouteResult } from '../../../server/experiments/route.ts';
import { queueKey, slot } from '../../../server/keyspace/index.ts';
import { defineExperiment, type ExplorerApi } from './explorer-api.ts';
import { refusalText } from './explorer-view.ts';
import { queueRefusal, queueRefusedView } from './queue-refusal.ts';
import { nodeStrip, routePins, routeView, sharedSlotNote } from './node-view.ts';
import { reshardView } from './reshard-view.ts';

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
      region.innerHTML = queueRefusedView(refused);
      return;
    }
    const n = slot(queueKey(input.value, 'pending'));
    map.innerHTML = nodeStrip(nodes, routePins(input.value, n));
    shared.innerHTML = sharedSlotNote(input.value, n);
  };

  form.addEventListener('input', draw);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const which = (event.submitter as HTMLButtonElement | null)?.value === 'reshard' ? 'reshard' : 'route';
    const refused = queueRefusal(input.value);
    if (refused) {
      region.innerHTML = queueRefusedView(refused);
      return;
    }
    region.innerHTML = `<p class="xp-note">${which === 'route' ? 'Routing' : 'Moving the slot'}…</p>`;
    const outcome = await api.run<RouteResult | ReshardResult>(which, { queue: input.value });
    if (!outcome.ok) {
      region.innerHTML = refusalText(outcome.code, outcome.message);
      return;
    }
    if (which === 'route') {
      const r = outcome.result as RouteResult;
      nodes = r.nodes;
      draw();
      shared.innerHTML = '';
      region.innerHTML = routeView(r);
    } else {
      region.innerHTML = reshardView(outcome.result as ReshardResult);
    }
  });
}

defineExperiment('emq-route-experiment', wireRoute);
