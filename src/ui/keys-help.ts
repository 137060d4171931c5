// The key bindings, as /help lists them under the registry's commands.
export const KEY_BINDINGS: ReadonlyArray<readonly [keys: string, action: string]> = [
  ['Enter', 'send the prompt (typed while the agent works, it is queued)'],
  ['Alt+Enter · Ctrl+J · \\ then Enter', 'new line'],
  ['↑ ↓', 'earlier / later prompts (in a multi-line prompt: move between lines)'],
  ['← → · Home End · Ctrl+A Ctrl+E', 'move the cursor (Alt+← → or Alt+B/F: by word)'],
  ['Ctrl+U · Ctrl+K · Ctrl+W · Ctrl+D', 'delete to line start · to line end · the word before · the character under the cursor'],
  ['Tab', 'complete a /command (again: cycle through the matches)'],
  ['/ menu', '↑↓: choose a command · Enter: run it (one that needs an argument is filled in) · Esc: close'],
  ['Esc', 'interrupt the running turn (the partial reply stays, marked interrupted)'],
  ['Ctrl+O', 'print the full output of the last tool call'],
  ['Ctrl+C', 'clear the prompt, or interrupt the running work; twice within 2 s (when nothing runs): exit'],
  ['Ctrl+D', 'on an empty prompt: exit'],
  ['Ctrl+L', 'clear the screen and redraw the transcript'],
  ['Permission prompt', 'Enter: allow once · 1–3 or ↑↓: choose · with Deny selected, type a note for the model · Esc: deny'],
  ['Session picker', '↑↓: choose · type to filter · Enter: resume · Esc: close'],
  ['! at the start', 'shell mode: !git status runs in your shell at once (no approval); the output goes to the model as context'],
  ['Long pastes', 'shown as [pasted text #n · N lines], sent in full'],
];
