import { afterEach, describe, it } from 'vitest';
import { cleanup } from 'ink-testing-library';
import { FakeController, renderApp, waitFor } from './helpers.js';

afterEach(() => cleanup());

// While the provider sends nothing, the activity line says so (the loop reports every 5 s),
// and it goes back to normal as soon as the reply begins.
describe('waiting for the provider', () => {
  it('shows "No response yet, N s", then "No data for N s" when a started reply stalls', async () => {
    const c = new FakeController();
    const app = renderApp(c);
    c.emit({ type: 'turn_start', turnId: 't' }, { type: 'request_start', step: 1, attempt: 1 });
    c.emit({ type: 'waiting', seconds: 30, attempt: 1, stalled: false });
    await app.waitForText('No response yet, 30 s…');
    c.emit({ type: 'text_delta', text: 'Here it comes' });
    await waitFor(() => !app.frame().includes('No response yet'), app.frame);
    c.emit({ type: 'waiting', seconds: 10, attempt: 2, stalled: true });
    await app.waitForText('No data for 10 s (attempt 2)…');
  });
});
