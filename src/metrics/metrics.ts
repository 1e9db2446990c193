// Prometheus metrics in the text exposition format: counters and histograms with labels, kept as plain maps.
// The API server records the reference's apiserver_request_total and apiserver_request_duration_seconds.

type Labels = Record<string, string>;

interface Series { labels: Labels; value: number; buckets?: number[]; sum?: number }

interface Metric { name: string; help: string; type: 'counter' | 'histogram' | 'gauge'; bounds?: number[]; series: Map<string, Series> }

export interface MetricsRegistry {
  counter(name: string, help: string): (labels: Labels, by?: number) => void;
  gauge(name: string, help: string): (labels: Labels, value: number) => void;
  histogram(name: string, help: string, bounds: number[]): (labels: Labels, value: number) => void;
  /** the text exposition format, version 0.0.4 */
  render(): string;
}

const keyOf = (labels: Labels) => Object.keys(labels).sort().map(k => `${k}=${labels[k]}`).join(',');
const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
const labelText = (labels: Labels, extra?: [string, string]) => {
  const parts = Object.entries(labels).map(([k, v]) => `${k}="${escape(v)}"`);
  if (extra) parts.push(`${extra[0]}="${extra[1]}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
};

/**
 * Label values come from requests (paths, methods): past this many series a metric folds new label sets into one
 * series whose values are all "other", so requests with made-up paths cannot grow the metrics (and /metrics) without end.
 */
export const maxSeriesPerMetric = 2000;

export function createMetrics(): MetricsRegistry {
  const metrics: Metric[] = [];
  const series = (m: Metric, given: Labels): Series => {
    let labels = given;
    let k = keyOf(labels);
    let s = m.series.get(k);
    if (!s && m.series.size >= maxSeriesPerMetric) {
      labels = Object.fromEntries(Object.keys(given).map(key => [key, 'other']));
      k = keyOf(labels);
      s = m.series.get(k);
    }
    if (!s) {
      s = { labels, value: 0 };
      if (m.bounds) { s.buckets = m.bounds.map(() => 0); s.sum = 0; }
      m.series.set(k, s);
    }
    return s;
  };
  const add = (m: Metric) => { metrics.push(m); return m; };
  return {
    counter(name, help) {
      const m = add({ name, help, type: 'counter', series: new Map() });
      return (labels, by = 1) => { series(m, labels).value += by; };
    },
    gauge(name, help) {
      const m = add({ name, help, type: 'gauge', series: new Map() });
      return (labels, value) => { series(m, labels).value = value; };
    },
    histogram(name, help, bounds) {
      const m = add({ name, help, type: 'histogram', bounds, series: new Map() });
      return (labels, value) => {
        const s = series(m, labels);
        s.value++;
        s.sum! += value;
        for (let i = 0; i < bounds.length; i++) if (value <= bounds[i]) s.buckets![i]++;
      };
    },
    render() {
      const out: string[] = [];
      for (const m of metrics) {
        out.push(`# HELP ${m.name} ${m.help}`, `# TYPE ${m.name} ${m.type}`);
        for (const s of m.series.values()) {
          if (!m.bounds) { out.push(`${m.name}${labelText(s.labels)} ${s.value}`); continue; }
          m.bounds.forEach((b, i) => out.push(`${m.name}_bucket${labelText(s.labels, ['le', String(b)])} ${s.buckets![i]}`));
          out.push(`${m.name}_bucket${labelText(s.labels, ['le', '+Inf'])} ${s.value}`);
          out.push(`${m.name}_sum${labelText(s.labels)} ${s.sum}`, `${m.name}_count${labelText(s.labels)} ${s.value}`);
        }
      }
      return `${out.join('\n')}\n`;
    },
  };
}

/** the reference's verb label: the HTTP-like form of the request's verb */
const standardMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE']);

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
