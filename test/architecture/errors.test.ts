import { describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli/io.js';
import { InvalidUtf8Error } from '../../src/cli/utf8.js';
import { InvalidSimilarityError } from '../../src/engine/similarity.js';
import { ModelError } from '../../src/formalize/model/model.js';
import { IntentguardError } from '../../src/index.js';
import { IntentguardDiagnosticsError } from '../../src/language/result.js';
import { MemoryError } from '../../src/store/experience-memory.js';

/**
 * One failure model: every error intentguard throws on purpose is an `IntentguardError`
 * with a stable `code` and its own `name`, recognised by `isInstance` across copies of
 * the package (a `Symbol.for` marker, not `instanceof` or the name).
 */
const diagnostic = {
  code: 'invalid-argument',
  severity: 'error',
  message: 'checkSpec: bad',
  data: {},
} as const;

const errors = [
  {
    error: new IntentguardDiagnosticsError([diagnostic]),
    type: IntentguardDiagnosticsError,
    name: 'IntentguardDiagnosticsError',
    code: 'invalid-input',
  },
  {
    error: new ModelError('timeout', 'took too long', { retryable: true }),
    type: ModelError,
    name: 'IntentguardModelError',
    code: 'timeout',
  },
  {
    error: new MemoryError('too-long', 'the spec is longer than 10 characters.'),
    type: MemoryError,
    name: 'IntentguardMemoryError',
    code: 'too-long',
  },
  {
    error: new CliError('the trace is missing'),
    type: CliError,
    name: 'IntentguardCliError',
    code: 'invalid-usage',
  },
  {
    error: new InvalidUtf8Error(3, 0xff, 1, 4),
    type: InvalidUtf8Error,
    name: 'IntentguardInvalidUtf8Error',
    code: 'invalid-utf8',
  },
  {
    error: new InvalidSimilarityError('NaN'),
    type: InvalidSimilarityError,
    name: 'InvalidSimilarityError',
    code: 'invalid-similarity',
  },
] as const;

describe('IntentguardError', () => {
  it('carries a code, a message, a cause and its name', () => {
    const cause = new Error('inner');
    const error = new IntentguardError({ code: 'some-code', message: 'it failed', cause });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ name: 'IntentguardError', code: 'some-code', cause });
    expect(error.message).toBe('it failed');
    expect(IntentguardError.isInstance(error)).toBe(true);
    expect('cause' in new IntentguardError({ code: 'c', message: 'm' })).toBe(false);
  });

  it('refuses plain errors and non-errors, including look-alikes by name', () => {
    const lookAlike = Object.assign(new Error('x'), { name: 'IntentguardModelError' });
    for (const value of [new Error('x'), lookAlike, 'IntentguardError', null, undefined, 42, {}]) {
      expect(IntentguardError.isInstance(value)).toBe(false);
      expect(ModelError.isInstance(value)).toBe(false);
    }
  });

  it('recognises an error from another copy of the package by its marker', () => {
    // What a second copy's class instance looks like from here: not our class, same marker.
    const foreign = Object.assign(new Error('from another copy'), {
      [Symbol.for('intentguard.error')]: true,
      [Symbol.for('intentguard.error.ModelError')]: true,
      code: 'timeout',
    });
    expect(foreign instanceof ModelError).toBe(false);
    expect(IntentguardError.isInstance(foreign)).toBe(true);
    expect(ModelError.isInstance(foreign)).toBe(true);
    expect(MemoryError.isInstance(foreign)).toBe(false);
  });

  it.each(errors)('$name extends it with the code $code', ({ error, type, name, code }) => {
    expect(error).toBeInstanceOf(IntentguardError);
    expect(error).toBeInstanceOf(type);
    expect(error.name).toBe(name);
    expect(error.code).toBe(code);
    expect(IntentguardError.isInstance(error)).toBe(true);
    expect(type.isInstance(error)).toBe(true);
    for (const other of errors) {
      if (other.type !== type) expect(other.type.isInstance(error)).toBe(false);
    }
  });

  it('gives CliError the code of its exit code', () => {
    expect(new CliError('no', 1)).toMatchObject({ code: 'negative-result', exitCode: 1 });
    expect(new CliError('usage', 2)).toMatchObject({ code: 'invalid-usage', exitCode: 2 });
  });

  it('keeps the data of the subclasses', () => {
    const [diagnostics, model] = errors;
    expect(diagnostics.error.diagnostics).toEqual([diagnostic]);
    expect(diagnostics.error.message).toBe('invalid-argument: checkSpec: bad');
    expect(model.error).toMatchObject({ retryable: true, status: undefined });
  });
});
