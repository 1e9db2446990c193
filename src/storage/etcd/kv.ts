// The KV contract on etcd v3: a near 1:1 mapping onto etcd's own MVCC store.
// Writes are transactions guarded on the key's revisions, sent on a lean gRPC path of their own
// (unary.ts, txn-wire.ts); reads go through the etcd3 client; watches are raw gRPC watch
// streams so the compact revision etcd reports is not lost and a resumed stream starts
// exactly after the last delivered event.
import { rootCertificates } from 'node:tls';
import {
  castGrpcError, ClientClosedError, Etcd3, GRPCCancelledError, GRPCDeadlineExceededError, GRPCInvalidArgumentError, GRPCResourceExhastedError,
  GRPCUnavailableError,
  type IDuplexStream, type IKeyValue, type IRangeRequest, type IWatchRequest, type IWatchResponse, type IOptions,
} from 'etcd3';
import {
  compacted, conflict, futureRevision, isStorageError, keyExists, notFound, StorageError,
  type GetResult, type KeyValue, type KV, type ListOptions, type ListResult, type Revision, type Watch,
  type WatchEvent, type WatchHandler, type WatchOptions, type WriteResult,
} from '../types.js';
import { decodeTxnResponse, encodeCreate, encodeDelete, encodeUpdate, TXN_PATH, type TxnReply, type WireKeyValue } from './txn-wire.js';
import { openGrpcChannel, openUnaryChannel, type UnaryChannel } from './unary.js';

export interface EtcdKVOptions {
  endpoints: string[];
  /** every key is stored under this prefix */
  prefix?: string;
  /** how long open() waits for an answer */
  dialTimeoutMs?: number;
  /** TLS towards https:// endpoints: the CA (else the system's roots), and a client certificate and key */
  tls?: { caPem?: string; certPem?: string; keyPem?: string };
}

/** Keys are UTF-8, which never contains the byte 0xff: prefix + 0xff bounds every key under a prefix. */
const KEY_END = Buffer.from([0xff]);
const EMPTY = Buffer.alloc(0);
/** the lowest key: etcd rejects a range that starts at the empty key */
const FIRST_KEY = Buffer.from([0]);
/** requests larger than this take the grpc-js path (see openGrpcChannel) */
const leanLimit = 1 << 20;
const REQUEST_TIMEOUT_MS = 60_000;
// Pings find a dead connection under an idle watch stream or a stalled write (etcd allows one every 5 s).
const KEEPALIVE_MS = 30_000;
const KEEPALIVE_TIMEOUT_MS = 10_000;
/** how often the health probe asks etcd, and how long without an answer makes it unhealthy (the reference allows 2 s) */
const HEALTH_PROBE_INTERVAL_MS = 500;
const HEALTH_STALE_MS = 1500;
const WATCH_RETRY_MIN_MS = 100;
const WATCH_RETRY_MAX_MS = 2000;

/**
 * etcd3's default global policy retries failed calls. A write whose response was lost may have
 * been applied, and retrying it would report KeyExists or Conflict for our own write: run each
 * call once and let callers decide.
 */
const runOnce = { execute: (fn: (context: unknown) => unknown) => Promise.resolve().then(() => fn({})) } as
  unknown as NonNullable<NonNullable<IOptions['faultHandling']>['global']>;

/** etcd's words, without the gRPC status in front ("8 RESOURCE_EXHAUSTED: ") */
const etcdMessage = (err: Error) => err.message.replace(/^\d+ [A-Z_]+: /, '');

/**
 * ResourceExhausted is a message over the size gRPC takes, or etcd's space quota reached (its NOSPACE alarm: no write
 * succeeds until an operator compacts, defragments and disarms). The reference hands the latter on as a 500 in etcd's
 * words; a 413 would tell the client its request was at fault
 */
function resourceExhausted(err: Error): StorageError {
  const message = etcdMessage(err);
  if (message.includes('database space exceeded')) return new StorageError('Internal', message);
  return new StorageError('TooLarge', `etcd refused the request as too large: ${err.message}`);
}

