// A run that waited its bound for something of the sandbox that runs share — a keyspace, a cluster
// client, its slot's turn — and did not get it. The API answers each one 503 BUSY with retry-after.

export class BusyError extends Error {}
