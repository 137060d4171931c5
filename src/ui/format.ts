// Number, time and path formatting shared by the UI components.

/** 850, 19.8k, 171.2k, 1.05M */
export function formatTokens(n: number): string {
  const abs = Math.abs(n);
  if (abs < 1000) return String(Math.round(n));
  if (abs < 1_000_000) return `${(n / 1000).toFixed(1)}k`;
  return `${(n / 1_000_000).toFixed(2)}M`;
}

/** 12ms, 6.1s, 2m 05s, 1h 03m */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const totalSeconds = Math.floor(ms / 1000);
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  if (h > 0) return `${h}h ${String(m).padStart(2, '0')}m`;
  return `${m}m ${String(s).padStart(2, '0')}s`;
}

/** Whole seconds for a live counter: 4s, 1m 12s. */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

/** just now, 5m ago, 3h ago, 2d ago, or the date for anything older than a month. */
export function formatAge(then: number, now: number): string {
  const d = Math.max(0, now - then);
  if (d < 60_000) return 'just now';
  if (d < 3_600_000) return `${Math.floor(d / 60_000)}m ago`;
  if (d < 86_400_000) return `${Math.floor(d / 3_600_000)}h ago`;
  if (d < 30 * 86_400_000) return `${Math.floor(d / 86_400_000)}d ago`;
  return new Date(then).toISOString().slice(0, 10);
}

/** Replaces the home directory with ~ and keeps the last segments when the path is longer than max. */
export function shortenPath(path: string, home: string | undefined, max: number): string {
  let p = path;
  if (home && home.length > 1 && (p === home || p.startsWith(`${home}/`))) p = `~${p.slice(home.length)}`;
  if (p.length <= max) return p;
  const segments = p.split('/');
  let out = segments[segments.length - 1] ?? p;
  for (let i = segments.length - 2; i >= 0; i--) {
    const next = `${segments[i]}/${out}`;
    if (next.length + 2 > max) break;
    out = next;
  }
  out = `…/${out}`;
  return out.length <= max ? out : `…${p.slice(p.length - max + 1)}`;
}

/** The distinguishing tail of an id (ids start with a time-ordered part shared by neighbours). */
export function shortId(id: string): string {
  return id.length <= 8 ? id : id.slice(-8);
}

/** Rough token estimate for text still streaming (the provider's count replaces it at the end). */
export const estimateTokens = (chars: number): number => Math.ceil(chars / 4);

export function formatUsd(usd: number): string {
  if (usd === 0) return '$0.00';
  if (usd < 0.01) return `$${usd.toFixed(4)}`;
  return `$${usd.toFixed(2)}`;
}
