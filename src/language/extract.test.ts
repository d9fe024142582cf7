import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sharedPath } from '../../test/support/shared.js';
import { codes, span, spots } from '../../test/support/syntax.js';
import { extractSpecRegion, hasRuleArrow } from './extract.js';
import { arrowSpellings } from './lexer.js';
import { parseWithDiagnostics } from './parser.js';

const examples = sharedPath('examples');

/** The text of the region, with what was stripped. */
function extract(text: string): { spec: string; source?: string } {
  const region = extractSpecRegion(text);
  const spec = text.slice(region.start, region.end);
  return region.source === undefined ? { spec } : { spec, source: region.source };
}

describe('clean specs', () => {
  it('keeps a spec without wrapping whole, blank lines included', () => {
    const text = '# comment\n@confirm\nA(x = "Blue Hill Cafe") -> B\nreject C()\n\n';
    expect(extractSpecRegion(text)).toEqual({ start: 0, end: text.length });
  });

  it.each(
    readdirSync(examples, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name),
  )('finds nothing to strip in the %s example', (name) => {
    const text = readFileSync(join(examples, name, 'spec.intent'), 'utf8');
    expect(extractSpecRegion(text)).toEqual({ start: 0, end: text.length });
    expect(codes(parseWithDiagnostics(text).diagnostics)).toEqual([]);
  });
});

describe('Markdown fences', () => {
  it('takes the block of a fence with a language tag', () => {
    expect(extract('Here you go:\n```intent\nA -> Done\n```\nAnything else?')).toEqual({
      spec: 'A -> Done\n',
      source: 'a Markdown code fence',
    });
  });

  it('takes the block of a fence without a language tag, closed at the end of the text', () => {
    expect(extract('```\nA -> Done\n```')).toEqual({
      spec: 'A -> Done\n',
      source: 'a Markdown code fence',
    });
  });

  it('accepts tilde fences and longer fences', () => {
    expect(extract('~~~\nA -> Done\n~~~\n').spec).toBe('A -> Done\n');
    expect(extract('````text\nA -> Done\n````\n').spec).toBe('A -> Done\n');
  });

  it('takes an unclosed fence to the end of the text', () => {
    expect(extract('Spec:\n```\nA -> Done\nB -> Done')).toEqual({
      spec: 'A -> Done\nB -> Done',
      source: 'a Markdown code fence',
    });
  });

  it('prefers the first block that holds a rule', () => {
    const text = '```json\n{"a": 1}\n```\nand\n```\nA -> Done\n```\n';
    expect(extract(text).spec).toBe('A -> Done\n');
  });

  it('falls back to the first block when none holds a rule', () => {
    expect(extract('```\nfirst\n```\n```\nsecond\n```\n').spec).toBe('first\n');
  });

  it('does not see a fence after a carriage return or line separator inside a line', () => {
    for (const text of [
      '# a\r```\nA -> Done',
      '# a\u2028```\nA -> Done',
      'A -> Done # \u2029~~~',
    ]) {
      expect(extractSpecRegion(text)).toEqual({ start: 0, end: text.length });
    }
  });

  it('keeps ranges pointing into the original text', () => {
    const source = 'Sure, here it is:\n\n```intent\nA(x = 1) -> B\n  B -> Done\n```\nDone.';
    const parsed = parseWithDiagnostics(source);
    expect(spots(parsed.diagnostics)).toEqual(['extracted-spec 4:1-6:1']);
    expect(parsed.value.ast.items.map((item) => span(item.range))).toEqual([
      '4:1-4:14',
      '5:3-5:12',
    ]);
  });
});

describe('tags', () => {
  it('takes the text between <CHC> tags, in any case, also inline', () => {
    expect(extract('The spec is <CHC>A -> Done</CHC> as asked.')).toEqual({
      spec: 'A -> Done',
      source: '<CHC> tags',
    });
    expect(extract('<chc>\nA -> Done\n</Chc>').spec).toBe('\nA -> Done\n');
  });

  it('takes a tag after prose with apostrophes and parentheses', () => {
    expect(extract("Here's the spec (as asked): <CHC>A -> Done</CHC>").spec).toBe('A -> Done');
  });

  it.each(['spec', 'intent', 'rules'])('accepts <%s> tags', (tag) => {
    expect(extract(`<${tag}>A -> Done</${tag}>`)).toEqual({
      spec: 'A -> Done',
      source: `<${tag}> tags`,
    });
  });

  it('takes an unclosed tag to the end of the text', () => {
    expect(extract('<CHC>\nA -> Done\n').spec).toBe('\nA -> Done\n');
  });

  it('prefers tags to fences', () => {
    expect(extract('```\n<CHC>A -> Done</CHC>\n```').spec).toBe('A -> Done');
  });

  it('ignores tag-like text inside strings and comments of the spec', () => {
    for (const text of [
      'A(x = "<spec>") -> Done',
      "A(x contains '<spec>') -> Done",
      '# wrap it in <spec> tags\nA -> Done',
      '// <CHC>\nA -> B\n// </CHC>\nB -> Done',
      'reject A(x = "<CHC>")',
      "A(x = 1,\n  y contains '<spec>') -> Done",
      'A(x = 1,\n  y !~ ‘<spec>’) -> Done',
      'A(x = 1,\n  y matches /<spec>/) -> Done',
      'A(x = 1,\n  y in [B, <spec>]) -> Done',
    ]) {
      expect(extractSpecRegion(text)).toEqual({ start: 0, end: text.length });
    }
  });

  it('keeps ranges pointing into the original text', () => {
    const source = 'Answer:\n<CHC>\n1. A -> B\n2. B -> Done\n</CHC>';
    const parsed = parseWithDiagnostics(source);
    expect(spots(parsed.diagnostics)).toEqual(['extracted-spec 2:6-5:1']);
    expect(parsed.value.ast.items.map((item) => span(item.range))).toEqual([
      '3:1-3:10',
      '4:1-4:13',
    ]);
  });
});

