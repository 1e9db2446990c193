declare module 'parse-prometheus-text-format' {
  interface Family { name: string; help: string; type: string; metrics: Array<{ value?: string; labels?: Record<string, string>; buckets?: Record<string, string>; count?: string; sum?: string }> }
  export default function parsePrometheusTextFormat(text: string): Family[];
}
