import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSession, loadToolSchema, unwrap } from '../../src/index.js';
import { specOf } from '../engine/fixtures.js';

/**
 * E8/E10 as a class: whatever syntax an answer shows a call in — ReAct under any
 * emphasis, quotes and HTML, `Tool(…)` calls, LangChain's `Invoking:`, JSON calls — and
 * however the tool's name is spelled (CamelCase, snake_case, kebab-case, in words), the
 * call made is accounted for and a call with other arguments is fabricated.
 */
const word = fc.constantFrom('remove', 'send', 'archive', 'tag', 'move', 'share', 'purge');
const noun = fc.constantFrom('file', 'text', 'note', 'report', 'folder', 'invoice');
const value = fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/);

type Spelling = (parts: readonly string[]) => string;
const capital = (part: string) => `${part[0]!.toUpperCase()}${part.slice(1)}`;
const spellings: readonly Spelling[] = [
  (parts) => parts.map(capital).join(''),
  (parts) => parts.join('_'),
  (parts) => parts.join('-'),
  (parts) => parts.map((part) => part.toUpperCase()).join('_'),
];

type Shape = (name: string, path: string, spaced: string) => string;
const react = (label: (text: string) => string): Shape => {
  return (name, path) =>
    `${label('Action')} ${name}\n${label('Action Input')} {"path": "${path}"}\nObservation: done`;
};
const shapes: readonly Shape[] = [
  react((text) => `${text}:`),
  react((text) => `**${text}:**`),
  react((text) => `__${text}:__`),
  react((text) => `> **${text}:**`),
  react((text) => `*${text}:*`),
  react((text) => `- ${text}:`),
  (name, path) => `<p>Action: ${name}</p><p>Action Input: {"path": "${path}"}</p>`,
  (_, path, spaced) => `Action: ${spaced}\nAction Input: {"path": "${path}"}`,
  (name, path) => `${name}(path="${path}") -> ok`,
  (name, path) => `${name}(path='${path}')`,
  (name, path) => `tools.${name}({"path": "${path}"})`,
  (name, path) => `Calling ${name}({"path": "${path}"})`,
  (name, path) => `Invoking: \`${name}\` with \`{"path": "${path}"}\``,
  (name, path) => `Invoking: \`${name}\` with \`{'path': '${path}'}\``,
  (name, path) => `\`\`\`json\n{"name": "${name}", "arguments": {"path": "${path}"}}\n\`\`\``,
  (name, path) => `{"tool": "${name}", "tool_input": "{\\"path\\": \\"${path}\\"}"}`,
  (name, path) => `{"tool": "${name}", "path": "${path}"}`,
];

function session(tool: string, path: string) {
  const schema = unwrap(
    loadToolSchema(
      JSON.stringify({
        tools: [
          {
            name: tool,
            annotations: { destructiveHint: true },
            inputSchema: {
              type: 'object',
              properties: { path: { type: 'string' } },
              required: ['path'],
            },
          },
        ],
      }),
    ),
  );
  const made = createSession(specOf(`${tool}() -> Made\nMade -> Done`, schema), {
    now: '2025-03-14T12:00',
  });
  expect(made.propose({ action: { name: tool, args: { path } } }).decision).toBe('allow');
  return made;
}

describe('property: a shown call is read in every syntax, and compared by its arguments', () => {
  it('the call made is accounted for; the same call with another argument is fabricated', () => {
    fc.assert(
      fc.property(
        word,
        noun,
        fc.nat({ max: spellings.length - 1 }),
        fc.nat({ max: shapes.length - 1 }),
        value,
        value,
        (verb, object, spelling, shape, made, other) => {
          fc.pre(made !== other);
          const parts = [verb, object];
          const tool = spellings[0]!(parts);
          const name = spellings[spelling]!(parts);
          const show = (path: string) =>
            `Done.\n${shapes[shape]!(name, path, parts.map(capital).join(' '))}\n`;
          expect(session(tool, made).propose({ finish: true, answer: show(made) }).decision).toBe(
            'allow',
          );
          const fabricated = session(tool, made).propose({ finish: true, answer: show(other) });
          expect(fabricated.reasons[0]?.code).toBe('fabricated-action');
        },
      ),
      { numRuns: 300 },
    );
  });
});
