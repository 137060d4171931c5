// The only module of the program that touches SQLite (better-sqlite3, loaded by sqlite.ts).
export { openStore } from './open.js';
export { StoreError, isStoreError, type StoreErrorKind } from './errors.js';
export { NativeModuleError, probeSqlite, type SqliteProbe } from './sqlite.js';
export { SCHEMA_VERSION } from './migrations.js';
export type {
  ArchivedItem,
  ArchiveHit,
  FileSnapshot,
  NewSnapshot,
  RewindRecord,
  SnapshotTurn,
  ArchiveKind,
  CompactionInEffect,
  RevertRequest,
  RewindInEffect,
  LeaseHolder,
  LeaseOwner,
  LeaseResult,
  NewSession,
  ParentLink,
  NewSpill,
  SpillArchive,
  SpilledOutput,
  OpenStoreOptions,
  SearchOptions,
  SessionInfo,
  SessionPatch,
  Store,
  TokenCounter,
  TranscriptEntry,
  VisibleEntry,
  VisibleRewrite,
} from './types.js';
