import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
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
 * the package (a `Symbol.for` marker, not `instanceof` or the name). Each class declares
 * only its `static readonly marker`; the subclasses are found in the source by the
 * TypeScript compiler, so a new one cannot be left out of these checks.
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
    expect(isInstanceOf(type, error)).toBe(true);
    for (const other of errors) {
      if (other.type !== type) expect(isInstanceOf(other.type, error)).toBe(false);
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

/** `type.isInstance(value)` for a class whose instance type the caller does not know. */
function isInstanceOf(
  type: { readonly marker: string; readonly prototype: unknown },
  value: unknown,
) {
  return IntentguardError.isInstance.call(type, value);
}

const sourceRoot = resolve(new URL('../../src', import.meta.url).pathname);

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((entry) => {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

interface DeclaredClass {
  readonly name: string;
  readonly file: string;
  readonly base: string | undefined;
  readonly exported: boolean;
}

/** Every class declared in src/, with the class its `extends` names, as the compiler parses it. */
function declaredClasses(): DeclaredClass[] {
  const classes: DeclaredClass[] = [];
  for (const file of sourceFiles(sourceRoot)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
    const visit = (node: ts.Node): void => {
      if ((ts.isClassDeclaration(node) || ts.isClassExpression(node)) && node.name) {
        const heritage = node.heritageClauses?.find(
          (clause) => clause.token === ts.SyntaxKind.ExtendsKeyword,
        );
        const base = heritage?.types[0]?.expression;
        classes.push({
          name: node.name.text,
          file,
          base: base === undefined ? undefined : base.getText(source),
          exported:
            ts.isClassDeclaration(node) &&
            (ts.getModifiers(node) ?? []).some(
              (modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword,
            ),
        });
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return classes;
}

/** The classes that extend IntentguardError, directly or through another of them. */
function intentguardErrorClasses(classes: readonly DeclaredClass[]): DeclaredClass[] {
  const found = new Map<string, DeclaredClass>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const declared of classes) {
      if (found.has(declared.name) || declared.base === undefined) continue;
      if (declared.base === 'IntentguardError' || found.has(declared.base)) {
        found.set(declared.name, declared);
        grew = true;
      }
    }
  }
  return [...found.values()];
}

interface LoadedClass {
  readonly name: string;
  readonly file: string;
  readonly type: typeof IntentguardError;
}

describe('every subclass of IntentguardError, found by the compiler', async () => {
  const classes = declaredClasses();
  const declared = intentguardErrorClasses(classes);
  const loaded: LoadedClass[] = [];
  for (const { name, file } of declared) {
    const module: Record<string, unknown> = await import(file);
    const type = module[name];
    if (typeof type === 'function' && type.prototype instanceof IntentguardError)
      loaded.push({
        name,
        file: relative(sourceRoot, file),
        type: type as typeof IntentguardError,
      });
  }

  it('finds them all, each exported under a name no other class has', () => {
    // The classes this test was written against; finding fewer means the search broke.
    for (const name of ['ModelError', 'GuardJournalError', 'CompiledSpecError', 'ServiceProblem']) {
      expect(declared.map((each) => each.name)).toContain(name);
    }
    expect(declared.length).toBeGreaterThanOrEqual(15);
    for (const { name, file, exported } of declared) {
      expect(exported, `${relative(sourceRoot, file)}: ${name} is not exported`).toBe(true);
      expect(classes.filter((each) => each.name === name).map((each) => each.file)).toEqual([file]);
    }
    expect(loaded.map((each) => each.name)).toEqual(declared.map((each) => each.name));
  });

  it('gives every class its own marker, named after it', () => {
    for (const { name, file, type } of loaded) {
      expect(Object.hasOwn(type, 'marker'), `${file}: ${name} declares no marker`).toBe(true);
      expect(type.marker, `${file}: ${name}`).toBe(`intentguard.error.${name}`);
    }
  });

  it('makes isInstance tell each class from every other, and the base accept them all', () => {
    for (const { name, type } of loaded) {
      // What the base constructor gives an instance of `type`: the markers of its classes.
      const instance: unknown = Reflect.construct(
        IntentguardError,
        [{ code: 'some-code', message: name }],
        type,
      );
      expect(IntentguardError.isInstance(instance), name).toBe(true);
      for (const other of loaded) {
        const related = other.type === type || type.prototype instanceof other.type;
        expect(isInstanceOf(other.type, instance), `${other.name}.isInstance(${name})`).toBe(
          related,
        );
      }
    }
  });
});
