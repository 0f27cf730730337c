// The sandbox cluster's three primaries and their slots: the ranges `valkey-cli --cluster create` gives
// three primaries. The sandbox starts its cluster with them; the page draws its first slot map from them.

/** The three ranges `valkey-cli --cluster create` gives three primaries. */
export const SLOT_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0, 5460],
  [5461, 10922],
  [10923, 16383],
];
