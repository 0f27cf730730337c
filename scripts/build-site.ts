// Builds the site into dist/ unless dist/ is newer than every input of the build (the rule is
// scripts/site.ts's, which the tests and the benchmarks use too). Run before `npm start` and `npm test`.
import { ensureBuilt } from './site.ts';

const bold = (text: string) => (process.stdout.isTTY ? `\x1b[1m${text}\x1b[0m` : text);
console.log(bold('==> site: astro build, unless dist/ is up to date'));
console.log(bold(`==> site: ${ensureBuilt() === 'built' ? 'built' : 'dist/ is up to date'}`));
