// The compaction report (what the working-state ledger carried, what the summary's probes found)
// stored with its record as JSON: one column, so that the report can grow without a migration.
import type { Migration } from './migration.js';

export const v11CompactionReport: Migration = {
  version: 11,
  description: "compaction reports: the ledger's carry and the summary's probes (JSON)",
  up(db) {
    db.exec('ALTER TABLE compactions ADD COLUMN report TEXT');
  },
};
