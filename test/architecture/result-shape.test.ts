import { describe, expectTypeOf, it } from 'vitest';
import type { Formalization, FormalizeResult } from '../../src/formalize/index.js';
import type {
  checkSpec,
  loadStateSchema,
  loadToolSchema,
  ParsedTrace,
  parseTrace,
  Result,
  readTrace,
  Schema,
  SpecFromText,
  schemaFromMcpTools,
  schemaFromOpenAiTools,
  schemaFromToolemu,
  TraceProblem,
} from '../../src/index.js';
import type { ParsedSpec, parse } from '../../src/language/index.js';

/**
 * One Result shape: every public function that answers with problems instead of
 * throwing returns `Result<T, P>` (`{ ok, value, diagnostics }`). The formalizer's result
 * is one too, with its report and failure code added. (Session operations answer with
 * their own outcomes — `ObservationResult`, `ResolutionResult` — which carry the
 * session's status rather than a value.)
 */
describe('the Result shape', () => {
  it('is what parsing, checking and loading return', () => {
    expectTypeOf<ReturnType<typeof parse>>().toEqualTypeOf<Result<ParsedSpec>>();
    expectTypeOf<ReturnType<typeof checkSpec>>().toEqualTypeOf<Result<SpecFromText>>();
    for (const load of [
      {} as typeof loadStateSchema,
      {} as typeof loadToolSchema,
      {} as typeof schemaFromMcpTools,
      {} as typeof schemaFromOpenAiTools,
      {} as typeof schemaFromToolemu,
    ]) {
      expectTypeOf(load).returns.toEqualTypeOf<Result<Schema>>();
    }
  });

  it('is what reading a trace returns, with trace problems', () => {
    expectTypeOf<ReturnType<typeof parseTrace>>().toEqualTypeOf<
      Result<ParsedTrace, TraceProblem>
    >();
    expectTypeOf<ReturnType<typeof readTrace>>().toEqualTypeOf<Result<ParsedTrace, TraceProblem>>();
  });

  it('is extended, not replaced, by the formalizer', () => {
    expectTypeOf<FormalizeResult>().toMatchTypeOf<Result<Formalization>>();
  });
});
