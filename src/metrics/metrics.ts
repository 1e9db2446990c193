// Prometheus metrics through prom-client: one registry per server (several servers can share a process), the
// reference's families declared with their label names, gauges read when scraped, and the process and Node.js
// runtime metrics of prom-client's default collectors.
import { Gauge, Registry, collectDefaultMetrics, type MetricObject } from 'prom-client';
import { sliceClock, yieldToLoop } from '../util/slices.js';

type Labels = Record<string, string>;

/**
 * Label values come from requests (paths, methods): past this many series a metric folds new label sets into one
 * series whose values are all "other", so requests with made-up paths cannot grow the metrics (and /metrics) without end.
 */
export const maxSeriesPerMetric = 2000;

/** the labels to record: as given while the metric has room, else the "other" series */
function seriesCap(labelNames: readonly string[]): (labels: Labels) => Labels {
  const seen = new Set<string>();
  const other = Object.fromEntries(labelNames.map((n) => [n, 'other']));
  return (labels) => {
    const key = labelNames.map((n) => labels[n] ?? '').join('\u0000');
    if (seen.has(key)) return labels;
    if (seen.size >= maxSeriesPerMetric) return other;
    seen.add(key);
    return labels;
  };
}

/**
 * The series of a counter or histogram recorded on every request, found by their label values: prom-client's own
 * observe sorts, validates and hashes the label object on each call, which the request path pays many times per
 * request (every admission plugin, every storage call). The series sit in a tree of maps, one level per label, so a
 * lookup hashes each short value (most are constants) rather than a key built anew per call. prom-client still writes
 * the exposition, from the values these families report in its shapes.
 */
function seriesTable<S>(labelNames: readonly string[], fresh: () => S) {
  type Series = { labels: Labels } & S;
  type Level = Map<string, Level | Series>;
  const root: Level = new Map();
  const all: Series[] = [];
  let other: Series | undefined;
  const depth = Math.max(labelNames.length, 1);
  const valueAt = (labels: Labels, i: number): string => {
    const v = i < labelNames.length ? labels[labelNames[i]] : undefined;
    return v === undefined ? '' : typeof v === 'string' ? v : String(v);
  };
  const add = (labels: Labels): Series => {
    if (all.length >= maxSeriesPerMetric) {
      if (!other) all.push(other = { labels: Object.fromEntries(labelNames.map((n) => [n, 'other'])), ...fresh() });
      return other;
    }
    let level = root;
    for (let i = 0; i < depth - 1; i++) {
      const v = valueAt(labels, i);
      let next = level.get(v) as Level | undefined;
      if (!next) level.set(v, next = new Map());
      level = next;
    }
    const own: Labels = {};
    for (const n of labelNames) if (labels[n] !== undefined) own[n] = String(labels[n]);
    const s = { labels: own, ...fresh() } as Series;
    level.set(valueAt(labels, depth - 1), s);
    all.push(s);
    return s;
  };
  const find = (labels: Labels): Series => {
    let at: Level | Series = root;
    for (let i = 0; i < depth; i++) {
      const next: Level | Series | undefined = (at as Level).get(valueAt(labels, i));
      if (next === undefined) return add(labels);
      at = next;
    }
    return at as Series;
  };
  return { find, all: () => all.values(), clear: () => { root.clear(); all.length = 0; other = undefined; } };
}

interface Exported { labels: Labels; sharedLabels?: Labels; value: number; metricName?: string }

/** a family prom-client's registry writes out: what it reads of its own metrics (get, getForPromString, reset) */
function family(name: string, help: string, type: 'counter' | 'histogram', values: () => Iterable<Exported>, reset: () => void) {
  const data = (vs: Iterable<Exported>) => ({ name, help, type, values: vs, aggregator: 'sum' });
  return {
    name, help, type, aggregator: 'sum', reset,
    // the values as they are read: the writer takes them a piece at a time
    getForPromString: async () => data(values()),
    get: async () => data([...values()].map(({ labels, sharedLabels, ...v }) => ({ ...v, labels: { ...sharedLabels, ...labels } }))),
  };
}

/** records a value in the series of its labels; bound: the observer of one series, for a caller that records many */
export type Histogram = ((labels: Labels, value: number) => void) & { bound(labels: Labels): (value: number) => void };

export interface MetricsRegistry {
  counter(name: string, help: string, labelNames: readonly string[]): (labels: Labels, by?: number) => void;
  gauge(name: string, help: string, labelNames: readonly string[]): (labels: Labels, value: number) => void;
  histogram(name: string, help: string, labelNames: readonly string[], buckets: number[]): Histogram;
  /** a gauge whose series are read when scraped */
  collected(name: string, help: string, labelNames: readonly string[], read: () => Array<[Labels, number]> | Promise<Array<[Labels, number]>>): void;
  /** the text exposition format */
  render(): Promise<string>;
  readonly contentType: string;
}

/** the process and runtime metrics: one collector per process, shared by the servers in it */
let processRegistry: Registry | undefined;
const processMetrics = () => {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
};

/** the lines of a metric written in one piece of work */
const linesPerPiece = 1000;

interface Exposed { values?: Iterable<unknown> }
interface Writer { getMetricsAsString(metric: { get(): Promise<Exposed> }): Promise<string> }

