// The UI's handlers for tool calls (tool_start … tool_end, the output in between) and the
// sub-agents a Task call runs (child events between its tool_start and tool_end).
import type { HandlerTable } from './events-host.js';
import { finishedToolItem } from './live-events.js';
import { keyArgument } from './transcript.js';

export type ToolEventType = 'tool_start' | 'tool_progress' | 'tool_end' | 'child';

export const toolHandlers: HandlerTable<ToolEventType> = {
  tool_start: (h, ev) => {
    const l = h.live.get();
    const summary = ev.summary || keyArgument(ev.input);
    h.toolInputs.set(ev.id, { name: ev.name, summary });
    h.patchLive({
      writingTools: l.writingTools.filter((t) => t.id !== ev.id),
      running: [...l.running.filter((t) => t.id !== ev.id), { id: ev.id, name: ev.name, summary, startedAt: h.now() }],
    });
  },
  tool_progress: (h, ev) => h.liveOutput.push(ev.id, ev.text),
  tool_end: (h, ev) => {
    const l = h.live.get();
    const streamed = h.liveOutput.take(ev.id);
    const known = l.running.find((t) => t.id === ev.id) ?? h.toolInputs.get(ev.id);
    const item = finishedToolItem(ev, known?.summary ?? '', streamed);
    if (ev.status === 'interrupted') h.turnShowedInterrupt = true;
    h.expander.finished(item);
    h.toolInputs.delete(ev.id);
    h.append(item);
    h.tasks.toolEnded(ev);
    h.patchLive({ running: l.running.filter((t) => t.id !== ev.id) });
  },
  child: (h, ev) => {
    if (ev.state.sessionId !== undefined) h.expander.childStarted(ev.state.toolUseId, ev.state.sessionId);
    h.tasks.child(ev.state);
  },
};
