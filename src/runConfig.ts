// The run's configuration from its flags, its config files and its environment (no database,
// no provider: the TUI draws a fresh session's first frame from it before the runtime is built).
import { world } from './runtime/world.js';
import type { GlobalOptions } from './cliOptions.js';
import { loadConfig, type Config, type ConfigFlags } from './config/config.js';

export function flagsOf(opts: GlobalOptions): ConfigFlags {
  return {
    ...(opts.provider ? { provider: opts.provider } : {}),
    ...(opts.model ? { model: opts.model } : {}),
    ...(opts.baseUrl ? { baseURL: opts.baseUrl } : {}),
    ...(opts.db ? { db: opts.db } : {}),
    ...(opts.permissionMode ? { permissionMode: opts.permissionMode } : {}),
    ...(opts.maxSteps ? { maxSteps: opts.maxSteps } : {}),
    ...(opts.addDir && opts.addDir.length > 0 ? { addDirs: opts.addDir } : {}),
    ...(opts.allowedTools && opts.allowedTools.length > 0
      ? {
          allowedTools: opts.allowedTools
            .flatMap((t) => t.split(','))
            .map((t) => t.trim())
            .filter((t) => t !== ''),
        }
      : {}),
    ...(opts.mcpTrust ? { mcpTrust: true } : {}),
  };
}

export function configFor(opts: GlobalOptions, env: NodeJS.ProcessEnv = world().env): Config {
  return loadConfig({ cwd: world().cwd, env, flags: flagsOf(opts) });
}
