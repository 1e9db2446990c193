// The metrics server's delegated authentication keeps its TokenReview answers in a bounded cache: past the bound
// the oldest answers make room, while the answers just learned stay (no TokenReview again for them).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { startTestServer, type TestServer } from '../../src/testing.js';
import type { Client } from '../../src/client/rest-client.js';
import { delegatedAuth, type DelegatedAuth } from '../../src/metricsserver/delegated-auth.js';

describe('delegated authentication: the answer cache', () => {
  let server: TestServer;
  let auth: DelegatedAuth;
  let reviews = 0;

  before(async () => {
    server = await startTestServer({ flags: ['--controller-manager=false'] });
    // the server's own client for the published settings; TokenReviews are counted and answered at once (no token
    // is valid), so the many answers below are all learned within their time to live
    const counting: Client = Object.create(server.client);
    counting.request = async <T>(r: Parameters<Client['request']>[0]): Promise<T> => {
      if (!r.path?.endsWith('/tokenreviews')) return server.client.request<T>(r);
      reviews++;
      return { kind: 'TokenReview', status: { authenticated: false } } as T;
    };
    auth = delegatedAuth(counting, server.names);
    await auth.synced;
  });
  after(async () => { auth?.stop(); await server?.close(); });

  const bearer = (token: string) => ({ socket: {}, headers: { authorization: `Bearer ${token}` } }) as unknown as IncomingMessage;

  test('a token seen again is answered from the cache, even after more distinct tokens than the bound', async () => {
    const distinct = 10_002;
    for (let i = 0; i < distinct; i++) await auth.authenticate(bearer(`token-${i}`));
    assert.equal(reviews, distinct);
    // the latest answers are kept: no TokenReview for them
    for (const i of [distinct - 1, distinct - 2, distinct - 50]) assert.equal(await auth.authenticate(bearer(`token-${i}`)), undefined);
    assert.equal(reviews, distinct, 'recent answers came from the cache');
    // the oldest made room
    await auth.authenticate(bearer('token-0'));
    assert.equal(reviews, distinct + 1);
  });
});