describe('prose', () => {
  it('drops a prose line before the spec and one after it', () => {
    expect(extract('Here is the formal spec:\nA -> Done\nI hope this helps you.\n')).toEqual({
      spec: 'A -> Done\n',
      source: 'surrounding prose',
    });
  });

  it('drops several prose lines, keeping blank lines next to the spec', () => {
    expect(
      extract('Sure, here you go.\nThe rules are below.\n\nA -> Done\n\nThat is all for now.').spec,
    ).toBe('\nA -> Done\n\n');
  });

  it('names both fences and prose when both were stripped', () => {
    expect(extract('```\nLet me think about this.\nA -> Done\n```').source).toBe(
      'a Markdown code fence and surrounding prose',
    );
  });

  it('keeps spec lines that contain words: strings, continuations, comments, guards', () => {
    for (const text of [
      'RestaurantInfo(name = "Blue Hill Cafe") &\n  ReserveInfo(ok = true) -> Done',
      'Found and Deleted and\n  Listed -> Done',
      'Found and Deleted\n  -> Done',
      'A -> Found\nFound and Deleted and Listed\n  -> Done',
      'A(x = 1,\n  y = 2) -> Done',
      'reject Send Email(to = "a")',
      '# This comment reads like a sentence\nA -> Done',
      '@confirm(safety, "Ask the user first")\nA -> Done',
      'A -> Done\n# This comment reads like a sentence',
    ]) {
      expect(extractSpecRegion(text)).toEqual({ start: 0, end: text.length });
    }
  });

  it('keeps ranges pointing into the original text', () => {
    const parsed = parseWithDiagnostics('Here is the spec:\n  A -> Done');
    expect(spots(parsed.diagnostics)).toEqual(['extracted-spec 2:1-2:12']);
    expect(span(parsed.value.ast.items[0]?.range)).toBe('2:3-2:12');
  });

  it('takes only a line that ends like a sentence for prose, or one that ends with a colon', () => {
    expect(extract('Here is the spec\nA -> Done').source).toBeUndefined();
    expect(extract('Here is the spec!\nA -> Done').spec).toBe('A -> Done');
    expect(extract('Is this the spec you wanted?').spec).toBe('');
    expect(extract('Spec:\nA -> Done').spec).toBe('A -> Done');
  });

  it('judges a long line of letters in linear time', () => {
    const text = `${'a'.repeat(200_000)}\n${'b c '.repeat(50_000)}`;
    const started = performance.now();
    extractSpecRegion(text);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('rule arrows and emphasised tags', () => {
  it('finds rules by exactly the arrows the lexer reads', () => {
    expect([...arrowSpellings].sort()).toEqual(['->', '=>', '→', '⇒'].sort());
    for (const arrow of arrowSpellings) expect(hasRuleArrow(`A ${arrow} B`)).toBe(true);
    // Not an arrow of the language, so not a rule either.
    expect(hasRuleArrow('A ⟹ B')).toBe(false);
  });

  it('takes the spec between **<CHC>** and **</CHC>**, emphasis and all', () => {
    expect(extract('**<CHC>**\nA -> B\n**</CHC>**\n')).toEqual({
      spec: '\nA -> B\n',
      source: '<CHC> tags',
    });
    expect(extract('__<spec>__A -> B__</spec>__')).toEqual({
      spec: 'A -> B',
      source: '<spec> tags',
    });
  });

  it('leaves emphasis that does not wrap the tag to the spec', () => {
    expect(extract('<CHC>**A -> B**</CHC>')).toEqual({ spec: '**A -> B**', source: '<CHC> tags' });
  });
});
