import type Database from 'better-sqlite3';

/** One forward step of the schema: takes a version N−1 database to version N (migrations.ts lists them). */
export interface Migration {
  version: number;
  description: string;
  up(db: Database.Database): void;
}