export async function openEtcdKV(opts: EtcdKVOptions): Promise<KV> {
  const { endpoints, prefix = '', dialTimeoutMs = 5000, tls } = opts;
  if (endpoints.length === 0) throw new StorageError('Invalid', 'etcd: no endpoints given');
  const client = new Etcd3({
    hosts: endpoints,
    ...(tls?.caPem || tls?.certPem ? { credentials: {
      rootCertificate: Buffer.from(tls.caPem ?? rootCertificates.join('\n')),
      ...(tls.certPem && tls.keyPem ? { certChain: Buffer.from(tls.certPem), privateKey: Buffer.from(tls.keyPem) } : {}),
    } } : {}),
    grpcOptions: {
      // Lists of many objects and large values exceed gRPC's default 4 MiB message cap.
      'grpc.max_receive_message_length': -1,
      'grpc.max_send_message_length': -1,
      'grpc.keepalive_time_ms': KEEPALIVE_MS,
      'grpc.keepalive_timeout_ms': KEEPALIVE_TIMEOUT_MS,
    },
    // A request to a server that stopped answering fails instead of hanging; watch streams stay open.
    defaultCallOptions: context => context.isStream ? {} : { deadline: Date.now() + REQUEST_TIMEOUT_MS },
    faultHandling: { global: runOnce },
  });

  const root = Buffer.from(prefix, 'utf8');
  const fullKey = (key: string) => Buffer.concat([root, Buffer.from(key, 'utf8')]);
  const rangeStart = (key: string) => root.length || key ? fullKey(key) : FIRST_KEY;
  const rangeEnd = (keyPrefix: string) => Buffer.concat([root, Buffer.from(keyPrefix, 'utf8'), KEY_END]);
  // Where the last compacted revision is kept (like kube-apiserver's compact_rev_key), beyond
  // KEY_END so that no list or watch under the prefix ever sees it.
  const compactKey = Buffer.concat([root, KEY_END, Buffer.from('compact_rev_key')]);

  // The guarded writes, most of the traffic, skip the etcd3 client's generic layers; the rare request over
  // leanLimit (near etcd's own request limit) goes through grpc-js, opened when first needed.
  const writeOptions = { deadlineMs: REQUEST_TIMEOUT_MS, keepaliveMs: KEEPALIVE_MS, keepaliveTimeoutMs: KEEPALIVE_TIMEOUT_MS, tls };
  const writes = openUnaryChannel(endpoints, writeOptions);
  let largeWrites: Promise<UnaryChannel> | undefined;

  const toKeyValue = (kv: IKeyValue): KeyValue => ({
    key: kv.key.subarray(root.length).toString('utf8'),
    value: kv.value,
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
  });
  const fromWire = (kv: WireKeyValue): KeyValue => ({
    key: kv.key.subarray(root.length).toString('utf8'),
    value: kv.value,
    createRevision: kv.createRevision,
    modRevision: kv.modRevision,
  });

  const unavailable = (err: Error) =>
    new StorageError('Unavailable', `etcd at ${endpoints.join(',')} is unavailable: ${err.message}`);
  const toStorageError = (err: unknown): unknown => {
    if (err instanceof StorageError || !(err instanceof Error)) return err;
    if (err instanceof GRPCUnavailableError || err instanceof GRPCDeadlineExceededError || err instanceof GRPCCancelledError
      || err instanceof ClientClosedError || (err as { isBrokenCircuitError?: boolean }).isBrokenCircuitError) return unavailable(err);
    if (err instanceof GRPCInvalidArgumentError) return new StorageError('Invalid', `etcd rejected the request: ${err.message}`);
    if (err instanceof GRPCResourceExhastedError) return resourceExhausted(err);
    return err;
  };
  // when etcd last answered, and why the last health probe failed: readyz answers from these at once
  let lastAnswer = Date.now();
  let probeFailure: unknown;
  const silence = () => Date.now() - lastAnswer;
  const silent = () => unavailable(new Error(`no answer for ${silence()} ms`));
  // Calls waiting on an etcd that stopped answering (a hung or stopped process keeps its connections open) fail once
  // the health probe finds it silent, instead of holding their requests for the whole call deadline; new calls fail
  // at once until it answers again. A write failed this way may still be applied: its client sees a 503, as after
  // any lost reply.
  const waiting = new Set<(err: unknown) => void>();
  const unresponsive = () => probeFailure !== undefined && silence() > HEALTH_STALE_MS;
  const bounded = <T>(op: () => Promise<T>): Promise<T> => {
    if (unresponsive()) return Promise.reject(silent());
    return new Promise<T>((resolve, reject) => {
      waiting.add(reject);
      op().then(result => { lastAnswer = Date.now(); resolve(result); }, reject).finally(() => waiting.delete(reject));
    });
  };
  /**
   * a call through the client: reads and the compaction record, which are safe to ask again. A member that cannot
   * be reached leaves another to answer: the client picks a member at random, and sets one aside after 3 failures
   * in a row, so 3n attempts reach a live one. With one endpoint there is no other to ask
   */
  const attempts = endpoints.length > 1 ? 3 * endpoints.length : 1;
  const call = async <T>(op: () => Promise<T>, attempt = 0): Promise<T> => {
    try {
      return await bounded(op);
    } catch (err) {
      if (err instanceof GRPCUnavailableError && attempt + 1 < attempts) return call(op, attempt + 1);
      throw toStorageError(err);
    }
  };

  // The latest revision this client has seen. A watch from "now" starts right after it: etcd registers a watch only
  // when its request arrives, and writes travel on another connection, so "now" at registration could miss them.
  let seen = 0;
  const saw = (revision: number) => { if (revision > seen) seen = revision; };

  const txn = async (request: Buffer): Promise<TxnReply> => {
    let reply: Buffer;
    try {
      reply = await bounded(() => request.length > leanLimit ? (largeWrites ??= openGrpcChannel(endpoints, writeOptions)).then(c => c.call(TXN_PATH, request))
        : writes.call(TXN_PATH, request));
    } catch (err) {
      throw toStorageError(castGrpcError(err as Error));
    }
    const res = decodeTxnResponse(reply);
    saw(res.revision);
    return res;
  };

  const compactedRevision = async (): Promise<Revision> => {
    const res = await call(() => client.kv.range({ key: compactKey }));
    return res.kvs.length ? Number(res.kvs[0].value.toString()) : 0;
  };
  const currentRevision = async (): Promise<Revision> => {
    const res = await call(() => client.kv.range({ key: compactKey, count_only: true }));
    saw(Number(res.header.revision));
    return Number(res.header.revision);
  };

  /** a read at a revision, with etcd's revision errors turned into the contract's */
  const rangeAt = async (req: IRangeRequest, revision: Revision | undefined) => {
    try {
      const res = await call(() => client.kv.range(revision ? { ...req, revision } : req));
      saw(Number(res.header.revision));
      return res;
    } catch (err) {
      const message = err instanceof Error ? err.message : '';
      if (revision && message.includes('required revision has been compacted')) {
        throw compacted(revision, Math.max(await compactedRevision(), revision));
      }
      if (revision && message.includes('required revision is a future revision')) {
        throw futureRevision(revision, await currentRevision());
      }
      throw err;
    }
  };

  const watches = new Set<() => void>();

  /** the revision, asked of member after member (as call does) until one answers or the deadline passes */
  const askAnyMember = async (deadline: number, attempt = 0): Promise<Revision> => {
    try {
      const res = await client.kv.range({ key: compactKey, count_only: true }, { deadline });
      lastAnswer = Date.now();
      return Number(res.header.revision);
    } catch (err) {
      if (attempt + 1 >= attempts || Date.now() >= deadline) throw err;
      return askAnyMember(deadline, attempt + 1);
    }
  };

  try {
    saw(await askAnyMember(Date.now() + dialTimeoutMs));
  } catch (err) {
    client.close();
    writes.close();
    void largeWrites?.then(c => c.close());
    // Whatever went wrong, say which etcd could not be reached.
    throw isStorageError(err, 'Unavailable') ? err : unavailable(err as Error);
  }

  // a probe in the background keeps the health answer fresh, so a stopped etcd shows in readyz within seconds
  let probing = false;
  const probe = () => {
    if (probing) return;
    probing = true;
    // the probe asks past the fail-fast guard (it is what finds etcd answering again)
    askAnyMember(Date.now() + HEALTH_STALE_MS)
      .then(() => { probeFailure = undefined; }, err => {
        probeFailure = toStorageError(err);
        if (!unresponsive()) return;
        const failure = silent();
        for (const reject of waiting) reject(failure);
        waiting.clear();
      })
      .finally(() => { probing = false; });
  };
  const prober = setInterval(probe, HEALTH_PROBE_INTERVAL_MS);
  prober.unref();

  return {
    name: 'etcd',

    async get(key, opts = {}): Promise<GetResult> {
      const res = await rangeAt({ key: fullKey(key) }, opts.revision);
      return { kv: res.kvs.length ? toKeyValue(res.kvs[0]) : undefined, revision: opts.revision || Number(res.header.revision) };
    },

    async list(keyPrefix: string, opts: ListOptions = {}): Promise<ListResult> {
      if (opts.start !== undefined && !opts.start.startsWith(keyPrefix)) {
        throw new StorageError('Invalid', `list start ${opts.start} is not under the prefix ${keyPrefix}`);
      }
      const res = await rangeAt(
        { key: rangeStart(opts.start ?? keyPrefix), range_end: rangeEnd(keyPrefix), limit: opts.limit || 0 },
        opts.revision,
      );
      const kvs = res.kvs.map(toKeyValue);
      const revision = opts.revision || Number(res.header.revision);
      return res.more ? { kvs, revision, more: true, remaining: Number(res.count) - kvs.length } : { kvs, revision, more: false };
    },

    async count(keyPrefix) {
      const res = await call(() => client.kv.range({ key: rangeStart(keyPrefix), range_end: rangeEnd(keyPrefix), count_only: true }));
      return Number(res.count);
    },

    async create(key, value): Promise<WriteResult> {
      const res = await txn(encodeCreate(fullKey(key), asBuffer(value)));
      if (!res.succeeded) throw keyExists(key);
      return { kv: { key, value, createRevision: res.revision, modRevision: res.revision }, revision: res.revision };
    },

    async update(key, value, expectedModRevision): Promise<WriteResult> {
      // The key must exist (etcd compares a missing key's mod revision as 0) at expectedModRevision;
      // a failed guard reads the key in the same transaction.
      const res = await txn(encodeUpdate(fullKey(key), asBuffer(value), expectedModRevision));
      if (!res.succeeded) throw failedGuard(key, res.kvs.map(fromWire));
      return { kv: { key, value, createRevision: res.kvs[0].createRevision, modRevision: res.revision }, revision: res.revision };
    },

    async delete(key, expectedModRevision): Promise<WriteResult> {
      const res = await txn(encodeDelete(fullKey(key), expectedModRevision));
      if (!res.succeeded) throw failedGuard(key, res.kvs.map(fromWire));
      return { kv: fromWire(res.kvs[0]), revision: res.revision };
    },

    watch(keyPrefix: string, opts: WatchOptions, handler: WatchHandler): Watch {
      const stop = watchRange({
        open: () => client.watchClient.watch(),
        key: rangeStart(keyPrefix),
        rangeEnd: rangeEnd(keyPrefix),
        afterRevision: opts.afterRevision ?? (seen || undefined),
        toKeyValue,
        onEvents: events => handler.onEvents(events),
        onError: err => { watches.delete(stop); handler.onError(err); },
        onConnection: connected => handler.onConnection?.(connected),
      });
      watches.add(stop);
      return { close() { watches.delete(stop); stop(); } };
    },

    async compact(revision) {
      try {
        await call(() => client.kv.compact({ revision }));
      } catch (err) {
        const message = err instanceof Error ? err.message : '';
        if (message.includes('required revision is a future revision')) throw futureRevision(revision, await currentRevision());
        // Already compacted at or past this revision: only the record below may lag.
        if (!message.includes('required revision has been compacted')) throw err;
      }
      // Record the revision, never lowering it. Padded so that etcd's byte-wise comparison is numeric.
      const put = { request_put: { key: compactKey, value: Buffer.from(String(revision).padStart(20, '0')) } };
      await call(() => client.kv.txn({
        compare: [{ key: compactKey, target: 'Create', result: 'Equal', create_revision: 0 }],
        success: [put],
        failure: [{ request_txn: { compare: [{ key: compactKey, target: 'Value', result: 'Less', value: put.request_put.value }], success: [put] } }],
      }));
    },

    currentRevision: () => currentRevision(),

    async oldestRevision() {
      return (await compactedRevision()) + 1;
    },

    async check() {
      probe();
      const silentMs = Date.now() - lastAnswer;
      if (probeFailure) throw probeFailure;
      if (silentMs > HEALTH_STALE_MS) throw unavailable(new Error(`no answer for ${silentMs} ms`));
    },

    async close() {
      clearInterval(prober);
      for (const stop of watches) stop();
      watches.clear();
      client.close();
      writes.close();
    void largeWrites?.then(c => c.close());
    },
  };
}

