// When a sub-agent's report gets cut. The report is the whole point of a child, so it is
// cut only when it is longer than agents.reportChars (default 40,000 characters, ~10k
// tokens: a report, not a dump); the cut keeps the head — where a report puts its answer —
// and says how much was left out and where the whole of it is (the child's session, which
// `agent sessions show` prints and Recall searches). A large output still goes through the
// tool-result path afterwards, like any tool's.

import { promptText } from '../promptText.js';
import REPORT_CUT from './reportCut.md';
import { fmtInt } from '../tools/format.js';

export function capReport(report: string, maxChars: number, childId: string): string {
  if (report.length <= maxChars) return report;
  const kept = report.slice(0, maxChars);
  return `${kept}\n${promptText(REPORT_CUT, { more: fmtInt(report.length - maxChars), childId })}`;
}
