// Container logs served from CRI log files: tails counted back from the file's end (a file far larger than memory
// answers a tail at once), chunked reading that keeps UTF-8 characters and partial lines whole, byte limits, and follow.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdtempSync, openSync, closeSync, ftruncateSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logChunkBytes, logOptions, streamLog } from './logs.js';

const line = (text: string, tag: 'F' | 'P' = 'F', time = '2026-11-27T10:00:00.000000001Z') => `${time} stdout ${tag} ${text}\n`;

describe('container logs from CRI files', () => {
  let dir: string;
  let server: Server;
  let port: number;
  /** whether the container of a followed log still runs */
  let running = true;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'agent-logs-'));
    server = createServer((req, res) => {
      const url = new URL(req.url!, 'http://agent');
      void streamLog(res, join(dir, url.pathname.slice(1)), logOptions(url), () => running);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  after(() => { server.close(); rmSync(dir, { recursive: true, force: true }); });

  const get = (target: string) => new Promise<Buffer>((resolve, reject) => {
    request({ port, host: '127.0.0.1', path: target }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
    }).on('error', reject).end();
  });

  test('a tail of a file of several gigabytes is counted back from its end, not read whole', { timeout: 30_000 }, async () => {
    const file = join(dir, 'huge.log');
    // a sparse file: 6 GiB of zeros (no newline), then whole lines; reading it whole would take the process's memory
    const fd = openSync(file, 'w');
    ftruncateSync(fd, 6 * 1024 ** 3);
    closeSync(fd);
    appendFileSync(file, `\n${line('one')}${line('two')}${line('three')}`);
    assert.equal((await get('/huge.log?tailLines=2')).toString(), 'two\nthree\n');
    assert.equal((await get('/huge.log?tailLines=1&timestamps=true')).toString(), '2026-11-27T10:00:00.000000001Z three\n');
    assert.equal((await get('/huge.log?tailLines=0')).toString(), '');
    rmSync(file);
  });

  test('a tail counts the file\'s raw lines, as the reference does: the pieces of a partial line each count', async () => {
    writeFileSync(join(dir, 'partial.log'), `${line('a')}${line('b1', 'P')}${line('b2', 'P')}${line('b3')}${line('c')}`);
    assert.equal((await get('/partial.log?tailLines=2')).toString(), 'b3\nc\n');
    assert.equal((await get('/partial.log?tailLines=4')).toString(), 'b1b2b3\nc\n');
    assert.equal((await get('/partial.log?tailLines=99')).toString(), 'a\nb1b2b3\nc\n');
    assert.equal((await get('/partial.log')).toString(), 'a\nb1b2b3\nc\n');
  });

  test('a log of several chunks keeps characters and partial lines whole across chunk ends, and limitBytes cuts bytes', async () => {
    const lines: string[] = [];
    let text = '';
    // lines of a width that puts chunk ends inside multi-byte characters and inside partial lines
    for (let i = 0; text.length < 3 * logChunkBytes; i++) {
      const body = `${i} ${'é€😀'.repeat(1 + (i % 700))}`;
      lines.push(body);
      const chars = [...body];
      text += i % 3 === 0 ? line(chars.slice(0, 5).join(''), 'P') + line(chars.slice(5).join('')) : line(body);
    }
    writeFileSync(join(dir, 'big.log'), text);
    const expected = lines.map((l) => `${l}\n`).join('');
    assert.equal((await get('/big.log')).toString(), expected);
    const limited = await get('/big.log?limitBytes=1000001');
    assert.equal(limited.length, 1000001);
    assert.deepEqual(limited, Buffer.from(expected).subarray(0, 1000001));
  });

  test('a line longer than any runtime writes is dropped; the lines after it are served', async () => {
    writeFileSync(join(dir, 'long.log'), `${line('before')}${'x'.repeat(3 * logChunkBytes)}\n${line('after')}`);
    assert.equal((await get('/long.log')).toString(), 'before\nafter\n');
  });

  test('sinceTime leaves out older lines; a missing file is an empty log', async () => {
    writeFileSync(join(dir, 'since.log'), `${line('old', 'F', '2026-11-27T09:00:00Z')}${line('new', 'F', '2026-11-27T11:00:00Z')}`);
    assert.equal((await get('/since.log?sinceTime=2026-11-27T10:00:00Z')).toString(), 'new\n');
    assert.equal((await get('/missing.log')).toString(), '');
  });

  test('follow serves the tail, then lines as they are written, and ends when the container stops', { timeout: 30_000 }, async () => {
    const file = join(dir, 'follow.log');
    writeFileSync(file, `${line('first')}${line('second')}`);
    running = true;
    const seen: string[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      request({ port, host: '127.0.0.1', path: '/follow.log?follow=true&tailLines=1' }, (res) => {
        res.setEncoding('utf8').on('data', (c: string) => seen.push(c)).on('end', resolve).on('error', reject);
      }).on('error', reject).end();
    });
    const until = async (what: string) => { while (!seen.join('').includes(what)) await new Promise((r) => setTimeout(r, 20)); };
    await until('second\n');
    appendFileSync(file, line('third', 'P'));
    appendFileSync(file, line('-and-more'));
    await until('third-and-more\n');
    running = false;
    await ended;
    assert.equal(seen.join(''), 'second\nthird-and-more\n');
  });
});
