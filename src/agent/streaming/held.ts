// A connection held back (not read while what its peer sent waits for a slow reader) does not see its peer go: the
// peer's end or reset waits, unread, behind its data. While a connection is held, a ping is written to it now and
// then: a peer still there answers or ignores it, while to a peer gone the write fails, the connection closes, and
// its session is torn down as on any disconnect.

/** how often a held connection is probed */
export const heldProbeMs = 1000;

/**
 * a probe of one connection: started when it is held, it pings every `heldProbeMs` while `held()` (and `idle()`:
 * nothing else waiting to be written, which would tell as well), and stops once the connection is read again
 */
export function heldProbe(held: () => boolean, idle: () => boolean, ping: () => void) {
  let timer: NodeJS.Timeout | undefined;
  const stop = () => { clearInterval(timer); timer = undefined; };
  const tick = () => {
    if (!held()) return stop();
    if (idle()) ping();
  };
  return {
    start() { timer ??= setInterval(tick, heldProbeMs); },
    stop,
  };
}
