import { describe, expect, it } from 'vitest';
import { hiddenFromShell, secretVars, withoutSecrets } from '../../src/config/secrets.js';

// bash.stripEnv with a wildcard (issue 30, test strength: it had no test). "AWS_*" hides every
// variable starting with AWS_ from Bash and registers it for redaction; a name that only looks
// alike stays. Mutations this fails: a wildcard compared as an exact name, a prefix that keeps
// the "*", passEnv's wildcard not exempting.

const bash = (stripEnv: string[], passEnv: string[] = []) => ({ timeoutMs: 1, maxTimeoutMs: 1, maxOutputChars: 1, maxBackground: 1, passEnv, stripEnv });
const env = { AWS_SECRET_ACCESS_KEY: 's', AWS_SESSION_TOKEN: 't', AWSOME: 'no', PATH: '/bin', MY_TOKEN: 'm' };

describe('bash.stripEnv', () => {
  it('a wildcard hides every variable with that prefix, and only those; an exact name hides itself', () => {
    const hidden = hiddenFromShell({ bash: bash(['AWS_*', 'MY_TOKEN']) }, env);
    expect(hidden).toEqual(expect.arrayContaining(['AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'MY_TOKEN']));
    expect(hidden).not.toContain('AWSOME');
    expect(hidden).not.toContain('PATH');
    expect(secretVars({ bash: bash(['AWS_*']) }, env)).toEqual(expect.arrayContaining(['AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN']));
  });

  it('passEnv with a wildcard lets them through to Bash, still redacted', () => {
    const config = { bash: bash(['AWS_*'], ['AWS_SESSION_*']) };
    expect(hiddenFromShell(config, env)).toContain('AWS_SECRET_ACCESS_KEY');
    expect(hiddenFromShell(config, env)).not.toContain('AWS_SESSION_TOKEN');
    expect(secretVars(config, env)).toContain('AWS_SESSION_TOKEN');
  });

  it("withoutSecrets leaves out every secret variable, passEnv's too (an editor or the statusLine command gets no key)", () => {
    const config = { apiKeyEnv: 'MY_KEY', bash: bash(['AWS_*'], ['AWS_SESSION_*']) };
    expect(withoutSecrets(config, { ...env, ANTHROPIC_API_KEY: 'k', MY_KEY: 'm' })).toEqual({ AWSOME: 'no', PATH: '/bin', MY_TOKEN: 'm' });
  });
});
