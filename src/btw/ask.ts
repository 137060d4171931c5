// /btw's request: a side question answered from the session's context as it stands (its system prompt and
// history, the cached prefix), in one request without tools, and kept out of the history: the
// answer is shown, nothing is stored, the next turn is sent as if it was never asked (Claude
// Code's /btw). Its usage is billed to the session (/cost). It waits for a running turn to end,
// so the history it sends is whole.
import type { CommandSession } from '../capability/context.js';
import { newId, type Message } from '../llm/messages.js';
import { completeStream } from '../llm/provider.js';
import { promptText } from '../promptText.js';
import QUESTION from './question.md';

/** The answer is short: a side question, not work. */
const MAX_ANSWER_TOKENS = 2_048;

/** The request's messages: the history, then the question (joined to a last message of the person's, so roles still alternate). */
export function asideMessages(history: readonly Message[], question: string): Message[] {
  const block = { type: 'text' as const, text: promptText(QUESTION, { question }) };
  const last = history.at(-1);
  if (last?.role === 'user') return [...history.slice(0, -1), { ...last, blocks: [...last.blocks, block] }];
  return [...history, { id: newId(), role: 'user', blocks: [block], kind: 'normal', createdAt: Date.now() }];
}

/** Asks the side question; returns the answer's text. Throws the provider's error (shown as the command's message). */
export async function askAside(session: CommandSession, question: string, signal: AbortSignal): Promise<string> {
  const { system, provider, config } = session.frame();
  const model = config.model;
  const done = await completeStream(provider, {
    model: model.name,
    system,
    messages: asideMessages(session.messages(), question),
    tools: [],
    maxTokens: Math.min(MAX_ANSWER_TOKENS, model.maxOutputTokens),
    cacheKey: session.id,
    signal,
  });
  session.bill(done.model, done.usage);
  const answer = done.blocks
    .flatMap((b) => (b.type === 'text' ? [b.text] : []))
    .join('')
    .trim();
  return answer === '' ? '(the model gave no answer)' : answer;
}
