// What several benchmarks share: the source files their sessions read, and billed input as
// the providers bill it (money is performance).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedRequest } from '../test/fake-server/server.js';

/** Writes mod0.ts … mod{count-1}.ts, 40 small functions each (about 1,000 tokens a file). */
export function writeModules(dir: string, count: number): void {
  for (let i = 0; i < count; i++) {
    const body = Array.from(
      { length: 40 },
      (_, l) => `// module ${i}, line ${l}\nexport function step${l}(input: number): number { return input * ${l + i} + ${l}; }`,
    ).join('\n');
    writeFileSync(join(dir, `mod${i}.ts`), `${body}\n`);
  }
}

/** Anthropic: uncached input + 1.25 × cache writes (5-minute TTL) + 0.1 × cache reads. */
export const anthropicBilled = (q: RecordedRequest): number =>
  q.usage ? q.usage.inputTokens + 1.25 * q.usage.cacheWriteTokens + 0.1 * q.usage.cacheReadTokens : 0;

/** OpenAI: uncached input (cache writes are billed as input) + 0.1 × cached input. */
export const openaiBilled = (q: RecordedRequest): number => (q.usage ? q.usage.inputTokens + q.usage.cacheWriteTokens + 0.1 * q.usage.cacheReadTokens : 0);
