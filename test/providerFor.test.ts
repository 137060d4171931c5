import { describe, expect, it } from 'vitest';
import { CliError } from '../src/cliError.js';
import { loadConfig } from '../src/config/config.js';
import { redact } from '../src/log.js';
import { providerFor } from '../src/providerFor.js';
import { inWorld, processWorld } from '../src/runtime/world.js';
import { tempDir } from './tempDirs.js';

// A provider for a configuration (providerFor.ts): the key it resolves is a secret of the run from
// then on, whichever variable held it; a missing one is a usage error naming what asked for it.

describe('providerFor', () => {
  it('registers the key it resolved as a secret of the run; a missing key is a usage error naming the setting that asked', () => {
    const home = tempDir('agent-provider-for-');
    const key = 'correct-horse-battery-staple-42';
    const env: NodeJS.ProcessEnv = { HOME: home, MY_KEY: ` ${key} ` };
    const w = { ...processWorld(), env, cwd: home, slots: new Map<symbol, unknown>() };
    inWorld(w, () => {
      const config = { ...loadConfig({ cwd: home, home, env, flags: { model: 'claude-sonnet-4-5' } }), apiKeyEnv: 'MY_KEY' };
      expect(redact(`the key ${key}`)).toBe(`the key ${key}`);
      expect(providerFor(config, env)).toBeDefined();
      expect(redact(`the key ${key}`)).toBe('the key [redacted]');
      let refused: unknown;
      try {
        providerFor(config, { HOME: home }, 'compaction.model');
      } catch (e) {
        refused = e;
      }
      expect(refused).toBeInstanceOf(CliError);
      expect((refused as CliError).message).toMatch(/^compaction\.model is served by anthropic, and there is no API key for anthropic: set MY_KEY/);
    });
  });
  // mutation: dropping registerSecret(creds.apiKey) (providerFor.ts) fails it
});
