// The explorer's parts and the experiments each shows, in the order the page shows them: the components
// take a `Part`, and the markdown twin lists the same experiments as API calls.

export const PART_EXPERIMENTS = {
  grammar: ['keys', 'layout'],
  hashtag: ['slot', 'route', 'reshard'],
  reserve: ['reserve'],
  module: ['keys', 'slot', 'reserve', 'two-executors'],
} as const;

export type Part = keyof typeof PART_EXPERIMENTS;
