// Where an experiment's page half lives, by its name in the one table (server/contract/experiment-table.ts):
// its component `<Name>Experiment.astro` (ExplorerBody.astro places it) and its script
// `<name>-experiment.ts` (explorer.ts loads it), both in src/components/explorer/.

/** `two-executors` → `TwoExecutorsExperiment.astro`. */
export function componentFile(name: string): string {
  const pascal = name.replace(/(^|-)([a-z])/g, (_, _dash, letter: string) => letter.toUpperCase());
  return `${pascal}Experiment.astro`;
}

/** `two-executors` → `two-executors-experiment.ts`. */
export function scriptFile(name: string): string {
  return `${name}-experiment.ts`;
}
