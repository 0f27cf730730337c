// The one error of a run past its deadline, whoever ends it (the keyspace pool at the run's deadline, or
// the API's own bound a little later, for runs that lease nothing). Its text is the catalogue's TIMEOUT.

import { catalogueText } from './catalogue-text.ts';

export class RunTimeoutError extends Error {
  constructor(ms: number) {
    super(catalogueText('TIMEOUT', { seconds: ms / 1000 }));
    this.name = 'RunTimeoutError';
  }
}
