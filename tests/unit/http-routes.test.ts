// The edge's one route table (server/api/routes.ts) as the front's limiter and the API's router read it,
// and the one 405 (server/api/answer.ts): the catalogue row's text, the route's methods in `allow`.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { methodNotAllowed, refusal, routeMethodNotAllowed } from '../../server/api/answer.ts';
import { apiRoute, isApiPath, isImagePath, budgetOf } from '../../server/api/routes.ts';

describe('the route table', () => {
  it('names the API’s paths, a trailing slash the same path', () => {
    assert.deepEqual(apiRoute('/api/experiments'), { name: 'catalogue' });
    assert.deepEqual(apiRoute('/api/experiments/'), { name: 'catalogue' });
    assert.deepEqual(apiRoute('/api/experiments/keys'), { name: 'experiment', experiment: 'keys' });
    assert.deepEqual(apiRoute('/api/experiments/keys/'), { name: 'experiment', experiment: 'keys' });
    assert.deepEqual(apiRoute('/api/sandbox'), { name: 'sandbox' });
    for (const path of ['/api', '/api/', '/api/nope', '/api/experimentsx', '/apix', '/'])
      assert.equal(apiRoute(path), null, path);
  });

  it('says which paths are the API’s: /api and under it, not a path that only starts with its letters', () => {
    for (const path of ['/api', '/api/', '/api/sandbox', '/api/nope/deeper'])
      assert.ok(isApiPath(path), path);
    for (const path of ['/apix', '/ap', '/', '/course/api']) assert.ok(!isApiPath(path), path);
    assert.ok(isImagePath('/_image') && isImagePath('/_image/x') && !isImagePath('/_imagex'));
  });

  it('counts every API call and island: runs on one budget, the catalogue and the status each on their own', () => {
    assert.equal(budgetOf('GET', '/api/experiments'), 'reads', 'the catalogue costs CPU: counted apart');
    assert.equal(budgetOf('HEAD', '/api/experiments/'), 'reads');
    assert.equal(budgetOf('POST', '/api/experiments'), 'runs', 'a 405 of the catalogue is counted');
    for (const method of ['POST', 'GET', 'PUT'])
      assert.equal(budgetOf(method, '/api/experiments/keys'), 'runs');
    assert.equal(budgetOf('GET', '/api/sandbox'), 'status', 'the status has a budget of its own');
    assert.equal(budgetOf('GET', '/api/nope'), 'runs');
    assert.equal(budgetOf('GET', '/api'), 'runs');
    assert.equal(budgetOf('GET', '/_server-islands/Live'), 'runs');
    assert.equal(budgetOf('GET', '/'), null);
    assert.equal(budgetOf('POST', '/course/'), null);
  });
});

describe('the one 405', () => {
  it('says the method, what the path takes, and lists its methods in allow, as problem details', () => {
    const answer = routeMethodNotAllowed('PUT', 'experiment');
    assert.equal(answer.status, 405);
    assert.equal(answer.headers?.allow, 'POST');
    assert.equal(answer.headers?.['content-type'], 'application/problem+json; charset=utf-8');
    const detail = 'PUT is not served here: experiments run with POST and a JSON body';
    assert.deepEqual(answer.body, {
      type: '/api/openapi.json#/components/responses/METHOD',
      title: 'Method not served here',
      status: 405,
      detail,
      code: 'METHOD',
      error: { code: 'METHOD', message: detail },
    });
    assert.equal(routeMethodNotAllowed('POST', 'sandbox').headers?.allow, 'GET, HEAD');
    assert.equal(methodNotAllowed('TRACE', ['GET'], 'GET only').headers?.allow, 'GET');
  });

  it('takes its status from the row, and refuses a value its row has no place for', () => {
    assert.equal(refusal('RATE_LIMITED', { seconds: 2 }).status, 429);
    assert.throws(() => refusal('RATE_LIMITED', { seconds: 2, extra: 1 }), /has no <extra>/);
    assert.throws(() => refusal('RATE_LIMITED'), /no value for <seconds>/);
  });
});
