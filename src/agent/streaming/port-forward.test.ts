// Port-forward's SPDY streams as the node agent serves them, on a plain loopback connection: a complete pair carries
// its connection; a stream whose partner never comes is dropped after the stream creation timeout, as the
// reference's node agent drops it (the error stream says why and ends, lone streams are reset).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { portForwardOver } from './port-forward.js';
import { spdyFrames, spdyReader } from '../../../test/support/spdy-client.js';
import { waitFor } from '../../../test/support/wait.js';

let echo: Server;
let agent: Server;
let client: Socket;
const served: Promise<void>[] = [];

before(async () => {
  // the pod's port: it answers what it gets
  echo = createServer(s => s.pipe(s));
  await new Promise<void>(r => echo.listen(0, '127.0.0.1', r));
  const echoPort = (echo.address() as AddressInfo).port;
  const open = (port: number) => new Promise<Socket>((resolve, reject) => {
    const s = connect(port === 80 ? echoPort : 1, '127.0.0.1', () => resolve(s)).once('error', reject);
  });
  agent = createServer(socket => served.push(portForwardOver(socket, Buffer.alloc(0), 'target', open, { streamCreationTimeoutMs: 300 })));
  await new Promise<void>(r => agent.listen(0, '127.0.0.1', r));
  client = connect((agent.address() as AddressInfo).port, '127.0.0.1');
  await new Promise(r => client.once('connect', r));
});

after(async () => {
  client?.destroy();
  await Promise.all(served);
  agent?.close();
  echo?.close();
});

test('a stream whose partner never comes is dropped after the stream creation timeout; complete pairs go on', async () => {
  const { synStream, data } = spdyFrames();
  const seen = spdyReader(client, { upgraded: true });
  // a complete pair, as kubectl opens one: the error stream closed at once
  client.write(await synStream(1, { streamtype: 'error', port: '80', requestid: '0' }, true));
  client.write(await synStream(3, { streamtype: 'data', port: '80', requestid: '0' }));
  // an error stream alone (kubectl's way: closed at once), another left open, and a data stream alone
  client.write(await synStream(5, { streamtype: 'error', port: '80', requestid: '1' }, true));
  client.write(await synStream(7, { streamtype: 'error', port: '80', requestid: '2' }));
  client.write(await synStream(9, { streamtype: 'data', port: '80', requestid: '3' }));

  await waitFor('the lone error streams ended', () => seen.ended.has(5) && seen.ended.has(7));
  assert.equal(seen.text.get(5), '(request=1) timed out waiting for streams');
  assert.equal(seen.text.get(7), '(request=2) timed out waiting for streams');
  await waitFor('the lone data stream, and the error stream still open, reset', () => seen.resets.has(9) && seen.resets.has(7));
  assert.equal(seen.resets.get(9), 5, 'CANCEL');
  // the closed error stream needs no reset: ended both ways it is forgotten
  assert.equal(seen.resets.has(5), false);

  // the complete pair, older than the timeout, still carries its connection
  client.write(data(3, Buffer.from('still here')));
  await waitFor('the echo', () => seen.text.get(3) === 'still here');
  assert.equal(seen.resets.has(1) || seen.resets.has(3), false);
  assert.equal(seen.ended.has(1), false);
});

test('a second stream of one kind for a request is refused and told on its error stream', async () => {
  const { synStream } = spdyFrames();
  const socket = connect((agent.address() as AddressInfo).port, '127.0.0.1');
  await new Promise(r => socket.once('connect', r));
  const seen = spdyReader(socket, { upgraded: true });
  try {
    socket.write(await synStream(1, { streamtype: 'error', port: '80', requestid: '7' }));
    socket.write(await synStream(3, { streamtype: 'error', port: '80', requestid: '7' }));
    await waitFor('the second error stream reset', () => seen.resets.has(3));
    await waitFor('the first told why', () => seen.text.get(1)?.startsWith('error processing stream for request 7: error stream already assigned'));
  } finally {
    socket.destroy();
  }
});
