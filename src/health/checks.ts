// /healthz, /livez and /readyz: named checks, ?verbose, ?exclude=, /livez/<check>, and the reference's text.
import type { RequestContext } from '../api/request.js';
import { sendText } from '../endpoints/respond.js';
import { pathNotFound } from '../api/status.js';

export interface HealthCheck {
  name: string;
  /** resolves when healthy; throws with the reason when not */
  check(): Promise<void> | void;
}

export interface HealthEndpoints {
  /** answers /healthz, /livez and /readyz and their sub-paths; false when the path is not a health path */
  handle(ctx: RequestContext): Promise<boolean>;
}

export function healthEndpoints(opts: {
  healthz: HealthCheck[]; livez: HealthCheck[]; readyz: HealthCheck[];
  /** while the server is younger than this, failing livez checks still pass */
  livezGracePeriodMs: number; startedAt: number;
}): HealthEndpoints {
  const sets = new Map<string, HealthCheck[]>([['healthz', opts.healthz], ['livez', opts.livez], ['readyz', opts.readyz]]);

  async function run(ctx: RequestContext, kind: string, checks: HealthCheck[]) {
    const q = ctx.query;
    // the reference answers in full whenever the parameter is there, whatever its value
    const verbose = q.has('verbose');
    const excluded = new Set(q.getAll('exclude').flatMap(e => e.split(',')).filter(Boolean));
    const lines: string[] = [];
    let failed = false;
    const inGrace = kind === 'livez' && Date.now() - opts.startedAt < opts.livezGracePeriodMs;
    const results = await Promise.all(checks.map(async c => {
      if (excluded.has(c.name)) return { c, excluded: true as const };
      try { await c.check(); return { c, ok: true as const }; } catch (e) { return { c, ok: false as const, err: (e as Error).message }; }
    }));
    for (const r of results) {
      excluded.delete(r.c.name);
      if ('excluded' in r) { lines.push(`[+]${r.c.name} excluded: ok`); continue; }
      if (r.ok || inGrace) lines.push(`[+]${r.c.name} ok`);
      else { failed = true; lines.push(`[-]${r.c.name} failed: reason withheld`); }
    }
    if (excluded.size) lines.push(`warn: some health checks cannot be excluded: no matches for ${[...excluded].map(e => `"${e}"`).join(',')}`);
    if (failed) {
      sendText(ctx, 500, `${lines.join('\n')}\n${kind} check failed\n`, 'text/plain; charset=utf-8', { 'X-Content-Type-Options': 'nosniff' });
    } else {
      sendText(ctx, 200, verbose ? `${lines.join('\n')}\n${kind} check passed\n` : 'ok', 'text/plain; charset=utf-8', { 'X-Content-Type-Options': 'nosniff' });
    }
  }

  return {
    async handle(ctx) {
      const parts = ctx.path.split('/').filter(Boolean);
      const kind = parts[0];
      const checks = sets.get(kind);
      if (!checks) return false;
      if (parts.length === 1) { await run(ctx, kind, checks); return true; }
      const name = parts.slice(1).join('/');
      const one = checks.find(c => c.name === name);
      if (!one) throw pathNotFound(ctx.path);
      try {
        await one.check();
        sendText(ctx, 200, 'ok', 'text/plain; charset=utf-8', { 'X-Content-Type-Options': 'nosniff' });
      } catch (e) {
        sendText(ctx, 500, `internal server error: ${(e as Error).message}\n`, 'text/plain; charset=utf-8', { 'X-Content-Type-Options': 'nosniff' });
      }
      return true;
    },
  };
}