/**
 * The registry's text exposition, as prom-client writes it, made a piece at a time with the event loop given back
 * between slices: prom-client writes every metric in one stretch, and a busy server's request histograms (up to
 * maxSeriesPerMetric series of some 27 lines each) held the loop for hundreds of milliseconds a scrape
 */
export async function renderInSlices(registry: Registry): Promise<string> {
  const writer = registry as unknown as Writer;
  const clock = sliceClock();
  const texts: string[] = [];
  for (const metric of registry.getMetricsAsArray()) {
    const own = metric as MetricObject & { get(): Promise<Exposed>; getForPromString?(): Promise<Exposed> };
    const whole = await (own.getForPromString ? own.getForPromString() : own.get());
    const values = (whole.values ?? [])[Symbol.iterator]();
    const pieces: string[] = [];
    for (let done = false; !done;) {
      const piece: unknown[] = [];
      while (piece.length < linesPerPiece) {
        const next = values.next();
        if ((done = !!next.done)) break;
        piece.push(next.value);
      }
      if (!piece.length && pieces.length) break;
      const text = await writer.getMetricsAsString({ get: async () => ({ ...whole, values: piece }) });
      // a piece after the first goes without the HELP and TYPE lines the writer starts each with
      pieces.push(pieces.length ? text.slice(text.indexOf('\n', text.indexOf('\n') + 1) + 1) : text);
      if (clock.due()) await yieldToLoop();
    }
    texts.push(pieces.join('\n'));
  }
  return `${texts.join('\n\n')}\n`;
}

export function createMetrics(): MetricsRegistry {
  const registry = new Registry();
  const registers = [registry];
  return {
    counter(name, help, labelNames) {
      const table = seriesTable(labelNames, () => ({ value: 0 }));
      function* values() { for (const s of table.all()) yield { labels: s.labels, value: s.value }; }
      registry.registerMetric(family(name, help, 'counter', values, table.clear) as never);
      return (labels, by = 1) => {
        if (!(by >= 0)) throw new Error(`counter ${name} cannot go down (by ${by})`);
        table.find(labels).value += by;
      };
    },
    gauge(name, help, labelNames) {
      const g = new Gauge({ name, help, labelNames, registers });
      const cap = seriesCap(labelNames);
      return (labels, value) => g.set(cap(labels), value);
    },
    histogram(name, help, labelNames, buckets) {
      const bounds = [...buckets].sort((a, b) => a - b);
      const table = seriesTable(labelNames, () => ({ counts: new Array<number>(bounds.length).fill(0), sum: 0, count: 0 }));
      function* values(): Generator<Exported> {
        for (const s of table.all()) {
          // a series read at once: the writer may give the loop back within its lines, and requests go on recording
          const counts = s.counts.slice(), { sum, count, labels } = s;
          let cumulative = 0;
          for (let i = 0; i < bounds.length; i++)
            yield { labels: { le: bounds[i] as unknown as string }, sharedLabels: labels, value: (cumulative += counts[i]), metricName: `${name}_bucket` };
          yield { labels: { le: '+Inf' }, sharedLabels: labels, value: count, metricName: `${name}_bucket` };
          yield { labels: {}, sharedLabels: labels, value: sum, metricName: `${name}_sum` };
          yield { labels: {}, sharedLabels: labels, value: count, metricName: `${name}_count` };
        }
      }
      registry.registerMetric(family(name, help, 'histogram', values, table.clear) as never);
      const observer = (s: ReturnType<typeof table.find>) => (value: number) => {
        if (!Number.isFinite(value)) throw new TypeError(`histogram ${name}: value is not a finite number: ${value}`);
        let i = 0;
        while (i < bounds.length && value > bounds[i]) i++;
        if (i < bounds.length) s.counts[i]++;
        s.sum += value;
        s.count++;
      };
      return Object.assign((labels: Labels, value: number) => observer(table.find(labels))(value), { bound: (labels: Labels) => observer(table.find(labels)) });
    },
    collected(name, help, labelNames, read) {
      new Gauge({
        name, help, labelNames, registers,
        async collect() {
          this.reset();
          for (const [labels, value] of await read()) this.set(labels, value);
        },
      });
    },
    render: () => renderInSlices(Registry.merge([registry, processMetrics()])),
    contentType: registry.contentType,
  };
}

const standardMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE']);

/** the reference's verb label: the HTTP-like form of the request's verb */
export function metricVerb(verb: string, method: string): string {
  switch (verb) {
    case 'list': return 'LIST';
    case 'watch': return 'WATCH';
    case 'get': return method === 'HEAD' ? 'HEAD' : 'GET';
    case 'create': return 'POST';
    case 'update': return 'PUT';
    case 'deletecollection': return 'DELETECOLLECTION';
    // HTTP/2 lets a client name any method: only the standard ones become label values
    default: return standardMethods.has(method) ? method : 'other';
  }
}

/** the reference's request duration buckets, in seconds */
export const requestDurationBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
/** the reference's storage and admission latency buckets, in seconds */
export const storageDurationBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60];
export const admissionDurationBuckets = [0.005, 0.025, 0.1, 0.5, 1, 2.5];
export const authDurationBuckets = [0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.064, 0.128, 0.256, 0.512, 1.024, 2.048, 4.096, 8.192, 16.384];
