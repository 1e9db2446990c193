// Types of the Prometheus text parser (the package ships none).
declare module 'parse-prometheus-text-format' {
  interface Sample { value?: string; labels?: Record<string, string>; timestamp_ms?: string; buckets?: Record<string, string>; count?: string; sum?: string }
  interface Family { name: string; help: string; type: string; metrics: Sample[] }
  export default function parsePrometheusTextFormat(text: string): Family[];
}
