// The one rule for history changes vs thinking. A thinking block's signature is bound to
// everything the model saw before it (model, system, tools, every earlier message): after a
// change at position p (micro clearing, a compaction's checkpoint, a repair, /uncompact,
// /rewind, another system prompt or tool list) the thinking blocks after p are invalid, and
// so is every later one. So each reply that thinks is stored with the hash of the prefix it
// was produced after (Message.prefixHash), and every request is built through
// replayableHistory: a message's thinking goes back only while the prefix before it, as sent
// now, hashes as it did when the reply was made. After a change at p every reply made before
// the change and located after p mismatches, so its thinking is left out of the request (they stay in the store and the archive). Leaving out thinking
// of the current unfinished tool loop would be refused by the API, so what changes history
// waits for the loop's end (compaction/micro.ts, compaction/engine.ts; docs/providers.md, Thinking).
import { createHash, type Hash } from 'node:crypto';
import type { Block, Message } from './messages.js';
import type { ToolSpec } from './provider.js';

const isThinking = (b: Block): boolean => b.type === 'thinking' || b.type === 'redacted_thinking';

export interface Replayable {
  /** The messages to send: the same objects where nothing was left out. */
  messages: Message[];
  /** Hash of the whole prefix as sent: what a reply to this request is bound to. */
  prefixHash: string;
  /** Messages whose thinking was left out. */
  dropped: number;
}

function feed(h: Hash, value: unknown): void {
  h.update(JSON.stringify(value));
  h.update('\u0000');
}

/** Hash state after the parts every request starts with. */
function start(model: string, system: string, tools: readonly ToolSpec[]): Hash {
  const h = createHash('sha256');
  feed(h, { model, system, tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })) });
  return h;
}

/** The role and blocks of a message as sent (the only parts that reach the wire: a text block's origin and a result's outcome never do). */
const wireOf = (m: Message): unknown => ({ role: m.role, blocks: m.blocks.map(sentPart) });

function sentPart(b: Block): Block {
  if (b.type === 'text' && b.origin !== undefined) {
    const { origin: _, ...sent } = b;
    return sent;
  }
  if (b.type === 'tool_result' && b.outcome !== undefined) {
    const { outcome: _, ...sent } = b;
    return sent;
  }
  return b;
}

/** A tool call's input or result as the note shows it (long ones cut). */
const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}… (cut)` : text);

/**
 * An interrupted tool loop as a note in the person's turn: the calls the reply made and what came
 * back, as the history holds them (nothing invented), for a request that cannot carry the loop.
 */
function loopNote(calls: readonly Block[], results: readonly Block[]): Block {
  const lines = calls.flatMap((c) => {
    if (c.type !== 'tool_use') return [];
    const r = results.find((b) => b.type === 'tool_result' && b.toolUseId === c.id);
    const result = r?.type === 'tool_result' ? clip(r.content, 2_000) : '(no result)';
    return [`- ${c.name} ${clip(JSON.stringify(c.input), 500)}: ${result}`];
  });
  return { type: 'text', text: `[Your previous reply's tool calls, interrupted before the reply went on:\n${lines.join('\n')}]` };
}

/** The assistant message at i opened a tool loop that was interrupted: its results, then the person's next message. */
const interruptedLoop = (messages: readonly Message[], i: number): boolean =>
  messages[i]!.blocks.some((b) => b.type === 'tool_use') &&
  messages[i + 1]?.role === 'user' &&
  messages[i + 1]!.blocks.some((b) => b.type === 'tool_result') &&
  messages[i + 2]?.role === 'user';

/**
 * Messages for a request under the rule above, and the hash a reply to it is bound to.
 * `closeLostLoops` (thinking on, and the model cannot turn it off): an interrupted tool loop
 * whose reply goes without thinking (another model made it) cannot be sent as a loop, since the
 * API wants the final loop's reply to start with thinking; its calls and results go as a note in
 * the person's turn instead. The same history always gives the same note, so the replies after
 * it stay bound to what was sent.
 * Cost: one SHA-256 pass over the history per request (a digest copy per thinking message).
 */
export function replayableHistory(
  model: string,
  system: string,
  tools: readonly ToolSpec[],
  messages: readonly Message[],
  opts: { closeLostLoops?: boolean } = {},
): Replayable {
  const h = start(model, system, tools);
  const out: Message[] = [];
  let dropped = 0;
  let note: Message | undefined;
  for (const [i, m] of messages.entries()) {
    let sent = m;
    if (note) {
      sent = note;
      note = undefined;
    } else if (m.role === 'assistant' && m.blocks.some(isThinking)) {
      // the chain covers the prefix as sent, earlier left-out blocks included: a reply made
      // after a change matches it, every one made before it does not
      const valid = m.prefixHash !== undefined && h.copy().digest('hex') === m.prefixHash;
      if (!valid) {
        dropped++;
        sent = { ...m, blocks: m.blocks.filter((b) => !isThinking(b)) };
      }
    }
    const first = sent.blocks[0];
    if (opts.closeLostLoops && sent.role === 'assistant' && !(first && isThinking(first)) && interruptedLoop(messages, i)) {
      const results = messages[i + 1]!;
      note = { ...results, blocks: [loopNote(sent.blocks, results.blocks), ...results.blocks.filter((b) => b.type !== 'tool_result')] };
      sent = { ...sent, blocks: sent.blocks.filter((b) => b.type !== 'tool_use' && !isThinking(b)) };
      if (sent.blocks.length === 0) continue;
    }
    feed(h, wireOf(sent));
    out.push(sent);
  }
  return { messages: out, prefixHash: h.digest('hex'), dropped };
}
