import { promptText } from '../promptText.js';
import CHUNK from './chunk.md';
import RULES from './checkpointRules.md';
import CONSOLIDATION from './consolidation.md';
import FOCUS from './focus.md';
import IN_PLACE from './inPlace.md';
import IN_PLACE_KEPT from './inPlaceKept.md';
import MODIFIED from './modifiedFiles.md';
import SUMMARIZER from './summarizerSystem.md';
import SUMMARY from './summary.md';
import SUMMARY_UPDATE from './summaryUpdate.md';
import VERIFICATION from './verification.md';
import { escapeDelimiters } from './transcript.js';
import { fmtInt } from '../tools/format.js';

// The summarizer's prompts: the prose is in the .md files beside this one (promptText.ts fills
// in their {{values}}); here, what goes into them.

/** The checkpoint's sections, in order, each with what belongs in it. */
export const CHECKPOINT_SECTIONS: ReadonlyArray<{ title: string; what: string }> = [
  { title: 'Goal', what: 'what the person is ultimately trying to achieve, in one or two sentences' },
  { title: 'User Preferences and Constraints', what: 'how the person wants the work done: stated preferences, rules, limits, tools or styles to use or avoid' },
  { title: 'Project State', what: 'the project as it stands now: structure and architecture facts, what builds, what passes' },
  { title: 'Completed Work', what: 'what has been done, naming the files changed' },
  { title: 'Current Work', what: 'exactly what was in progress when the transcript ends' },
  { title: 'Key Decisions', what: 'decisions taken and why; approaches tried and rejected' },
  { title: 'Files and Symbols', what: 'file paths, functions, types and other symbols that matter, one line each on why' },
  { title: 'Commands, Tests and Results', what: 'commands run and their outcome (exit status, pass/fail counts, the key lines of output)' },
  { title: 'Errors and Fixes', what: 'errors met with their exact message, and how each was fixed or that it still stands' },
  { title: 'Pending User Requests', what: 'every request of the person not yet fully done, quoted verbatim as > blockquotes' },
  { title: 'Next Steps', what: 'the ordered next actions; the first is what to do immediately' },
];

/**
 * Sections a reply must hold (as Markdown headings) to be taken as a checkpoint. A reply to
 * the person's prompt, a preamble or a refusal has none: committed, it would replace the
 * history with something that is not a summary of it.
 */
export const REQUIRED_SECTIONS: readonly string[] = ['Goal'];

/** Why `text` cannot be a checkpoint (empty, a required section missing), or undefined when it can. */
export function checkpointProblem(text: string): string | undefined {
  if (text.trim() === '') return 'the summary came back empty';
  const headings = new Set(
    [...text.matchAll(/^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$/gm)].map((m) =>
      m[1]!
        .replace(/[*_`:]/g, '')
        .trim()
        .toLowerCase(),
    ),
  );
  const missing = REQUIRED_SECTIONS.filter((s) => !headings.has(s.toLowerCase()));
  if (missing.length > 0) return `the reply is not a checkpoint (no ${missing.map((s) => `"## ${s}"`).join(', ')} section)`;
  return undefined;
}

/** The summarizer's system prompt (the transcript path). */
export const SUMMARIZER_SYSTEM = promptText(SUMMARIZER);

/** The checkpoint's structure and the rules of writing it (checkpointRules.md). */
function structure(maxTokens: number): string {
  const sections = CHECKPOINT_SECTIONS.map((s) => `## ${s.title}\n(${s.what})`).join('\n\n');
  return promptText(RULES, { sections, maxTokens: fmtInt(maxTokens) });
}

function focusSection(focus: string | undefined): string {
  const f = focus?.trim();
  if (!f) return '';
  return `\n${promptText(FOCUS, { focus: escapeDelimiters(f) })}\n`;
}

export interface SummaryPromptInput {
  transcript: string;
  /** The summary of the checkpoint being updated. */
  previous?: string | undefined;
  focus?: string | undefined;
  maxTokens: number;
  /** Files Edit/Write changed in the summarized part: the checkpoint must name them. */
  modifiedFiles?: readonly string[] | undefined;
}

function modifiedSection(files: readonly string[] | undefined): string {
  if (!files || files.length === 0) return '';
  return `\n${promptText(MODIFIED, { files: files.map((f) => `- ${escapeDelimiters(f)}`).join('\n') })}\n`;
}

/** The single-request prompt: a new checkpoint, or the update of the previous one. */
export function buildSummaryPrompt(p: SummaryPromptInput): string {
  const intro = p.previous
    ? promptText(SUMMARY_UPDATE, { previous: escapeDelimiters(p.previous.trim()) })
    : 'Write a checkpoint of the conversation in the transcript below.';
  return promptText(SUMMARY, {
    intro,
    focus: focusSection(p.focus),
    modified: modifiedSection(p.modifiedFiles),
    rules: structure(p.maxTokens),
    transcript: p.transcript,
  });
}

/** One part of a head too long for one request. */
export function buildChunkPrompt(p: { transcript: string; part: number; parts: number; focus?: string | undefined; maxTokens: number }): string {
  return promptText(CHUNK, {
    part: String(p.part),
    parts: String(p.parts),
    focus: focusSection(p.focus),
    rules: structure(p.maxTokens),
    transcript: p.transcript,
  });
}

/** Merges partial checkpoints (and the previous checkpoint, which precedes them all) into one. */
export function buildConsolidationPrompt(p: {
  partials: readonly string[];
  previous?: string | undefined;
  focus?: string | undefined;
  maxTokens: number;
}): string {
  const previous = p.previous
    ? `The previous checkpoint, which covers everything before part 1:\n<previous_checkpoint>\n${escapeDelimiters(p.previous.trim())}\n</previous_checkpoint>\n`
    : '';
  const partials = p.partials.map((s, i) => `<partial_summary part="${i + 1}">\n${escapeDelimiters(s.trim())}\n</partial_summary>`).join('\n\n');
  return promptText(CONSOLIDATION, { previous, partials, focus: focusSection(p.focus), rules: structure(p.maxTokens) });
}

/** The optional second pass: check a draft against the transcript and amend it. */
export function buildVerificationPrompt(p: { transcript: string; draft: string; focus?: string | undefined; maxTokens: number }): string {
  return promptText(VERIFICATION, {
    focus: focusSection(p.focus),
    rules: structure(p.maxTokens),
    transcript: p.transcript,
    draft: escapeDelimiters(p.draft.trim()),
  });
}

/** Opens the in-place summary request (so logs, tests and the fake server can tell it from a turn). */
export const IN_PLACE_MARKER = '[Compaction request from the agent, not from the person]';

/**
 * The instruction appended as the last user message when the session's own model summarizes
 * the conversation as it stands (same system prompt, tools and history, so the request reads
 * the provider's prompt cache). `keptFrom` quotes the start of the first message kept verbatim
 * after the checkpoint; absent, the whole conversation is summarized.
 */
export function buildInPlaceSummaryPrompt(p: { keptFrom?: string | undefined; keptCount: number; focus?: string | undefined; maxTokens: number }): string {
  const scope = p.keptFrom
    ? promptText(IN_PLACE_KEPT, { count: `${p.keptCount} message${p.keptCount === 1 ? '' : 's'}`, keptFrom: escapeDelimiters(p.keptFrom) })
    : 'The conversation above is about to be compacted: all of it is replaced by the checkpoint you write now.';
  return promptText(IN_PLACE, { marker: IN_PLACE_MARKER, scope, focus: focusSection(p.focus), rules: structure(p.maxTokens) });
}
