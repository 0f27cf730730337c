// The exact native call of each verb for the layout check, and the calls that put a job where the verb
// finds one. Free of Node APIs: the explorer's page builds the same declared keys in the browser.

import { callFor } from './calls.ts';
import type { Call, CoreTransition } from './transitions.ts';

/** The exact call for a verb, and the calls that put a job where the verb finds one. */
export function exactCall(verb: CoreTransition, queue: string, id: string): { setup: Call[]; call: Call } {
  const enqueue = callFor('enqueue', queue, { id, payload: 'hello' });
  switch (verb) {
    case 'enqueue':
      return { setup: [], call: enqueue };
    case 'schedule':
      return { setup: [], call: callFor('schedule', queue, { id, payload: 'hello', run_at_ms: 0 }) };
    case 'claim':
      return { setup: [enqueue], call: callFor('claim', queue, { lease_ms: 30_000 }) };
    case 'complete':
      return {
        setup: [enqueue, callFor('claim', queue, { lease_ms: 30_000 })],
        call: callFor('complete', queue, { id, token: 1 }),
      };
    case 'retry':
      return {
        setup: [enqueue, callFor('claim', queue, { lease_ms: 30_000 })],
        call: callFor('retry', queue, { id, token: 1, delay_ms: 1000, max_attempts: 3, error: 'boom' }),
      };
    case 'promote':
      return {
        setup: [callFor('schedule', queue, { id, payload: 'hello', run_at_ms: 0 })],
        call: callFor('promote', queue, { batch: 10 }),
      };
    case 'reap':
      return {
        setup: [enqueue, callFor('claim', queue, { lease_ms: 0 })],
        call: callFor('reap', queue, { batch: 10 }),
      };
  }
}
