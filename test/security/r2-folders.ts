import { reviewTools } from './r2-review-tools.js';

/**
 * The round-2 review's folder world (security-round-2.md, "How to run the reproductions"):
 * its tools.json (as the file a host passes with `--tools`), `protect.intent` and the trace
 * lines that list a folder and remove a file; replayed with `replay` (r2-review-tools.ts).
 */
export const folderTools = JSON.stringify(reviewTools);

/** "Clean up /reports, but never remove anything while an NDA is in it." */
export const protect =
  'not ListFolderResult(entries[name contains "nda"] != []) & RemoveFile() -> Removed\nRemoved -> Done\n';
/** The same over the untyped (json) listing. */
export const protectRaw =
  'not ListFolderRawResult(entries[name contains "nda"] != []) & RemoveFile() -> Removed\nRemoved -> Done\n';

export const list = (path: string, tool = 'ListFolder') => ({
  propose: { action: { name: tool, args: { path } } },
  expect: 'allow',
});
export const listed = (path: string | undefined, entries: unknown, tool = 'ListFolder') => ({
  observe: {
    updates: { [`${tool}Result`]: { ...(path === undefined ? {} : { path }), entries } },
  },
});
export const remove = (path: string) => ({
  propose: { action: { name: 'RemoveFile', args: { path } } },
});
