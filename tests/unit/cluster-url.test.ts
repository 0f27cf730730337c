// VALKEY_CLUSTER_URL: one or more seed nodes of an existing cluster, comma-separated, as URLs or host:port,
// the admin's credentials taken from the first.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseClusterUrl } from '../../server/sandbox/cluster.ts';

describe('parseClusterUrl', () => {
  it('reads one seed, several, URLs or host:port, spaces around commas', () => {
    assert.deepEqual(parseClusterUrl('redis://10.0.0.5:7000'), {
      seeds: [{ host: '10.0.0.5', port: 7000 }],
      admin: null,
    });
    assert.deepEqual(parseClusterUrl('10.0.0.5:7000, redis://10.0.0.6:7001 ,node-c:7002').seeds, [
      { host: '10.0.0.5', port: 7000 },
      { host: '10.0.0.6', port: 7001 },
      { host: 'node-c', port: 7002 },
    ]);
    assert.deepEqual(parseClusterUrl('redis://[::1]:7000').seeds, [{ host: '::1', port: 7000 }]);
    assert.deepEqual(parseClusterUrl('redis://h').seeds, [{ host: 'h', port: 6379 }]);
  });

  it('takes the admin’s credentials from the first URL, decoded', () => {
    assert.deepEqual(parseClusterUrl('redis://admin:s%40cret@h:1,redis://h:2').admin, {
      username: 'admin',
      password: 's@cret',
    });
    assert.deepEqual(parseClusterUrl('redis://:only-a-password@h:1').admin, {
      username: 'default',
      password: 'only-a-password',
    });
  });

  it('refuses a value that names no node', () => {
    assert.throws(() => parseClusterUrl(' , '), /names no node/);
  });
});
