// Loads the Ink app for a real terminal.
//
// Ink decides once, when its module is first evaluated, whether it runs "in CI" (a CI or
// CONTINUOUS_INTEGRATION variable that is not 0/false). In that mode it writes only the final
// frame at exit, so the prompt, the streaming reply and the gauge never appear. The TUI only
// starts on a terminal, where that guess is wrong, so Ink is loaded with those variables hidden
// and they are put back at once: the commands the model runs still see the person's environment.
// (The terminal is asked how wide it draws an emoji with a skin-tone modifier before this load,
// by interactive.ts: emoji-probe.ts.)

const CI_VARIABLES = ['CI', 'CONTINUOUS_INTEGRATION'] as const;

export async function loadTui(): Promise<typeof import('./app.js')> {
  const saved = new Map<string, string>();
  for (const name of CI_VARIABLES) {
    const value = process.env[name];
    if (value !== undefined) {
      saved.set(name, value);
      delete process.env[name];
    }
  }
  try {
    return await import('./app.js');
  } finally {
    for (const [name, value] of saved) process.env[name] = value;
  }
}
