import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AnnotationNode,
  type ArithmeticOperand,
  type AtomNode,
  arithmeticPrecedence,
  type ConstraintNode,
  type ItemNode,
  type Operator,
  type SpecNode,
  type ValueNode,
} from '../../src/language/ast.js';
import type { NumberValue } from '../../src/language/decimal.js';
import { parseWithDiagnostics } from '../../src/language/parser.js';
import { print, printNumber } from '../../src/language/printer.js';
import { specArbitrary } from '../support/arbitraries.js';
import { sharedPath } from '../support/shared.js';
import { spots, stripRanges } from '../support/syntax.js';

const examples = sharedPath('examples');
const exampleNames = readdirSync(examples, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

function parseClean(text: string): SpecNode {
  const parsed = parseWithDiagnostics(text);
  expect(spots(parsed.diagnostics), text).toEqual([]);
  return parsed.value.ast;
}

describe('print and parse', () => {
  it('parse(print(ast)) is ast, ranges aside', () => {
    fc.assert(
      fc.property(specArbitrary, (spec) => {
        expect(stripRanges(parseClean(print(spec)))).toEqual(stripRanges(spec));
      }),
      { numRuns: 500 },
    );
  });

  it('print(parse(print(ast))) is print(ast)', () => {
    fc.assert(
      fc.property(specArbitrary, (spec) => {
        const printed = print(spec);
        expect(print(parseClean(printed))).toBe(printed);
      }),
      { numRuns: 300 },
    );
  });

  it('every spelling the language accepts parses to the tree of the canonical one', () => {
    fc.assert(
      fc.property(specArbitrary, fc.gen(), (spec, generate) => {
        const pick = <T>(...choices: T[]): T => generate(fc.constantFrom, ...choices);
        const noisy = printNoisily(spec, pick);
        expect(stripRanges(parseClean(noisy))).toEqual(stripRanges(spec));
      }),
      { numRuns: 500 },
    );
  });
});

describe.each(exampleNames)('the %s example', (name) => {
  const text = readFileSync(join(examples, name, 'spec.intent'), 'utf8');

  it('prints to a fixed point that parses to the same tree', () => {
    const tree = parseClean(text);
    const printed = print(tree);
    expect(print(parseClean(printed))).toBe(printed);
    expect(stripRanges(parseClean(printed))).toEqual(stripRanges(tree));
  });
});

// ---- a printer that uses every alternative spelling ------------------------------

type Pick = <T>(...choices: T[]) => T;

const operatorSpellings: Readonly<Record<Operator, readonly string[]>> = {
  '=': ['=', '=='],
  '!=': ['!=', '≠', '<>'],
  '~': ['~', '≃', '≈'],
  '!~': ['!~'],
  '<': ['<'],
  '<=': ['<=', '≤'],
  '>': ['>'],
  '>=': ['>=', '≥'],
  in: ['in', 'IN', '∈', '⊆'],
  'not in': ['not in', 'NOT In', '∉', '⊄', '⊈'],
  contains: ['contains', 'CONTAINS'],
  'not contains': ['not contains', 'Not Contains'],
  matches: ['matches', 'MATCHES'],
  'not matches': ['not matches', 'NOT matches'],
};

function mixCase(word: string, pick: Pick): string {
  return pick(word, word.toUpperCase(), word[0]?.toUpperCase() + word.slice(1));
}

function quote(text: string, open: string, close: string): string {
  let result = open;
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    if (character === close || character === '\\') result += `\\${character}`;
    else if (character === '\n') result += '\\n';
    else if (character === '\t') result += '\\t';
    else if (code < 0x20 || code === 0x7f || code === 0x2028 || code === 0x2029) {
      result += `\\u{${code.toString(16).toUpperCase()}}`;
    } else result += character;
  }
  return result + close;
}

function noisyString(text: string, pick: Pick): string {
  // Typographic quotes have no escape for their closing partner.
  const quotes: Array<[string, string]> = [
    ['"', '"'],
    ["'", "'"],
  ];
  if (!text.includes('”')) quotes.push(['“', '”']);
  if (!text.includes('’')) quotes.push(['‘', '’']);
  const [open, close] = pick(...quotes);
  return quote(text, open, close);
}

function noisyNumber(value: NumberValue, pick: Pick): string {
  const canonical = printNumber(value);
  if (!/^-?\d{4,}$/.test(canonical)) return canonical;
  const grouped = canonical.replace(/\B(?=(\d{3})+$)/g, '_');
  return pick(canonical, grouped);
}

