// An AdmissionReview server for the admission benchmark, run as a child process of its own, as a webhook always is:
// HTTP/2 over TLS (and HTTP/1.1 for clients without it), allowing everything it is sent. Its certificates are those
// of `<dir>` (made there by the parent first, which hands the CA to the API server). Prints `listening <port>`.
import { createSecureServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { ensurePki } from '../../src/pki/pki.js';

const [dir] = process.argv.slice(2);
const pki = await ensurePki(dir!, { hosts: ['127.0.0.1'] });
// the receive windows of Go's HTTP/2 server, which most webhooks are served by (1 MiB for the connection and for each
// stream): with Node's default of 64 KiB for the whole connection, the API server's reviews (a few kB each, up to
// 192 at once here) would wait for window updates, a limit of this server rather than of the API server
const window = 1 << 20;
const server = createSecureServer({ cert: pki.serverCertPem, key: pki.serverKeyPem, allowHTTP1: true, settings: { initialWindowSize: window } }, (req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const review = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'AdmissionReview', response: { uid: review.request.uid, allowed: true } }));
  });
});
server.on('session', session => session.setLocalWindowSize(window));
server.listen(0, '127.0.0.1', () => console.log(`listening ${(server.address() as AddressInfo).port}`));
