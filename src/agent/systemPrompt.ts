import { promptText } from '../promptText.js';
import DEFAULT_ROLE from './defaultRole.md';
import PROJECT_INSTRUCTIONS from './projectInstructions.md';
import SYSTEM_PROMPT from './systemPrompt.md';

export interface SystemPromptInput {
  cwd: string;
  platform: string;
  model: string;
  /** The instruction files in force (instructions.ts: AGENTS.md / CLAUDE.md hierarchy, personal file), rendered. */
  agentsMd?: string;
  /** A sub-agent's own system prompt (its agent file's body): it replaces the opening paragraph. */
  role?: string;
}

/**
 * The system prompt holds only what stays the same for the whole session (it heads the cached
 * prefix of every request); volatile facts such as the date go into the history (dateNote.ts).
 * It does not list the tools: their definitions already name and describe them (issue 48).
 */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const role = input.role?.trim() || promptText(DEFAULT_ROLE);
  const base = promptText(SYSTEM_PROMPT, { role, cwd: input.cwd, platform: input.platform, model: input.model });
  const instructions = input.agentsMd?.trim();
  return instructions ? `${base}\n\n${promptText(PROJECT_INSTRUCTIONS, { instructions })}` : base;
}