function noisyValue(value: ValueNode, pick: Pick): string {
  switch (value.kind) {
    case 'string':
      return noisyString(value.value, pick);
    case 'number':
      return noisyNumber(value.value, pick);
    case 'boolean':
      return mixCase(String(value.value), pick);
    case 'relative':
      return mixCase(value.value, pick);
    case 'time':
      return value.value.startsWith('0') ? pick(value.value, value.value.slice(1)) : value.value;
    case 'date':
    case 'datetime':
    case 'name':
      return value.value;
    case 'list':
      return `[${value.elements.map((element) => noisyValue(element, pick)).join(pick(', ', ',', ' , '))}]`;
    case 'binding':
      return `$${value.name}`;
    case 'duration':
      return value.value;
    case 'arithmetic':
      return noisyArithmetic(value, 0, false, pick);
    case 'extremum':
      return `${mixCase(value.function, pick)}(${noisyArithmetic(value.left, 0, false, pick)},${pick(' ', '')}${noisyArithmetic(value.right, 0, false, pick)})`;
    case 'regex':
      return `/${value.pattern}/${value.flags}`;
  }
}

/** Arithmetic with the parentheses its precedence needs, and sometimes more. */
function noisyArithmetic(
  value: ArithmeticOperand,
  outer: number,
  right: boolean,
  pick: Pick,
): string {
  if (value.kind !== 'arithmetic') return noisyValue(value, pick);
  const level = arithmeticPrecedence(value.operator);
  const text = `${noisyArithmetic(value.left, level, false, pick)}${pick(' ', '  ')}${value.operator}${pick(' ', '  ')}${noisyArithmetic(value.right, level, true, pick)}`;
  const needed = level < outer || (right && level === outer);
  return needed ? `(${text})` : pick(text, `(${pick(' ', '')}${text})`);
}

function noisySubject(constraint: ConstraintNode, pick: Pick): string {
  const subject = constraint.subject;
  if (subject === undefined) return constraint.variable.name;
  let path = constraint.variable.name;
  for (const step of subject.steps) {
    if (step.kind === 'keys') {
      path = `${pick('keys', 'KEYS')}(${pick('', ' ')}${path}${pick('', ' ')})`;
      continue;
    }
    path +=
      step.kind === 'values'
        ? '.*'
        : step.kind === 'field'
          ? `.${step.name.name}`
          : step.kind === 'index'
            ? `[${pick('', ' ')}${step.position}${pick('', ' ')}]`
            : `[${step.constraints.map((inner) => noisyConstraint(inner, pick)).join(pick(', ', ',', ' , '))}]`;
  }
  if (subject.matches)
    path += ` ${pick('matches', 'MATCHES')} /${subject.matches.pattern}/${subject.matches.flags}`;
  if (subject.as !== undefined)
    path += ` ${pick('as', 'AS')} ${pick(subject.as, subject.as.toUpperCase())}`;
  if (subject.function === undefined || subject.exists) return path;
  return `${pick(subject.function, subject.function.toUpperCase())}(${pick('', ' ')}${path}${pick('', ' ')})`;
}

function noisyConstraint(constraint: ConstraintNode, pick: Pick): string {
  if (constraint.subject?.exists) return noisySubject(constraint, pick);
  const operator = pick(...operatorSpellings[constraint.operator]);
  const value = noisyValue(constraint.value, pick);
  const variable = noisySubject(constraint, pick);
  // VeriSafe's tuple form; a regex is only read right after `matches`.
  if (constraint.value.kind !== 'regex' && pick(false, true)) {
    return `${variable}${pick('=', ' = ', '==')}(${value}, ${operator})`;
  }
  return `${variable} ${operator} ${value}`;
}

function noisyAtom(atom: AtomNode, pick: Pick): string {
  if (atom.kind === 'count') {
    const spellings: Record<string, string[]> = {
      '=': ['=', '=='],
      '!=': ['!=', '≠', '<>'],
      '<=': ['<=', '≤'],
      '>=': ['>=', '≥'],
    };
    const operator = pick(...(spellings[atom.operator] ?? [atom.operator]));
    return `${atom.name.name} ${operator} ${atom.count}`;
  }
  if (atom.kind === 'comparison') {
    const operator = pick(...operatorSpellings[atom.operator]);
    return `${noisyArithmetic(atom.left, 0, false, pick)} ${operator} ${noisyArithmetic(atom.right, 0, false, pick)}`;
  }
  if (atom.kind === 'disjunction') {
    const alternatives = atom.alternatives.map((atoms) =>
      atoms.map((inner) => noisyAtom(inner, pick)).join(pick(' & ', ' ∧ ', ', ', ' and ')),
    );
    return `(${alternatives.join(pick(' | ', '|', ' ∨ '))})`;
  }
  const and = (atoms: readonly AtomNode[]) =>
    atoms.map((inner) => noisyAtom(inner, pick)).join(pick(' & ', ' ∧ ', ', ', ' and '));
  if (atom.kind === 'scoped-not')
    return `${mixCase('not', pick)}${pick(' ', '')}(${and(atom.atoms)})`;
  if (atom.kind === 'forall')
    return `${mixCase('forall', pick)}(${pick('', ' ')}${and(atom.condition)} ${pick('=>', '->', '→')} ${and(atom.conclusion)})`;
  const not = `${atom.negated ? `${mixCase('not', pick)} ` : ''}${atom.refused ? `${mixCase('refused', pick)} ` : ''}`;
  if (!atom.parenthesized) return `${not}${atom.name.name}`;
  const separator = pick(', ', ',', ',\n    ');
  const items = [
    ...atom.constraints.map((constraint) => noisyConstraint(constraint, pick)),
    ...(atom.absent ?? []).map((argument) => `${mixCase('absent', pick)}(${argument.name})`),
  ];
  return `${not}${atom.name.name}(${items.join(separator)})`;
}

