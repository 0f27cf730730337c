// The explorer's status line in words: the same whether the server renders it (ExplorerBody.astro) or
// the island's script rewrites it when the sandbox goes down or comes back (explorer-api.ts).

/** The sandbox answers; `native` false when its Valkey runs without the native module. */
export function upText(native?: boolean): string {
  const module = native === false ? ' (no native module)' : '';
  return `Live on the sandbox Valkey${module}: a standalone run gets a keyspace of its own; cluster runs share one and take turns per slot.`;
}

export const DOWN_TEXT = 'The sandbox is down. It restarts by itself; this reconnects.';
