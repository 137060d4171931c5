// Deterministic probes of a summary against the ledger, before the summary is committed: the
// checkpoint has its sections, names every modified file, quotes the latest pending request,
// mentions each standing failure. What the summary still misses after one retry is restored
// by an appendix made of the ledger's facts, never of the model's prose.
import type { LedgerFacts } from './types.js';

export type ProbeKind = 'section' | 'modified' | 'request' | 'failure';

/** One fact the summary did not carry. */
export interface ProbeMiss {
  kind: ProbeKind;
  /** The section title, the path, the request, the failing command. */
  fact: string;
}

/** What the probes found, as stored with the compaction record. */
export interface ProbeResults {
  /** How many facts were probed. */
  probed: number;
  /** Misses of the first summary. */
  missed: ProbeMiss[];
  /** A second summary was asked for, naming what the first missed. */
  retried: boolean;
  /** Misses of the summary committed: the appendix restored them (sections cannot be restored). */
  omitted: ProbeMiss[];
}

const norm = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[`*_>]/g, '')
    .replace(/\s+/g, ' ')
    .trim();

/** The start of a text (its first line, at most this long) by which a quote of it is recognized. */
const QUOTE_CHARS = 60;
const quoteKey = (text: string): string => norm(text.split('\n').find((l) => l.trim() !== '') ?? '').slice(0, QUOTE_CHARS);

const headings = (summary: string): Set<string> =>
  new Set([...summary.matchAll(/^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/gm)].map((m) => norm(m[1]!.replace(/:/g, ''))));

/** The facts `summary` misses: sections (by heading), modified files, the pending request, standing failures. */
export function probeSummary(summary: string, facts: LedgerFacts, sections: readonly string[]): { probed: number; missed: ProbeMiss[] } {
  const text = norm(summary);
  const heads = headings(summary);
  const missed: ProbeMiss[] = [];
  for (const s of sections) if (!heads.has(norm(s))) missed.push({ kind: 'section', fact: s });
  for (const f of facts.modified) if (!text.includes(norm(f))) missed.push({ kind: 'modified', fact: f });
  if (facts.pendingRequest !== undefined && !text.includes(quoteKey(facts.pendingRequest))) missed.push({ kind: 'request', fact: facts.pendingRequest });
  for (const f of facts.failures) if (!text.includes(quoteKey(f))) missed.push({ kind: 'failure', fact: f });
  const probed = sections.length + facts.modified.length + (facts.pendingRequest !== undefined ? 1 : 0) + facts.failures.length;
  return { probed, missed };
}

const LABEL: Record<ProbeKind, string> = {
  section: 'the section',
  modified: 'the modified file',
  request: "the person's latest request, quoted verbatim",
  failure: 'the failure still standing',
};

/** What a retry of the summary is told it must add. */
export function retryInstruction(missed: readonly ProbeMiss[]): string {
  const lines = missed.map((m) => `- ${LABEL[m.kind]}: ${m.kind === 'section' ? `## ${m.fact}` : m.fact.split('\n')[0]}`);
  return ['A draft of this checkpoint left out facts it must carry. Write the whole checkpoint again, and include:', ...lines].join('\n');
}

export const APPENDIX_TITLE = 'Omitted by the summary';

/** The deterministic appendix of the facts the committed summary misses ('' when none can be restored). */
export function omittedAppendix(omitted: readonly ProbeMiss[]): string {
  const lines: string[] = [];
  for (const m of omitted) {
    if (m.kind === 'modified') lines.push(`- Modified file: ${m.fact}`);
    else if (m.kind === 'failure') lines.push(`- Failure still standing: ${m.fact}`);
    else if (m.kind === 'request')
      lines.push(
        `- The person's latest request:\n${m.fact
          .split('\n')
          .map((l) => `  > ${l}`)
          .join('\n')}`,
      );
  }
  if (lines.length === 0) return '';
  return [`## ${APPENDIX_TITLE}`, 'Restored from the session log (the summary left these out):', ...lines].join('\n');
}