function noisyAnnotation(annotation: AnnotationNode, pick: Pick): string {
  if (annotation.kind === 'repeat') {
    const name = `@${mixCase('repeat', pick)}`;
    const parts = [
      ...(annotation.limit === undefined ? [] : [noisyNumber(annotation.limit, pick)]),
      ...(annotation.per === undefined
        ? []
        : [`${mixCase('per', pick)}${pick(':', ': ', ' : ')}${annotation.per.name}`]),
    ];
    return parts.length === 0 ? pick(name, `${name}()`) : `${name}(${parts.join(pick(', ', ','))})`;
  }
  const parts = [
    ...(annotation.category ? [mixCase(annotation.category, pick)] : []),
    ...(annotation.message !== undefined ? [noisyString(annotation.message, pick)] : []),
  ];
  const name = `@${mixCase('confirm', pick)}`;
  return parts.length === 0 ? pick(name, `${name}()`) : `${name}(${parts.join(', ')})`;
}

function noisyComment(text: string, pick: Pick): string {
  return `${pick('#', '//', '# ', '//  ')}${text}`;
}

function noisyItem(item: ItemNode, index: number, pick: Pick): string {
  const lines = item.comments.map((comment) => noisyComment(comment, pick));
  const number = pick('', `${index + 1}. `);
  const terminator = pick('', ';', '.', ' ;');
  if (item.kind === 'guard') {
    const constraints = [
      ...item.constraints.map((constraint) => noisyConstraint(constraint, pick)),
      ...(item.absent ?? []).map((argument) => `${mixCase('absent', pick)}(${argument.name})`),
    ];
    const reason =
      item.reason === undefined
        ? ''
        : ` ${mixCase('because', pick)} ${noisyString(item.reason, pick)}`;
    const comparisons = (item.comparisons ?? [])
      .map((atom) => `${pick(' & ', ' ∧ ', ' and ')}${noisyAtom(atom, pick)}`)
      .join('');
    lines.push(
      `${number}${mixCase(item.mode, pick)} ${item.predicate.name}(${constraints.join(', ')})${comparisons}${reason}${terminator}`,
    );
    return lines.join('\n');
  }
  if (item.kind === 'given') {
    const constraints = item.constraints.map((constraint) => noisyConstraint(constraint, pick));
    lines.push(
      `${number}${mixCase('given', pick)} ${item.predicate.name}(${constraints.join(', ')})${terminator}`,
    );
    return lines.join('\n');
  }
  const annotations = item.annotations.map((annotation) => noisyAnnotation(annotation, pick));
  const label = item.label ? `${item.label.name}${pick(':', ' :')} ` : '';
  const body =
    item.body.length === 0
      ? pick('true ', 'TRUE ', 'True ', '')
      : `${item.body.map((atom) => noisyAtom(atom, pick)).join(pick(' & ', ' ∧ ', ', ', ' and ', ' AND ', '\n  & '))} `;
  // A label alone on its line (`R1:` then `-> Done` below) reads as a heading before the
  // spec, which the extractor drops (`extracted-spec`): the continuation arrow needs a body.
  const arrow =
    label !== '' && body === '' ? pick('-> ', '→ ', '=> ') : pick('-> ', '→ ', '=> ', '\n  -> ');
  const head = item.head.isDone
    ? pick('Done', 'DONE', 'done', 'Done()')
    : pick(item.head.name.name, `${item.head.name.name}()`);
  const rule = `${number}${label}${body}${arrow}${head}${terminator}`;
  const annotationSeparator = pick('\n', ' ');
  lines.push(
    annotations.length === 0
      ? rule
      : `${annotations.join(annotationSeparator)}${annotationSeparator}${rule}`,
  );
  return lines.join('\n');
}

function printNoisily(spec: SpecNode, pick: Pick): string {
  const items = spec.items.map((item, index) => noisyItem(item, index, pick));
  const comments = spec.trailingComments.map((comment) => noisyComment(comment, pick));
  return [...items, ...comments].join(pick('\n', '\n\n', '\r\n', '\n   \n'));
}
