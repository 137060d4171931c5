// The compaction engine's public surface. The session needs the engine, the tokenizer loader
// and the types; the pure functions are exported for the UI (/context) and for tests.
export { CompactionEngine, CANCELLED, type CompactionContext, type EngineDeps, type Emit, type Outcome, type CompactionOutcome, type ResponseObservation } from './engine.js';
export { loadTokenizer, tokenizerLoaded, createTokenCounter, TokenCounter, IMAGE_TOKENS, type CountFn } from './tokens.js';
export { thresholds, contextUsage, gaugeState, compactionBudgets, type Thresholds, type ContextUsage, type GaugeState, type CompactionBudgets } from './budget.js';
export { initialState, normalizeState, type CompactionState, type Calibration, type Anchor } from './guards.js';
export { selectMicro, applyMicro, clearedPlaceholder, toolKeyArgument, type DescribeToolUse, type MicroCandidate } from './micro.js';
export { selectSplit, partitionHead, cutKind, type Split } from './split.js';
export { reactiveTailBudget, detectSilentOverflow, type SilentOverflow } from './overflow.js';
export { checkpointSummary } from './checkpoint.js';
export type { ReadFile } from './restore.js';
export type { SummarizerModel } from './summarize.js';
export * from './types.js';
