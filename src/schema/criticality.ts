import { isRecord } from '../support/is-record.js';

function wordSet(words: string): ReadonlySet<string> {
  return new Set(words.trim().split(/\s+/));
}

/**
 * Verbs whose tools change the world: they spend, send, delete, publish, grant, book,
 * move things or people, or change settings. A tool named by one of these is critical.
 */
export const criticalToolVerbs: ReadonlySet<string> = wordSet(`
  accept activate add apply approve archive assign authorize ban block book booking buy
  call cancel change charge checkout clear click close commit configure confirm control
  create deactivate decline delete deploy deposit destroy disable dispatch donate drop
  edit empty enable enroll erase execute export fill follow forward give go grant hand
  handle import input insert install invite join kill launch leave like lock make manage
  manipulate merge mint modify move mute order organize patch pay place post publish
  purchase purge push put redeem redirect refund register reject release remove rename
  replace reply request reserve reset restart restore retweet revert revoke run save
  schedule sell send set setup share shutdown sign start stop store submit subscribe swap
  terminate toggle trade transact transfer truncate turn type unblock unfollow uninstall
  unlike unlock unmute unsubscribe update upload upsert vote withdraw wipe write
`);

/** Verbs of tools that only look: a name that starts with one of these is not critical. */
export const readOnlyToolVerbs: ReadonlySet<string> = wordSet(`
  access analyze browse calculate can check compare compute count describe detect
  estimate evaluate explain fetch find get has identify inspect is list locate look
  lookup monitor predict preview query read recommend retrieve scan search see show
  summarize track validate verify view watch
`);

// Words after which a second verb starts: `SearchAndDelete`, `AddOrUpdateContact`.
const conjunctions: ReadonlySet<string> = new Set(['and', 'or', 'then']);

/**
 * The lower-cased words of a CamelCase, snake_case or kebab-case name:
 * `TodoistDeleteTask` → `todoist delete task`, `get_URLContent` → `get url content`.
 */
export function splitNameWords(name: string): string[] {
  const words = name.match(/[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g) ?? [];
  return words.map((word) => word.toLowerCase());
}

/**
 * Whether a tool is critical, judged by its name, for tool formats that carry no
 * hints (ToolEmu, OpenAI functions). The verbs of a name are its first known verb
 * (read-only or critical; words before it, like a service prefix, are skipped) and
 * every known verb right after `and`/`or`/`then`. The tool is critical when one of
 * them is a critical verb — so `CheckLockStatus` is not critical (its verb is Check,
 * and Lock is a noun there) but `SearchAndDeleteTasks` is. A name with no known verb
 * is not critical.
 *
 * @example
 * isCriticalByName('DeleteTask'); // true
 * isCriticalByName('github_create_issue'); // true
 * isCriticalByName('SearchTasks'); // false
 */
export function isCriticalByName(name: string): boolean {
  const words = splitNameWords(name);
  let sawVerb = false;
  for (let index = 0; index < words.length; index++) {
    const word = words[index] ?? '';
    const isVerb = criticalToolVerbs.has(word) || readOnlyToolVerbs.has(word);
    if (!isVerb) continue;
    const afterConjunction = conjunctions.has(words[index - 1] ?? '');
    if ((!sawVerb || afterConjunction) && criticalToolVerbs.has(word)) return true;
    sawVerb = true;
  }
  return false;
}

/**
 * Whether an MCP tool is critical, by the defaults of the MCP specification's tool
 * annotations: `readOnlyHint` defaults to false and `destructiveHint` to true, so a
 * tool is critical unless it says it is read-only or says it is not destructive.
 * Hints that are not booleans count as absent, which keeps the tool critical.
 *
 * @example
 * isCriticalByAnnotations({ destructiveHint: true }); // true
 * isCriticalByAnnotations({ readOnlyHint: true }); // false
 * isCriticalByAnnotations(undefined); // true
 */
export function isCriticalByAnnotations(annotations: unknown): boolean {
  if (!isRecord(annotations)) return true;
  if (annotations['readOnlyHint'] === true) return false;
  return annotations['destructiveHint'] !== false;
}
