// A bare HTTP/2 client of the admission benchmark's webhook server, run as a child process of its own: what Node alone
// spends on the calls an API server makes to a webhook, the floor under the API server's cost of them. It POSTs
// AdmissionReviews of the benchmark's pod (the size the API server sends) on one HTTP/2 session, `concurrency` at a
// time, for `ms` milliseconds, and prints one JSON line: the calls made and the CPU time (user and system) they took.
// Arguments: the URL, the CA bundle in base64, concurrency, ms, the review's apiVersion and the pod's JSON.
import { connect } from 'node:http2';
import { randomUUID } from 'node:crypto';

const [url, caBase64, concurrency, ms, apiVersion, podJson] = process.argv.slice(2);
const session = connect(url!, { ca: Buffer.from(caBase64!, 'base64').toString('utf8') });
await new Promise<void>((resolve, reject) => session.once('connect', () => resolve()).once('error', reject));
const path = `${new URL(url!).pathname}?timeout=10s`;

const review = () => `{"kind":"AdmissionReview","apiVersion":"${apiVersion}","request":{"uid":"${randomUUID()}",`
  + '"kind":{"group":"","version":"v1","kind":"Pod"},"resource":{"group":"","version":"v1","resource":"pods"},'
  + `"operation":"CREATE","userInfo":{"username":"admin","groups":["system:masters"]},"object":${podJson},"oldObject":null,"dryRun":false}}`;

const call = (body: string) => new Promise<void>((resolve, reject) => {
  const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/json', accept: 'application/json, */*',
    'content-length': Buffer.byteLength(body) });
  const timer = setTimeout(() => stream.destroy(new Error('timed out')), 10_000);
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.on('end', () => { clearTimeout(timer); JSON.parse(Buffer.concat(chunks).toString('utf8')); resolve(); });
  stream.on('error', e => { clearTimeout(timer); reject(e); });
  stream.end(body);
});

let calls = 0;
const end = performance.now() + Number(ms);
const before = process.cpuUsage();
await Promise.all(Array.from({ length: Number(concurrency) }, async () => { while (performance.now() < end) { await call(review()); calls++; } }));
const used = process.cpuUsage(before);
console.log(JSON.stringify({ calls, cpuMs: (used.user + used.system) / 1000 }));
session.close();
