// What sits under the live region: the first pending approval, or the open picker or panel,
// or else the prompt.
import { memo, useCallback } from 'react';
import type { PromptModel } from '../prompt-model.js';
import { useStore } from '../store.js';
import type { UiStore } from '../ui-store.js';
import { ApprovalPrompt } from './ApprovalPrompt.js';
import { HistoryBrowser } from './HistoryBrowser.js';
import { ModelPicker } from './ModelPicker.js';
import { PromptView } from './PromptView.js';
import { RewindPicker } from './RewindPicker.js';
import { SessionPicker } from './SessionPicker.js';
import { TasksPanel } from './TasksPanel.js';

const MemoPromptView = memo(PromptView);

export function Overlay({ store, prompt, sessionId }: { store: UiStore; prompt: PromptModel; sessionId: string }) {
  const approvals = useStore(store.approvals);
  const picker = useStore(store.picker);
  const models = useStore(store.models);
  const rewind = useStore(store.rewind);
  const taskPanel = useStore(store.taskPanel.state);
  const refreshTasks = useCallback(() => store.taskPanel.refresh(), [store]);
  const history = useStore(store.history);
  const approval = approvals[0];
  if (approval) return <ApprovalPrompt view={approval} pending={approvals.length} />;
  if (picker) return <SessionPicker state={picker} currentId={sessionId} />;
  if (models) return <ModelPicker state={models} />;
  if (rewind) return <RewindPicker state={rewind} />;
  if (taskPanel) return <TasksPanel state={taskPanel} refresh={refreshTasks} />;
  if (history) return <HistoryBrowser state={history} />;
  return <MemoPromptView model={prompt} />;
}
