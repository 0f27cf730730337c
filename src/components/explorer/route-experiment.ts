// route and reshard: the slot map follows the queue name as the reader types (the slot from the real
// keyspace module, the owners from the last layout the cluster reported); "Route it" reads the layout
// live (CLUSTER SHARDS) and shows what the cluster answered; "Move its slot" and "Move it atomically"
// run the reshard in either mode at the size picked, and "Compare both ways" runs both, one after the
// other, at the largest size (where the difference shows every time: bench/reshard-sizes.ts); each mode's
// answer a stepper, both modes' workers on one time axis, and the slot map follows the phase the stepper
// shows (the slot's owner, open states). While a reshard runs, its buttons are disabled.
import {
  DEFAULT_MIGRATION_SIZE,
  MIGRATION_SIZES,
  type MigrationResult,
} from '../../../server/contract/experiments/migration.ts';
import type { RouteNode } from '../../../server/contract/experiments/route.ts';
import { queueSlot } from '../../../server/contract/keyspace/index.ts';
import { defineExperiment, type ExperimentApi } from './explorer-api.ts';
import { markup, show } from '../../lib/html.ts';
import { refusalText } from './refusal-text.ts';
import { queueRefusal, queueRefusedView } from './queue-refusal.ts';
import { gridNodes, routeMarks, routeView, sharedSlotNote } from './node-view.ts';
import { reshardColumns, reshardPanel } from './reshard-view.ts';
import { ownerOf, withSlotOwner, type GridNode } from './slot-grid.ts';
import { readGrids, showGrid } from './slot-grid-reader.ts';
import { driveStepper } from './stepper-controls.ts';
import { showTimelines } from './timeline-reader.ts';

type Mode = 'keys' | 'atomic';

/** The layout the map was drawn with at build time (the sandbox's three ranges), read off the map. */
function drawnNodes(map: HTMLElement): GridNode[] {
  return JSON.parse(map.dataset.owners ?? '[]') as GridNode[];
}

export function wireRoute(section: HTMLElement, api: ExperimentApi): void {
  const form = section.querySelector<HTMLFormElement>('[data-form]')!;
  const input = form.elements.namedItem('queue') as HTMLInputElement;
  const size = form.elements.namedItem('size') as HTMLSelectElement | null;
  // the node map, redrawn whole in its place: read afresh each time
  const map = () => section.querySelector<HTMLElement>(':scope > [data-slot-grid]')!;
  const shared = section.querySelector('[data-shared]')!;
  const region = section.querySelector('[data-result]')!;
  const root = section.closest<HTMLElement>('[data-explorer]')!;
  let nodes: GridNode[] = drawnNodes(map());
  const runs = new Map<Mode, MigrationResult>();
  readGrids(section);

  const draw = () => {
    const refused = queueRefusal(input.value);
    if (refused) {
      show(region, queueRefusedView(refused));
      return;
    }
    const n = queueSlot(input.value);
    showGrid(map(), { nodes, marks: routeMarks(input.value, n) });
    show(shared, sharedSlotNote(input.value, n));
  };

  /** The map in a phase of a run: the slot with that phase's owner, and the nodes that have it open. */
  const drawPhase = (r: MigrationResult, index: number) => {
    const phase = r.phases[index]!;
    // the run's nodes are in slot order, as the map's are: match by address, else by place
    const at = (address: string) => {
      const byAddress = nodes.findIndex((node) => node.address === address);
      return byAddress >= 0 ? byAddress : r.nodes.findIndex((node) => node.address === address);
    };
    const owner = at(phase.owner);
    const migrating = phase.open.find((o) => o.state === 'migrating');
    const importing = phase.open.find((o) => o.state === 'importing');
    const open =
      migrating && importing
        ? { slot: r.slot, migrating: at(migrating.node), importing: at(importing.node) }
        : null;
    const base = ownerOf(nodes, r.slot) === owner || owner < 0 ? nodes : withSlotOwner(nodes, r.slot, owner);
    showGrid(map(), {
      nodes: base,
      marks: routeMarks(r.queue, r.slot),
      open,
      when: `in phase ${phase.name} of the ${r.mode === 'atomic' ? 'atomic' : 'key-by-key'} move`,
    });
  };

  /**
   * A reshard in one mode fills that mode's stepper and keeps the other's last answer; the workers of
   * both stand on one time axis above them.
   */
  const reshard = async (mode: Mode, jobs?: number) => {
    if (!region.querySelector('[data-reshard-modes]')) show(region, reshardColumns());
    const column = region.querySelector<HTMLElement>(`[data-reshard-mode="${mode}"] [data-column]`)!;
    show(
      column,
      markup`<p class="xp-note">${mode === 'keys' ? 'Moving the slot key by key' : 'Moving the slot atomically'}…</p>`,
    );
    const picked = MIGRATION_SIZES.find((n) => n === (jobs ?? Number(size?.value))) ?? DEFAULT_MIGRATION_SIZE;
    // the default size is the server's own default: a server that has no sizes yet still answers
    const body = { queue: input.value, mode, ...(picked !== DEFAULT_MIGRATION_SIZE ? { size: picked } : {}) };
    const outcome = await api.run('reshard', body);
    if (!outcome.ok) {
      show(column, refusalText(outcome.code, outcome.message));
      return;
    }
    runs.set(mode, outcome.result);
    show(column, reshardPanel(outcome.result));
    showTimelines(region.querySelector<HTMLElement>('[data-reshard-timeline]')!, [...runs.values()]);
    driveStepper(column.querySelector<HTMLElement>('[data-stepper]')!, outcome.result, (index) =>
      drawPhase(outcome.result, index),
    );
    drawPhase(outcome.result, 0);
  };

  /** While a reshard runs, its buttons are disabled; the one pressed has the focus back after. */
  const inFlight = async (pressed: HTMLButtonElement | null, work: () => Promise<void>) => {
    const buttons = [...form.querySelectorAll<HTMLButtonElement>('button[value^="reshard"]')];
    for (const button of buttons) button.disabled = true;
    form.setAttribute('aria-busy', 'true');
    try {
      await work();
    } finally {
      for (const button of buttons) button.disabled = false;
      form.removeAttribute('aria-busy');
      if (pressed && document.activeElement === document.body) pressed.focus();
    }
  };

  form.addEventListener('input', (event) => {
    if ((event.target as Element).getAttribute('name') === 'queue') draw();
  });
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const button = (event.submitter as HTMLButtonElement | null)?.value ?? 'route';
    const refused = queueRefusal(input.value);
    if (refused) {
      show(region, queueRefusedView(refused));
      return;
    }
    if (button === 'reshard' || button === 'reshard-atomic' || button === 'reshard-both') {
      await inFlight(event.submitter as HTMLButtonElement | null, async () => {
        if (button !== 'reshard-both') return reshard(button === 'reshard' ? 'keys' : 'atomic');
        const largest = Math.max(...MIGRATION_SIZES);
        if (size) size.value = String(largest);
        await reshard('keys', largest);
        await reshard('atomic', largest);
      });
      return;
    }
    show(region, markup`<p class="xp-note">Routing…</p>`);
    const outcome = await api.run('route', { queue: input.value });
    if (!outcome.ok) {
      show(region, refusalText(outcome.code, outcome.message));
      return;
    }
    nodes = gridNodes(outcome.result.nodes as RouteNode[]);
    // the slot experiment beside this one draws the same owners from now on
    root.dispatchEvent(new CustomEvent('explorer:layout', { detail: nodes }));
    draw();
    shared.replaceChildren();
    show(region, routeView(outcome.result));
  });
}

defineExperiment('emq-route-experiment', wireRoute);
