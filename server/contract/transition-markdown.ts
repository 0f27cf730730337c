// docs/wire.md's transition table, written from the transition table (transitions.ts) by
// scripts/wire-doc.ts; tests/unit/transitions-table.test.ts fails while the committed page differs.

import { withTable } from './generated-table.ts';
import { TRANSITIONS, type TransitionName } from './transitions.ts';

/** The first line of docs/wire.md's transition table; what follows it up to the end mark is generated. */
const TRANSITION_TABLE_START =
  '<!-- generated from server/contract/transitions.ts by `node scripts/wire-doc.ts`: edit the table, not this one -->';

/** A declared key in the page's words: the row, the row base, a lane, or the type itself. */
function keyName(key: string): string {
  if (key === 'job:<id>') return 'row';
  if (key === 'job:') return 'row-base';
  return key.replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** `laneEnqueue` → `lane enqueue`. */
function verbName(transition: TransitionName): string {
  return transition.replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`);
}

function transitionTable(): string {
  const rows = (Object.keys(TRANSITIONS) as TransitionName[]).map((transition) => {
    const { script, command, keys, args, reply } = TRANSITIONS[transition];
    const runs = command === null ? `\`${script}\` (script only)` : `\`${script}\` / \`${command}\``;
    return `| ${verbName(transition)} | ${runs} | ${keys.map(keyName).join(', ')} | ${args.join(', ')} | ${reply} |`;
  });
  return ['| verb | script | KEYS | ARGV | reply |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** docs/wire.md with its transition table rebuilt from the transition table. */
export function withTransitionTable(page: string): string {
  return withTable(page, 'docs/wire.md', TRANSITION_TABLE_START, transitionTable());
}
