import type { SourceRange } from '../source-range.js';
import { type DiagnosticCode, diagnosticCatalog, type Severity } from './catalog.js';

export type DiagnosticData = Readonly<Record<string, string | number>>;

/** A problem found in a spec or schema, as data. Render it with `render.ts`. */
export interface Diagnostic {
  readonly code: DiagnosticCode;
  readonly severity: Severity;
  readonly message: string;
  readonly hint?: string;
  /** Where in the spec text; absent for problems of a whole input. */
  readonly range?: SourceRange;
  /** Where in a JSON input (schemas), as a JSONPath such as `$.Alarm.variables[1].type`. */
  readonly path?: string;
  readonly data: DiagnosticData;
}

function fill(template: string, data: DiagnosticData): string {
  return template.replace(/\{(\w+)\}/g, (whole, key: string) => {
    const value = data[key];
    return value === undefined ? whole : String(value);
  });
}

/** Builds a diagnostic from the catalog, filling its message and hint from `data`. */
export function createDiagnostic(
  code: DiagnosticCode,
  location: { readonly range?: SourceRange | undefined; readonly path?: string | undefined },
  data: DiagnosticData = {},
): Diagnostic {
  const definition = diagnosticCatalog[code];
  const hintTemplate = 'hint' in definition ? definition.hint : undefined;
  // An empty hint (a `{hint}` template given no data) is left out rather than printed blank.
  const hint = hintTemplate === undefined ? undefined : fill(hintTemplate, data);
  return {
    code,
    severity: definition.severity,
    message: fill(definition.message, data),
    ...(hint && hint !== '{hint}' ? { hint } : {}),
    ...(location.range ? { range: location.range } : {}),
    ...(location.path ? { path: location.path } : {}),
    data,
  };
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((diagnostic) => diagnostic.severity === 'error');
}

/**
 * Collects diagnostics up to a limit so that hostile input cannot make the list
 * itself the problem. Errors and warnings are counted apart: past the limit one
 * `too-many-diagnostics` error stands for the remaining errors (and parsing stops),
 * while surplus warnings are summed up in one `too-many-warnings` warning — so a
 * large, valid spec with many warnings stays valid.
 */
export class DiagnosticBag {
  readonly #items: Diagnostic[] = [];
  #errors = 0;
  #warnings = 0;
  #overflowed = false;
  #warningsOverflowed = false;

  constructor(readonly limit: number) {}

  add(diagnostic: Diagnostic): void {
    if (diagnostic.severity === 'warning') {
      if (this.#warnings < this.limit) {
        this.#warnings++;
        this.#items.push(diagnostic);
      } else if (!this.#warningsOverflowed) {
        this.#warningsOverflowed = true;
        this.#items.push(createDiagnostic('too-many-warnings', {}, { limit: this.limit }));
      }
      return;
    }
    if (this.#errors < this.limit) {
      this.#errors++;
      this.#items.push(diagnostic);
      return;
    }
    if (!this.#overflowed) {
      this.#overflowed = true;
      this.#items.push(createDiagnostic('too-many-diagnostics', {}, { limit: this.limit }));
    }
  }

  report(
    code: DiagnosticCode,
    location: { readonly range?: SourceRange | undefined; readonly path?: string | undefined },
    data?: DiagnosticData,
  ): void {
    if (this.#overflowed) return;
    // Past the warning limit a warning would only be counted: skip building it.
    if (this.#warningsOverflowed && diagnosticCatalog[code].severity === 'warning') return;
    this.add(createDiagnostic(code, location, data));
  }

  /** Whether errors overflowed: the caller should stop looking for more. */
  get full(): boolean {
    return this.#overflowed;
  }

  get hasErrors(): boolean {
    return hasErrors(this.#items);
  }

  get items(): readonly Diagnostic[] {
    return this.#items;
  }
}

/** Orders diagnostics by position, then code, so output is deterministic. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return [...diagnostics].sort((a, b) => {
    const offsetA = a.range?.start.offset ?? -1;
    const offsetB = b.range?.start.offset ?? -1;
    if (offsetA !== offsetB) return offsetA - offsetB;
    return a.code < b.code ? -1 : a.code > b.code ? 1 : 0;
  });
}
