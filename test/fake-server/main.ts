/**
 * Runs the fake provider server standalone, for terminal end-to-end tests and benchmarks:
 *
 *   npx tsx test/fake-server/main.ts [--port N] [--host H] [--script file.json]
 *        [--context-window N] [--overflow FLAVOR] [--token-multiplier X] [--api-key KEY]
 *        [--idle-shutdown-ms N]
 *
 * Prints the server's URL alone on the first stdout line (Anthropic base URL = URL,
 * OpenAI base URL = URL/v1), then one line per request on stderr. Stops on SIGINT/SIGTERM,
 * when stdin closes if --exit-on-stdin-close is given, or after --idle-shutdown-ms
 * (default 30 minutes) without a request.
 *
 * Script file (JSON), every key optional:
 *   {
 *     "options": { "contextWindow": 8000, "overflow": "llamacpp", "tokenMultiplier": 1.2, ... },
 *     "replies": [ <Reply>, ... ],                     // consumed in order
 *     "rules": [ { "when": { "systemIncludes": "summar", "lastUserIncludes": "...",
 *                            "lastToolResultIncludes": "...", "provider": "openai", "hasTools": true },
 *                  "reply": <Reply> | [<Reply>, ...],  // an array cycles
 *                  "times": 3 } ],                     // default unlimited
 *     "fallback": <Reply>
 *   }
 * Rules are tried before the queue; the first matching rule with uses left answers.
 * Without a rule or a queued reply, a prompt's @-directives script the model (directives.ts:
 * @task {json}, @read, @bash, @then, @report, @fail, @slow), sub-agents' prompts included.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { lastToolResults, lastUserText, startFakeServer, type FakeServerOptions } from './server.js';
import type { OverflowFlavor, Reply, Responder } from './types.js';

export interface ScriptRule {
  when?: {
    systemIncludes?: string;
    lastUserIncludes?: string;
    lastToolResultIncludes?: string;
    provider?: 'anthropic' | 'openai';
    hasTools?: boolean;
  };
  reply: Reply | Reply[];
  times?: number;
}

export interface Script {
  options?: Omit<FakeServerOptions, 'responder' | 'replies' | 'fallback'>;
  replies?: Reply[];
  rules?: ScriptRule[];
  fallback?: Reply;
}

/** Builds a responder from script rules (exported for tests). */
export function rulesResponder(rules: readonly ScriptRule[]): Responder {
  const state = rules.map(() => ({ used: 0 }));
  return (req) => {
    for (const [i, rule] of rules.entries()) {
      const s = state[i]!;
      if (rule.times !== undefined && s.used >= rule.times) continue;
      const w = rule.when ?? {};
      if (w.provider && w.provider !== req.provider) continue;
      if (w.systemIncludes !== undefined && !req.view.system.includes(w.systemIncludes)) continue;
      if (w.lastUserIncludes !== undefined && !(lastUserText(req.view) ?? '').includes(w.lastUserIncludes)) continue;
      if (w.lastToolResultIncludes !== undefined && !lastToolResults(req.view).some((r) => r.content.includes(w.lastToolResultIncludes!))) continue;
      if (w.hasTools !== undefined && w.hasTools !== req.view.toolNames.length > 0) continue;
      const reply = Array.isArray(rule.reply) ? rule.reply[s.used % rule.reply.length] : rule.reply;
      s.used++;
      if (reply) return reply;
    }
    return undefined;
  };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      script: { type: 'string' },
      'context-window': { type: 'string' },
      overflow: { type: 'string' },
      'token-multiplier': { type: 'string' },
      'api-key': { type: 'string' },
      'idle-shutdown-ms': { type: 'string' },
      'exit-on-stdin-close': { type: 'boolean' },
      quiet: { type: 'boolean' },
    },
  });
  const script: Script = values.script ? (JSON.parse(readFileSync(values.script, 'utf8')) as Script) : {};
  const opts: FakeServerOptions = { idleShutdownMs: 30 * 60_000, ...script.options };
  if (values.port !== undefined) opts.port = Number(values.port);
  if (values.host !== undefined) opts.host = values.host;
  if (values['context-window'] !== undefined) opts.contextWindow = Number(values['context-window']);
  if (values.overflow !== undefined) opts.overflow = values.overflow as OverflowFlavor;
  if (values['token-multiplier'] !== undefined) opts.tokenMultiplier = Number(values['token-multiplier']);
  if (values['api-key'] !== undefined) opts.apiKey = values['api-key'];
  if (values['idle-shutdown-ms'] !== undefined) opts.idleShutdownMs = Number(values['idle-shutdown-ms']);
  if (script.replies) opts.replies = script.replies;
  if (script.fallback) opts.fallback = script.fallback;
  if (script.rules && script.rules.length > 0) opts.responder = rulesResponder(script.rules);

  const server = await startFakeServer(opts);
  process.stdout.write(`${server.url}\n`);
  if (!values.quiet) {
    let logged = 0;
    const timer = setInterval(() => {
      while (logged < server.requests.length) {
        const r = server.requests[logged++]!;
        process.stderr.write(
          `#${r.seq} ${r.method} ${r.path} → ${r.response?.status ?? '?'} ${r.response?.kind ?? ''} ${r.view ? `${r.view.promptTokens} prompt tokens` : ''}\n`,
        );
      }
    }, 100);
    timer.unref();
  }
  const stop = (): void => void server.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  if (values['exit-on-stdin-close']) {
    process.stdin.resume();
    process.stdin.on('end', stop);
  }
}

if (process.argv[1] && /fake-server[\\/]main\.[cm]?[jt]s$/.test(process.argv[1])) {
  main().catch((e: unknown) => {
    process.stderr.write(`fake server: ${(e as Error).message}\n`);
    process.exit(1);
  });
}