function asBuffer(value: Uint8Array): Buffer {
  return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

/** why a guarded write failed, from the key's current state read in the same transaction */
function failedGuard(key: string, current: KeyValue[]): StorageError {
  return current.length === 0 ? notFound(key) : conflict(key, current[0]);
}

interface WatchRangeSpec {
  open: () => Promise<IDuplexStream<IWatchRequest, IWatchResponse>>;
  key: Buffer;
  rangeEnd: Buffer;
  afterRevision?: Revision;
  toKeyValue: (kv: IKeyValue) => KeyValue;
  onEvents: (events: WatchEvent[]) => void;
  onError: (err: StorageError) => void;
  onConnection: (connected: boolean) => void;
}

/**
 * One watch on its own gRPC stream. A broken stream is reopened from just after the last
 * delivered revision, so events arrive in order with no gap or duplicate; a start revision
 * that has been compacted ends the watch with Compacted. Returns the function that stops it.
 */
function watchRange(spec: WatchRangeSpec): () => void {
  // The first revision still to deliver; 0 until a watch "from now" learns the current revision.
  let next = spec.afterRevision === undefined ? 0 : spec.afterRevision + 1;
  let stream: IDuplexStream<IWatchRequest, IWatchResponse> | undefined;
  let stopped = false;
  let retryMs = WATCH_RETRY_MIN_MS;
  let retryTimer: NodeJS.Timeout | undefined;
  // the watcher hears of a lost stream once, and of its return once
  let connected = true;
  const setConnected = (now: boolean) => {
    if (now === connected || stopped) return;
    connected = now;
    spec.onConnection(now);
  };

  const stop = () => {
    stopped = true;
    clearTimeout(retryTimer);
    stream?.cancel();
    stream = undefined;
  };
  const fail = (err: StorageError) => {
    if (stopped) return;
    stop();
    spec.onError(err);
  };
  const reconnect = () => {
    if (stopped) return;
    setConnected(false);
    stream?.cancel();
    stream = undefined;
    retryTimer = setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, WATCH_RETRY_MAX_MS);
  };

  const onResponse = (res: IWatchResponse) => {
    if (stopped) return;
    const compactRevision = Number(res.compact_revision);
    if (compactRevision > 0) {
      fail(compacted(next - 1, compactRevision));
      return;
    }
    if (res.canceled) {
      fail(new StorageError('Unavailable', `etcd canceled the watch: ${res.cancel_reason || 'no reason given'}`));
      return;
    }
    if (res.created) {
      retryMs = WATCH_RETRY_MIN_MS;
      if (next === 0) next = Number(res.header.revision) + 1;
      setConnected(true);
      return;
    }
    if (res.events.length === 0) return;
    const events = res.events.map((ev): WatchEvent => {
      const prevKv = ev.prev_kv ? spec.toKeyValue(ev.prev_kv) : undefined;
      if (ev.type === 'Delete') {
        const kv = spec.toKeyValue(ev.kv);
        return { type: 'delete', kv: { ...kv, value: EMPTY, createRevision: prevKv?.createRevision ?? 0 }, prevKv };
      }
      return { type: 'put', kv: spec.toKeyValue(ev.kv), prevKv };
    });
    next = events[events.length - 1].kv.modRevision + 1;
    spec.onEvents(events);
  };

  const connect = async () => {
    let opened: IDuplexStream<IWatchRequest, IWatchResponse>;
    try {
      opened = await spec.open();
    } catch {
      reconnect();
      return;
    }
    if (stopped) {
      opened.cancel();
      return;
    }
    stream = opened;
    const broken = () => { if (stream === opened) reconnect(); };
    opened.on('data', onResponse).on('error', broken).on('end', broken);
    opened.write({
      create_request: { key: spec.key, range_end: spec.rangeEnd, start_revision: next, prev_kv: true },
    });
  };

  void connect();
  return stop;
}
