// The exact native call of each verb for the layout check, and the calls that put a job where the verb
// finds one. Free of Node APIs: the explorer's page builds the same declared keys in the browser.

import {
  claimCall,
  completeCall,
  enqueueCall,
  promoteCall,
  reapCall,
  retryCall,
  scheduleCall,
} from './calls.ts';
import type { Call, CoreTransition } from './transitions.ts';

/** The exact call for a verb, and the calls that put a job where the verb finds one. */
export function exactCall(verb: CoreTransition, queue: string, id: string): { setup: Call[]; call: Call } {
  const enqueue = enqueueCall(queue, id, 'hello');
  switch (verb) {
    case 'enqueue':
      return { setup: [], call: enqueue };
    case 'schedule':
      return { setup: [], call: scheduleCall(queue, id, 'hello', 0) };
    case 'claim':
      return { setup: [enqueue], call: claimCall(queue, 30_000) };
    case 'complete':
      return { setup: [enqueue, claimCall(queue, 30_000)], call: completeCall(queue, id, 1) };
    case 'retry':
      return {
        setup: [enqueue, claimCall(queue, 30_000)],
        call: retryCall(queue, id, 1, { delayMs: 1000, maxAttempts: 3, error: 'boom' }),
      };
    case 'promote':
      return { setup: [scheduleCall(queue, id, 'hello', 0)], call: promoteCall(queue, 10) };
    case 'reap':
      return { setup: [enqueue, claimCall(queue, 0)], call: reapCall(queue, 10) };
  }
}
