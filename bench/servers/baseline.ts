// Baseline servers for the API benchmark, run as child processes: the same TLS and HTTP stack as the
// API server, with nothing behind it. `json` answers a fixed object; `sqlite` inserts each POST body into
// better-sqlite3 (WAL, synchronous=FULL, one transaction per request) and answers it; `sqlite-group` does the
// same with group commit: every insert that arrives before the next turn of the event loop goes into one
// durable transaction (one fsync), and each is answered only after that commit; `bytes <file>` answers every
// GET with the bytes of a file, read once.
import { createSecureServer } from 'node:http2';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ensurePki } from '../../src/pki/pki.js';

const [mode, dir, file] = process.argv.slice(2);
const pki = await ensurePki(join(dir, 'pki'), { hosts: [] });
const object = mode === 'bytes' ? readFileSync(file) : Buffer.from(JSON.stringify({
  kind: 'ConfigMap', apiVersion: 'v1',
  metadata: { name: 'bench', namespace: 'default', uid: '0d9f7a53-1c55-4c4f-9c2f-2a1c0d5c2e11', resourceVersion: '12345', creationTimestamp: '2026-11-23T00:00:00Z' },
  data: { key: 'v'.repeat(200) },
}));
/** stores one row; calls done once it is durable */
let insert: ((name: string, body: string, done: () => void) => void) | undefined;
if (mode === 'sqlite' || mode === 'sqlite-group') {
  const db = new Database(join(dir, 'baseline.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE IF NOT EXISTS objects (name TEXT PRIMARY KEY, value BLOB)');
  const stmt = db.prepare('INSERT INTO objects (name, value) VALUES (?, ?)');
  if (mode === 'sqlite') {
    insert = (name, body, done) => { stmt.run(name, Buffer.from(body)); done(); };
  } else {
    let pending: Array<{ name: string; body: string; done: () => void }> = [];
    const commit = db.transaction((rows: typeof pending) => { for (const r of rows) stmt.run(r.name, Buffer.from(r.body)); });
    const flush = () => {
      const rows = pending;
      pending = [];
      commit(rows);
      for (const r of rows) r.done();
    };
    insert = (name, body, done) => {
      if (pending.push({ name, body, done }) === 1) setImmediate(flush);
    };
  }
}
let n = 0;
const server = createSecureServer({ allowHTTP1: true, key: pki.serverKeyPem, cert: pki.serverCertPem }, (req, res) => {
  if (req.method === 'POST' && insert) {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const obj = JSON.parse(body);
      obj.metadata.name = `${obj.metadata.generateName ?? 'x'}${n++}`;
      const text = JSON.stringify(obj);
      insert!(obj.metadata.name, text, () => {
        res.writeHead(201, { 'Content-Type': 'application/json' });
        res.end(text);
      });
    });
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.end(object);
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as { port: number }).port}\n`);
});
