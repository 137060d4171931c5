// What a compaction did, for the person: the figures, what the ledger carried, what the
// summary left out and the appendix restored, and how to undo it. One line for the TUI's
// receipt; the whole for Ctrl+O and `agent sessions show`.
import type { CompactionRecord } from '../history/compaction.js';
import { fmtInt, plural } from '../tools/format.js';

const KIND: Record<string, string> = {
  section: 'section',
  modified: 'modified file',
  request: 'latest request',
  failure: 'standing failure',
};

/** The receipt's second line: what the ledger carried and what the check found; undefined without a report. */
export function reportLine(r: CompactionRecord): string | undefined {
  const rep = r.report;
  if (!rep || r.status !== 'applied') return undefined;
  const parts: string[] = [];
  if (rep.ledger)
    parts.push(`ledger ${fmtInt(rep.ledger.tokens)} tokens (${rep.ledger.sections.map((s) => `${s.title.toLowerCase()} ${s.shown + s.listed}`).join(', ')})`);
  const p = rep.probes;
  if (p) {
    const restored = p.omitted.filter((m) => m.kind !== 'section').length;
    parts.push(
      p.missed.length === 0
        ? `summary checked: ${plural(p.probed, 'fact')} kept`
        : `summary missed ${fmtInt(p.missed.length)}${p.retried ? `, asked again, ${fmtInt(p.omitted.length)} still missing` : ''}${restored > 0 ? `, ${fmtInt(restored)} restored by the appendix` : ''}`,
    );
  }
  parts.push('/uncompact undoes it');
  return parts.join(' · ');
}

/** The whole report, as lines of text. */
export function reportLines(r: CompactionRecord): string[] {
  const lines = [
    `Compaction ${r.id} (${r.trigger}${r.focus ? `, focus: ${r.focus}` : ''}) — ${r.status}${r.reason ? `: ${r.reason}` : ''}`,
    `Tokens: ${fmtInt(r.tokensBefore)} → ${fmtInt(r.tokensAfter)}`,
  ];
  if (r.status !== 'applied') return lines;
  const range = r.report?.archived;
  lines.push(
    `Archived: ${plural(r.archivedCount, 'message')}${range ? ` (Recall ids ${range.first} … ${range.last})` : ''}; kept in view: ${fmtInt(r.preservedCount)}`,
  );
  const ledger = r.report?.ledger;
  if (ledger) {
    lines.push(`The ledger beside the checkpoint (${fmtInt(ledger.tokens)} tokens, derived from the log):`);
    for (const s of ledger.sections) lines.push(`  - ${s.title}: ${fmtInt(s.shown)} shown${s.listed > 0 ? `, ${fmtInt(s.listed)} listed by Recall id` : ''}`);
  }
  const p = r.report?.probes;
  if (p) {
    lines.push(
      `The summary's check: ${plural(p.probed, 'fact')} probed, ${fmtInt(p.missed.length)} missed by the first summary${p.retried ? '; asked again' : ''}`,
    );
    for (const m of p.missed) lines.push(`  - missed ${KIND[m.kind] ?? m.kind}: ${m.fact.split('\n')[0]}`);
    const restored = p.omitted.filter((m) => m.kind !== 'section');
    if (restored.length > 0)
      lines.push(`Omitted by the summary, restored from the log by its appendix: ${restored.map((m) => m.fact.split('\n')[0]).join('; ')}`);
    const sections = p.omitted.filter((m) => m.kind === 'section');
    if (sections.length > 0) lines.push(`Sections still missing: ${sections.map((m) => m.fact).join(', ')}`);
  }
  lines.push('Undo: /uncompact (the archived messages come back into view)');
  return lines;
}

/**
 * A compaction's receipt as text, for the print mode and the editor protocol: what it did (or why
 * nothing changed), and the report's line under it. The print mode adds how long it took.
 */
export function receiptText(r: CompactionRecord, withDuration: boolean): string {
  if (r.status !== 'applied')
    return `Compaction ${r.status === 'ineffective' ? 'not applied' : 'failed'}: ${r.reason ?? 'unknown reason'}. Nothing was changed.`;
  const line = reportLine(r);
  const duration = withDuration ? ` · ${(r.durationMs / 1000).toFixed(1)}s` : '';
  return `Compacted ${fmtInt(r.tokensBefore)} → ${fmtInt(r.tokensAfter)} tokens · archived ${r.archivedCount} messages · kept ${r.preservedCount}${duration}${line ? `\n${line}` : ''}`;
}
