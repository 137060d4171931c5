// Ids of the history records that take messages out of view start with what made them.

export const REWIND_ID_PREFIX = 'rw';
export const REVERT_ID_PREFIX = 'rv';
/** A rewind of the session's own: a prompt without a reply taken back into the person's input (promptBack.ts). */
export const WITHDRAW_ID_PREFIX = 'wd';

/** What took a message out of view, from the id of the record that did (its archived_by). */
export function archiveCause(recordId: string): string {
  if (recordId.startsWith(`${REWIND_ID_PREFIX}_`)) return 'rewind';
  if (recordId.startsWith(`${REVERT_ID_PREFIX}_`)) return '/uncompact';
  if (recordId.startsWith(`${WITHDRAW_ID_PREFIX}_`)) return 'withdrawal';
  return 'compaction';
}
