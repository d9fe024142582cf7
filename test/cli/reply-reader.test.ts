import { describe, expect, it } from 'vitest';
import { readSpecReply } from '../../src/formalize/replies/spec-reply.js';
import { canonicalSpecText, checkSpec } from '../../src/language/index.js';
import { loadStateSchema } from '../../src/schema/index.js';
import { readText, restaurant } from './examples.js';
import { run } from './run.js';

/**
 * A spec inside an LLM reply is read by one reader: `check`, `replay` and the
 * formalizer take the same spec out of the same reply, and refuse the same replies.
 */

const spec = readText(restaurant.spec);
const statesPath = restaurant.schemaArgs[1];
const trace = readText(restaurant.traces[0] ?? '');

function schema() {
  const loaded = loadStateSchema(readText(statesPath), { id: 'states' });
  if (!loaded.ok) throw new Error(`${statesPath} does not load`);
  return loaded.value;
}

const expected = (() => {
  const checked = checkSpec(spec, schema());
  if (!checked.ok) throw new Error('the restaurant spec does not check');
  return canonicalSpecText(checked.value);
})();

const readable: readonly { readonly name: string; readonly reply: string }[] = [
  { name: 'plain', reply: spec },
  { name: 'with prose around it', reply: `Here is the spec:\n${spec}\nLet me know.\n` },
  { name: 'in a code fence', reply: `Here is the spec:\n\n\`\`\`intent\n${spec}\`\`\`\n` },
  { name: 'in <CHC> tags', reply: `<CHC>\n${spec}</CHC>\n` },
  { name: 'in **<CHC>** tags', reply: `**<CHC>**\n${spec}**</CHC>**\n` },
  { name: 'in __<CHC>__ tags', reply: `Spec:\n__<CHC>__\n${spec}__</CHC>__\n` },
  { name: 'with → and ⇒ arrows', reply: spec.replace(' -> ', ' → ').replace(' -> ', ' ⇒ ') },
];

/** `⟹` is no arrow of the language (LANGUAGE.md): every reader refuses it alike. */
const refused: readonly { readonly name: string; readonly reply: string }[] = [
  { name: 'with a ⟹ arrow', reply: spec.replace(' -> ', ' ⟹ ') },
  {
    name: 'with a ⟹ arrow in **<CHC>** tags',
    reply: `**<CHC>**\n${spec.replace(' -> ', ' ⟹ ')}**</CHC>**\n`,
  },
];

function formalizerReads(reply: string): string | undefined {
  const read = readSpecReply(reply);
  if (read.kind !== 'spec') return undefined;
  const checked = checkSpec(read.text, schema());
  return checked.ok ? canonicalSpecText(checked.value) : undefined;
}

async function checkReads(reply: string): Promise<boolean> {
  const result = await run(['check', 'reply.intent', '--states', statesPath], {
    files: { 'reply.intent': reply },
  });
  return result.code === 0;
}

async function replayOf(specText: string) {
  return run(['replay', 'reply.intent', '--states', statesPath, '--trace', 'trace.jsonl'], {
    files: { 'reply.intent': specText, 'trace.jsonl': trace },
  });
}

describe('a spec inside a reply', () => {
  it.each(readable)(
    '$name: the formalizer, check and replay read the same spec',
    async ({ reply }) => {
      expect(formalizerReads(reply)).toBe(expected);
      expect(await checkReads(reply)).toBe(true);
      const replayed = await replayOf(reply);
      const plain = await replayOf(spec);
      expect(replayed.code).toBe(0);
      expect(replayed.stdout).toBe(plain.stdout);
    },
  );

  it.each(refused)('$name: the formalizer, check and replay all refuse it', async ({ reply }) => {
    expect(formalizerReads(reply)).toBeUndefined();
    expect(await checkReads(reply)).toBe(false);
    expect((await replayOf(reply)).code).toBe(1);
  });
});
