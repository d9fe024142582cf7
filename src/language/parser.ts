import { invisibleOrSurrogateClass } from '../support/printable-text.js';
import {
  argumentDiagnostic,
  firstProblem,
  parseOptionsProblem,
  sourceProblem,
} from './arguments.js';
import {
  type AnnotationNode,
  type ArithmeticNode,
  type ArithmeticOperand,
  type ArithmeticOperator,
  type AtomNode,
  type CoercionType,
  type ComparisonAtom,
  type ComparisonOperator,
  type ConfirmCategory,
  type ConstraintNode,
  coercionTypes,
  confirmCategories,
  type ExtremumNode,
  type GivenNode,
  type GuardNode,
  type HeadNode,
  hasBinding,
  hasClockWord,
  type Identifier,
  type ItemNode,
  type Operator,
  type PathStep,
  type RelativeDate,
  type RuleNode,
  relativeDates,
  type SpecNode,
  type SubjectNode,
  subjectFunctions,
  type ValueNode,
} from './ast.js';
import type { DiagnosticCode } from './diagnostics/catalog.js';
import { type Diagnostic, DiagnosticBag, type DiagnosticData } from './diagnostics/diagnostic.js';
import { extractSpecRegion } from './extract.js';
import { type IncrementalLexer, startLexer } from './lexer.js';
import { type Limits, resolveLimits } from './limits.js';
import { isOperator, operatorWords } from './operators.js';
import { failure, type Result, success } from './result.js';
import { LineIndex, type SourceRange } from './source-range.js';
import type { Token } from './tokens.js';

const invisibleCharacter = new RegExp(`[${invisibleOrSurrogateClass}]`, 'gu');

export interface ParseOptions {
  readonly limits?: Partial<Limits>;
  /** Look for the spec inside fences, tags and prose (default true). */
  readonly extract?: boolean;
}

export interface ParsedSpec {
  readonly ast: SpecNode;
  readonly source: string;
  readonly lines: LineIndex;
}

/** Thrown inside the parser to abandon the current item; never escapes `parse`. */
class SyntaxAbort {}

const comparisonSymbols = new Set(['=', '!=', '<', '<=', '>', '>=']);

const closingQuotes: Readonly<Record<string, string>> = {
  '"': '"',
  "'": "'",
  '“': '”',
  '‘': '’',
};

/** Nesting the recursive descent can always take, whatever `maxNestingDepth` says. */
const maxSupportedNesting = 1_000;

/** Tokens scanned to tell an annotation's arguments from a disjunction that follows it. */
const maxDisjunctionLookahead = 512;

/** `today`, `tomorrow`, `yesterday`, `now`: the session clock's words. */
function isClockWord(token: Token): boolean {
  return (
    token.kind === 'identifier' &&
    (relativeDates as readonly string[]).includes(token.text.toLowerCase())
  );
}

function isExtremum(token: Token): boolean {
  return isKeyword(token, 'min') || isKeyword(token, 'max');
}

function isKeyword(token: Token | undefined, keyword: string): boolean {
  // The length test first spares a lower-cased copy of nearly every name.
  return (
    token?.kind === 'identifier' &&
    token.text.length === keyword.length &&
    token.text.toLowerCase() === keyword
  );
}

/**
 * Control, bidirectional and line separator characters (a decoded `\n` in a string)
 * would break or disguise the rendered message.
 */
function visible(text: string): string {
  return text.replace(invisibleCharacter, ' ');
}

function describe(token: Token | undefined): string {
  if (!token || token.kind === 'end') return 'the end of the spec';
  switch (token.kind) {
    case 'string':
      return `the string "${visible(token.text.length > 20 ? `${token.text.slice(0, 20)}…` : token.text)}"`;
    case 'annotation':
      return `'@${token.text}'`;
    case 'regex':
      return 'a regular expression';
    default:
      return `'${token.text.length > 30 ? `${token.text.slice(0, 30)}…` : token.text}'`;
  }
}

/**
 * Parses intent spec text into a syntax tree, collecting every problem as a diagnostic.
 *
 * @example
 * const result = parse('Reserve & ReserveResult(success = true) -> Done');
 * if (result.ok) console.log(result.value.ast.items.length); // 1
 */
export function parse(source: string, options: ParseOptions = {}): Result<ParsedSpec> {
  const misuse = firstProblem(sourceProblem(source), parseOptionsProblem(options));
  if (misuse) return failure([argumentDiagnostic('parse', misuse)]);
  const parsed = parseWithDiagnostics(source, options);
  return parsed.diagnostics.some((diagnostic) => diagnostic.severity === 'error')
    ? failure(parsed.diagnostics)
    : success(parsed.value, parsed.diagnostics);
}

/** The tree of an empty text, for answers that have no text to parse. */
export function emptyParsedSpec(): ParsedSpec {
  const lines = new LineIndex('');
  const range = lines.range(0, 0);
  return { ast: { kind: 'spec', items: [], trailingComments: [], range }, source: '', lines };
}

/**
 * Like `parse`, but always returns the (possibly partial) tree; the checker and the
 * formatter use it to report every problem in one pass.
 */
export function parseWithDiagnostics(
  source: string,
  options: ParseOptions = {},
): { readonly value: ParsedSpec; readonly diagnostics: readonly Diagnostic[] } {
  const misuse = firstProblem(sourceProblem(source), parseOptionsProblem(options));
  if (misuse) {
    return {
      value: emptyParsedSpec(),
      diagnostics: [argumentDiagnostic('parseWithDiagnostics', misuse)],
    };
  }
  const limits = resolveLimits(options.limits);
  const lines = new LineIndex(source);
  const diagnostics = new DiagnosticBag(limits.maxDiagnostics);
  if (source.length > limits.maxInputLength) {
    diagnostics.report(
      'input-too-long',
      { range: lines.range(0, 0) },
      {
        length: source.length,
        limit: limits.maxInputLength,
      },
    );
    const empty = lines.range(0, 0);
    return {
      value: {
        ast: { kind: 'spec', items: [], trailingComments: [], range: empty },
        source,
        lines,
      },
      diagnostics: diagnostics.items,
    };
  }
  const region =
    options.extract === false ? { start: 0, end: source.length } : extractSpecRegion(source);
  if (region.source !== undefined) {
    diagnostics.report(
      'extracted-spec',
      { range: lines.range(region.start, region.end) },
      {
        source: region.source,
      },
    );
  }
  const lexer = startLexer(source, region.start, region.end, lines, diagnostics, limits);
  const parser = new Parser(lexer, lines, diagnostics, limits, region.start, region.end);
  const ast = parser.parseSpec();
  return { value: { ast, source, lines }, diagnostics: diagnostics.items };
}

class Parser {
  #index = 0;
  #commentIndex = 0;
  #filterDepth = 0;
  readonly #end: Token;

  constructor(
    readonly lexer: IncrementalLexer,
    readonly lines: LineIndex,
    readonly diagnostics: DiagnosticBag,
    readonly limits: Limits,
    readonly regionStart: number,
    readonly regionEnd: number,
  ) {
    this.#end = { kind: 'end', text: '', start: regionEnd, end: regionEnd, newlineBefore: true };
  }

  // ---- token helpers -------------------------------------------------------------

  /** The token at `index`, lexed on demand; the end token past the last one. */
  token(index: number): Token {
    return this.lexer.at(index) ?? this.#end;
  }

  get current(): Token {
    return this.token(this.#index);
  }

  peek(offset = 1): Token {
    return this.token(this.#index + offset);
  }

  advance(): Token {
    const token = this.current;
    if (token !== this.#end) this.#index++;
    return token;
  }

  isSymbol(text: string, token: Token = this.current): boolean {
    return token.kind === 'symbol' && token.text === text;
  }

  range(start: number, end: number): SourceRange {
    return this.lines.range(start, end);
  }

  previousEnd(): number {
    return this.lexer.at(this.#index - 1)?.end ?? this.regionStart;
  }

  fail(code: DiagnosticCode, start: number, end: number, data: DiagnosticData = {}): never {
    this.diagnostics.report(code, { range: this.range(start, end) }, data);
    throw new SyntaxAbort();
  }

  report(code: DiagnosticCode, start: number, end: number, data: DiagnosticData = {}): void {
    this.diagnostics.report(code, { range: this.range(start, end) }, data);
  }

  unexpected(expected: string, token: Token = this.current): never {
    // After a string or regex that ran to the end of its line (already reported), what
    // follows is bound to be unexpected; a second error there would only be noise.
    if (token === this.current && this.isUnterminated(this.peek(-1))) throw new SyntaxAbort();
    return this.fail('unexpected-token', token.start, Math.max(token.end, token.start + 1), {
      expected,
      found: describe(token),
    });
  }

  /** Whether a string or regex token lacks its closing quote or slash. */
  isUnterminated(token: Token): boolean {
    const source = this.lines.text;
    if (token.kind === 'string') {
      const close = closingQuotes[source[token.start] ?? ''];
      return token.end - token.start < 2 || source[token.end - 1] !== close;
    }
    if (token.kind === 'regex') {
      return token.end - token.start !== token.text.length + (token.flags ?? '').length + 2;
    }
    return false;
  }

  expectSymbol(text: string, expected = `'${text}'`): Token {
    if (!this.isSymbol(text)) this.unexpected(expected);
    return this.advance();
  }

  expectIdentifier(expected: string): Identifier {
    const token = this.current;
    if (token.kind !== 'identifier') this.unexpected(expected);
    this.advance();
    return { name: token.text, range: this.range(token.start, token.end) };
  }

  /** Comments that end before `offset` and have not been attached yet. */
  takeComments(offset: number): string[] {
    const taken: string[] = [];
    const comments = this.lexer.comments;
    while (this.#commentIndex < comments.length) {
      const comment = comments[this.#commentIndex];
      if (!comment || comment.start >= offset) break;
      taken.push(comment.text);
      this.#commentIndex++;
    }
    return taken;
  }

  /**
   * Error recovery: skip to the next token that can start an item — one at the start
   * of a line outside parentheses — or just past a `;` or `.` terminator.
   */
  synchronize(from: number): void {
    let depth = 0;
    if (this.#index === from) this.advance();
    while (this.current.kind !== 'end') {
      const token = this.current;
      if (depth === 0 && (this.isSymbol(';') || this.isSymbol('.'))) {
        this.advance();
        return;
      }
      if (depth === 0 && token.newlineBefore && this.#index > from && this.startsItem(token)) {
        return;
      }
      if (this.isSymbol('(') || this.isSymbol('[')) depth++;
      if ((this.isSymbol(')') || this.isSymbol(']')) && depth > 0) depth--;
      this.advance();
    }
  }

  // ---- grammar -------------------------------------------------------------------

  // spec ::= item*
  parseSpec(): SpecNode {
    const items: ItemNode[] = [];
    while (this.current.kind !== 'end' && !this.diagnostics.full) {
      if (items.length >= this.limits.maxItems) {
        this.report('too-many-items', this.current.start, this.regionEnd, {
          limit: this.limits.maxItems,
        });
        break;
      }
      const start = this.#index;
      // Items never look back past the token before them.
      this.lexer.release(start - 1);
      try {
        const item = this.parseItem();
        if (item) items.push(item);
      } catch (error) {
        if (!(error instanceof SyntaxAbort)) throw error;
        this.synchronize(start);
      }
    }
    // Comments after the last item; when reading stopped early, the rest was not read.
    const trailingComments =
      this.current.kind === 'end' ? this.takeComments(Number.POSITIVE_INFINITY) : [];
    return {
      kind: 'spec',
      items,
      trailingComments,
      range: this.range(this.regionStart, this.regionEnd),
    };
  }

  // item ::= annotation* [number '.'] [label ':'] rule [';' | '.'] | guard [';' | '.']
  parseItem(): ItemNode | undefined {
    const start = this.current.start;
    const comments = this.takeComments(start);
    const annotations = this.parseAnnotations();
    if (this.current.kind === 'end') {
      const last = annotations[annotations.length - 1];
      if (last) {
        this.report('dangling-annotation', last.range.start.offset, last.range.end.offset);
      }
      return undefined;
    }
    if (
      this.current.kind === 'number' &&
      this.isSymbol('.', this.peek()) &&
      Number.isInteger(this.current.number)
    ) {
      this.advance();
      this.advance();
    }
    const keyword = this.current;
    if (
      (isKeyword(keyword, 'reject') || isKeyword(keyword, 'confirm')) &&
      this.peek().kind === 'identifier'
    ) {
      const first = annotations[0];
      if (first) {
        this.report('annotation-on-guard', first.range.start.offset, first.range.end.offset);
      }
      const guard = this.parseGuard(comments);
      this.parseTerminator();
      // The node holds this very array, so comments found after it still join it.
      comments.push(...this.takeItemComments());
      return guard;
    }
    if (
      isKeyword(keyword, 'given') &&
      this.peek().kind === 'identifier' &&
      this.isSymbol('(', this.peek(2))
    ) {
      const first = annotations[0];
      if (first) {
        this.report('annotation-on-guard', first.range.start.offset, first.range.end.offset);
      }
      const given = this.parseGiven(comments);
      this.parseTerminator();
      comments.push(...this.takeItemComments());
      return given;
    }
    const rule = this.parseRule(start, annotations, comments);
    this.parseTerminator();
    comments.push(...this.takeItemComments());
    return rule;
  }

  /**
   * Comments inside the item just parsed, and one after it on the same line
   * (`A -> B  # why`): that one is about this item, not about the next.
   */
  takeItemComments(): string[] {
    const end = this.previousEnd();
    const taken = this.takeComments(end);
    // Reading the next token first makes the lexer reach (and collect) that comment.
    const following = this.current;
    const next = this.lexer.comments[this.#commentIndex];
    if (
      next &&
      next.start < following.start &&
      this.lines.position(next.start).line === this.lines.position(end).line
    ) {
      taken.push(next.text);
      this.#commentIndex++;
    }
    return taken;
  }

  parseTerminator(): void {
    if (this.isSymbol(';') || this.isSymbol('.')) this.advance();
  }

  // annotation ::= '@confirm' ['(' [kind ','] string ')'] | '@repeat' ['(' number ')']
  parseAnnotations(): AnnotationNode[] {
    const annotations: AnnotationNode[] = [];
    while (this.current.kind === 'annotation') {
      const token = this.advance();
      const name = token.text.toLowerCase();
      if (name !== 'confirm' && name !== 'repeat') {
        this.report('unknown-annotation', token.start, token.end, { name: token.text });
        if (this.isSymbol('(') && !this.current.newlineBefore) this.skipParenthesized();
        continue;
      }
      if (annotations.some((annotation) => annotation.kind === name)) {
        this.report('duplicate-annotation', token.start, token.end, { name });
      }
      const annotation =
        name === 'confirm' ? this.parseConfirmArguments(token) : this.parseRepeatArguments(token);
      annotations.push(annotation);
    }
    return annotations;
  }

  /**
   * Skips an argument list up to its `)`. A line break before a token that starts an
   * item ends the skip too, so that a missing `)` does not swallow the rest of the spec.
   */
  skipParenthesized(): void {
    while (this.current.kind !== 'end' && !this.isSymbol(')')) {
      this.advance();
      if (this.current.newlineBefore && this.startsItem(this.current)) return;
    }
    if (this.isSymbol(')')) this.advance();
  }

  startsItem(token: Token): boolean {
    return token.kind === 'identifier' || token.kind === 'annotation' || token.kind === 'number';
  }

  /**
   * Whether the `(` at the cursor opens a disjunction of the rule body (v2) rather than
   * an annotation's arguments: it holds a `|` or a nested `(`, or its matching `)` is
   * followed by `&`, `,`, `and` or `|` — none of which an annotation's arguments have.
   */
  parenthesisStartsBody(): boolean {
    let depth = 0;
    // Bounded, so that hostile text full of `@confirm(` stays linear.
    for (let offset = 0; offset < maxDisjunctionLookahead; offset++) {
      const token = this.peek(offset);
      if (token.kind === 'end') return false;
      if (this.isSymbol('(', token)) {
        if (++depth > 1) return true;
      } else if (this.isSymbol('|', token)) return true;
      else if (this.isSymbol(')', token) && --depth === 0) {
        const next = this.peek(offset + 1);
        // After it, a comparison or an operator: the parenthesis opened a term of a
        // condition on bindings (v3, `($a + 1) * 2 > $b`), never an annotation's arguments.
        return (
          this.isSymbol('&', next) ||
          this.isSymbol(',', next) ||
          this.isSymbol('|', next) ||
          isKeyword(next, 'and') ||
          (next.kind === 'symbol' &&
            (comparisonSymbols.has(next.text) || '+-*/'.includes(next.text)))
        );
      }
    }
    return false;
  }

  /** An annotation's `(`: on the annotation's line, and not a body's disjunction. */
  annotationArgumentsFollow(): boolean {
    return this.isSymbol('(') && !this.parenthesisStartsBody();
  }

  parseConfirmArguments(token: Token): AnnotationNode {
    if (!this.annotationArgumentsFollow())
      return { kind: 'confirm', range: this.range(token.start, token.end) };
    this.advance();
    let category: ConfirmCategory | undefined;
    let message: string | undefined;
    if (this.current.kind === 'identifier') {
      const word = this.advance();
      const lower = word.text.toLowerCase();
      if (!(confirmCategories as readonly string[]).includes(lower)) {
        this.report('invalid-annotation', word.start, word.end, {
          name: 'confirm',
          reason: `'${word.text}' is not a category.`,
          hint: `Categories are ${confirmCategories.join(', ')}.`,
        });
      } else {
        category = lower as ConfirmCategory;
      }
      if (this.isSymbol(',')) this.advance();
      else if (!this.isSymbol(')')) this.unexpected("',' or ')'");
    }
    if (this.current.kind === 'string') message = this.advance().text;
    const close = this.expectSymbol(')', "a message string or ')'");
    return {
      kind: 'confirm',
      ...(category ? { category } : {}),
      ...(message !== undefined ? { message } : {}),
      range: this.range(token.start, close.end),
    };
  }

  parseRepeatArguments(token: Token): AnnotationNode {
    if (!this.annotationArgumentsFollow())
      return { kind: 'repeat', range: this.range(token.start, token.end) };
    this.advance();
    if (this.isSymbol(')')) {
      const close = this.advance();
      return { kind: 'repeat', range: this.range(token.start, close.end) };
    }
    let limit: number | undefined;
    let valid = true;
    const count = this.current;
    if (count.kind === 'number') {
      this.advance();
      limit = count.number ?? 0;
      if (!Number.isInteger(limit) || limit < 1) {
        this.report('invalid-annotation', count.start, count.end, {
          name: 'repeat',
          reason: `${count.text} is not a positive whole number.`,
          hint: 'Write @repeat for no limit or @repeat(n) for at most n times.',
        });
        valid = false;
      }
      if (this.isSymbol(',')) this.advance();
      else if (!this.isSymbol(')')) this.unexpected("',' or ')'");
    }
    // `per: arg` (v2): once, or `limit` times, per distinct value of the argument.
    let per: Identifier | undefined;
    if (!this.isSymbol(')')) {
      if (!isKeyword(this.current, 'per') || !this.isSymbol(':', this.peek()))
        this.unexpected(limit === undefined ? "a number of repetitions or 'per:'" : "'per:'");
      this.advance();
      this.advance();
      per = this.expectIdentifier('an argument name after per:');
    }
    const close = this.expectSymbol(')');
    return {
      kind: 'repeat',
      ...(valid && limit !== undefined ? { limit } : {}),
      ...(per ? { per } : {}),
      range: this.range(token.start, close.end),
    };
  }

  // guard ::= ('reject' | 'confirm') Name '(' [constraint (',' constraint)*] ')' ['because' string]
  parseGuard(comments: string[]): GuardNode {
    const keyword = this.advance();
    const mode = keyword.text.toLowerCase() === 'reject' ? 'reject' : 'confirm';
    const predicate = this.expectIdentifier('a predicate name');
    this.expectSymbol('(', `'(' after '${predicate.name}'`);
    const absent: Identifier[] = [];
    const constraints = this.parseConstraintList(absent);
    const close = this.expectSymbol(')', "',' or ')'");
    let end = close.end;
    // `reject P(a = $a, b = $b) & $a - $b > 600` (v3): conditions on the guard's bindings.
    const comparisons: ComparisonAtom[] = [];
    while (this.isSymbol('&') || isKeyword(this.current, 'and')) {
      this.advance();
      if (!this.startsComparison()) this.unexpected('a comparison of bindings ($a - $b > 600)');
      if (comparisons.length >= this.limits.maxBodyAtoms)
        this.fail('too-many-atoms', this.current.start, this.current.end, {
          limit: this.limits.maxBodyAtoms,
        });
      const comparison = this.parseComparison();
      comparisons.push(comparison);
      end = comparison.range.end.offset;
    }
    let reason: string | undefined;
    if (isKeyword(this.current, 'because')) {
      this.advance();
      const text = this.current;
      if (text.kind !== 'string') this.unexpected('a quoted reason after because');
      this.advance();
      reason = text.text;
      end = text.end;
    }
    return {
      kind: 'guard',
      mode,
      predicate,
      constraints,
      ...(absent.length > 0 ? { absent } : {}),
      ...(comparisons.length > 0 ? { comparisons } : {}),
      ...(reason !== undefined ? { reason } : {}),
      comments,
      range: this.range(keyword.start, end),
    };
  }

  // given ::= 'given' Name '(' constraint (',' constraint)* ')'   (LANGUAGE.md §8)
  parseGiven(comments: string[]): GivenNode {
    const keyword = this.advance();
    const predicate = this.expectIdentifier('a predicate name');
    this.expectSymbol('(', `'(' after '${predicate.name}'`);
    const absent: Identifier[] = [];
    const constraints = this.parseConstraintList(absent);
    const close = this.expectSymbol(')', "',' or ')'");
    const wrong = absent[0];
    if (wrong) this.report('given-not-a-fact', wrong.range.start.offset, wrong.range.end.offset);
    return {
      kind: 'given',
      predicate,
      constraints,
      comments,
      range: this.range(keyword.start, close.end),
    };
  }

  // rule ::= [label ':'] body '->' head
  parseRule(start: number, annotations: AnnotationNode[], comments: string[]): RuleNode {
    let label: Identifier | undefined;
    if (this.current.kind === 'identifier' && this.isSymbol(':', this.peek())) {
      label = this.expectIdentifier('a label');
      this.advance();
    }
    const body = this.parseBody();
    if (!this.isSymbol('->')) {
      const token = this.current;
      if (token.newlineBefore || token.kind === 'end') {
        const bodyStart = body[0]?.range.start.offset ?? token.start;
        this.fail('missing-arrow', bodyStart, this.previousEnd());
      }
      this.unexpected(body.length === 0 ? 'a rule' : "'&' or '->'");
    }
    this.advance();
    const head = this.parseHead();
    // `A -> B -> C` is not a chain: read on, it would silently become `A -> B` and the
    // always-firing `true -> C`. An empty body is only taken at the start of an item.
    if (this.isSymbol('->') && !this.current.newlineBefore) {
      this.unexpected("the end of the rule (a rule has one '->')");
    }
    return {
      kind: 'rule',
      annotations,
      ...(label ? { label } : {}),
      body,
      head,
      comments,
      range: this.range(annotations[0]?.range.start.offset ?? start, head.range.end.offset),
    };
  }

  // body ::= [ 'true' | atom ('&' atom)* ]
  parseBody(): AtomNode[] {
    if (this.isSymbol('->')) return [];
    if (isKeyword(this.current, 'true') && this.isSymbol('->', this.peek())) {
      this.advance();
      return [];
    }
    const atoms: AtomNode[] = [this.parseAtom()];
    while (this.isSymbol('&') || this.isSymbol(',') || isKeyword(this.current, 'and')) {
      this.advance();
      if (atoms.length >= this.limits.maxBodyAtoms) {
        this.fail('too-many-atoms', this.current.start, this.current.end, {
          limit: this.limits.maxBodyAtoms,
        });
      }
      atoms.push(this.parseAtom());
    }
    if (this.isSymbol('|')) {
      const bar = this.current;
      this.fail('disjunction-outside-parentheses', bar.start, bar.end);
    }
    return atoms;
  }

  // group ::= '(' conjunction ('|' conjunction)* ')'   (v2: one rule per alternative)
  parseDisjunction(depth: number): AtomNode {
    const open = this.advance();
    if (depth >= this.limits.maxNestingDepth) {
      this.fail('nesting-too-deep', open.start, open.end, { limit: this.limits.maxNestingDepth });
    }
    const alternatives: AtomNode[][] = [];
    let atoms = 0;
    for (;;) {
      const conjunction: AtomNode[] = [this.parseAtom(depth + 1)];
      while (this.isSymbol('&') || this.isSymbol(',') || isKeyword(this.current, 'and')) {
        this.advance();
        conjunction.push(this.parseAtom(depth + 1));
      }
      atoms += conjunction.length;
      if (atoms > this.limits.maxBodyAtoms) {
        this.fail('too-many-atoms', this.current.start, this.current.end, {
          limit: this.limits.maxBodyAtoms,
        });
      }
      alternatives.push(conjunction);
      if (!this.isSymbol('|')) break;
      this.advance();
    }
    const close = this.expectSymbol(')', "'|', '&' or ')'");
    return { kind: 'disjunction', alternatives, range: this.range(open.start, close.end) };
  }

  // atom ::= Name | Name '(' ')' | Name cmp number | Name '(' constraint (',' constraint)* ')'
  parseAtom(depth = 0): AtomNode {
    if (this.startsComparison()) return this.parseComparison();
    if (this.isSymbol('(')) return this.parseDisjunction(depth);
    const first = this.current;
    let token = first;
    // `not (A & B)` and `forall(A => B)` (LANGUAGE.md §9).
    if (isKeyword(token, 'not') && this.isSymbol('(', this.peek()))
      return this.parseScopedNegation(depth);
    if (isKeyword(token, 'forall') && this.isSymbol('(', this.peek()))
      return this.parseUniversal(depth);
    // `not Name` / `not Name(...)` (v2): the objective is not achieved / no instance matches.
    let negated = false;
    if (isKeyword(token, 'not') && this.peek().kind === 'identifier') {
      negated = true;
      this.advance();
      token = this.current;
    }
    // `refused A(...)` (LANGUAGE.md §8): the policy refused a proposal of action A.
    let refused = false;
    if (isKeyword(token, 'refused') && this.peek().kind === 'identifier') {
      refused = true;
      this.advance();
      token = this.current;
    }
    const start = first.start;
    if (token.kind !== 'identifier') {
      return this.unexpected('a predicate or objective name');
    }
    if (isKeyword(token, 'done')) {
      this.fail('done-in-body', token.start, token.end);
    }
    const name = this.expectIdentifier('a name');
    if (this.isSymbol('(')) {
      this.advance();
      const absent: Identifier[] = [];
      const constraints = this.parseConstraintList(absent);
      const close = this.expectSymbol(')', "',' or ')'");
      return {
        kind: 'pattern',
        name,
        parenthesized: true,
        constraints,
        ...(negated ? { negated } : {}),
        ...(absent.length > 0 ? { absent } : {}),
        ...(refused ? { refused: true as const } : {}),
        range: this.range(start, close.end),
      };
    }
    if (refused) this.unexpected(`'(' after 'refused ${name.name}'`);
    if (negated) {
      return {
        kind: 'pattern',
        name,
        parenthesized: false,
        constraints: [],
        negated,
        range: this.range(start, name.range.end.offset),
      };
    }
    if (this.current.kind === 'symbol' && comparisonSymbols.has(this.current.text)) {
      const operator = this.advance().text as ComparisonOperator;
      const count = this.current;
      if (count.kind !== 'number') this.unexpected(`a count after '${token.text} ${operator}'`);
      this.advance();
      const value = count.number ?? 0;
      if (!Number.isInteger(value) || value < 0) {
        this.report('invalid-count', count.start, count.end, { count: count.text });
      }
      return {
        kind: 'count',
        name,
        operator,
        count: value,
        range: this.range(token.start, count.end),
      };
    }
    return { kind: 'pattern', name, parenthesized: false, constraints: [], range: name.range };
  }

  /** `A & B & …` inside a scope's parentheses (LANGUAGE.md §9); `what` names the scope for errors. */
  parseScopeConjunction(depth: number, open: Token, what: string): AtomNode[] {
    if (depth >= this.limits.maxNestingDepth) {
      this.fail('nesting-too-deep', open.start, open.end, { limit: this.limits.maxNestingDepth });
    }
    if (this.isSymbol(')') || this.isSymbol('->')) {
      this.fail('empty-scope', open.start, Math.max(this.current.end, open.end), { what });
    }
    const atoms: AtomNode[] = [this.parseAtom(depth + 1)];
    while (this.isSymbol('&') || this.isSymbol(',') || isKeyword(this.current, 'and')) {
      this.advance();
      atoms.push(this.parseAtom(depth + 1));
    }
    if (atoms.length > this.limits.maxBodyAtoms) {
      this.fail('too-many-atoms', this.current.start, this.current.end, {
        limit: this.limits.maxBodyAtoms,
      });
    }
    return atoms;
  }

  // scoped ::= 'not' '(' atom ('&' atom)* ')'   (v3)
  parseScopedNegation(depth: number): AtomNode {
    const not = this.advance();
    const open = this.advance();
    const atoms = this.parseScopeConjunction(depth, open, "'not (…)'");
    const close = this.expectSymbol(')', "'&' or ')' (a scoped not is a conjunction)");
    const only = atoms[0];
    // One plain pattern is the v2 `not P(…)` / `not Obj`: the tree stays canonical.
    if (atoms.length === 1 && only?.kind === 'pattern' && !only.negated && !only.refused)
      return { ...only, negated: true, range: this.range(not.start, close.end) };
    return { kind: 'scoped-not', atoms, range: this.range(not.start, close.end) };
  }

  // universal ::= 'forall' '(' atom ('&' atom)* ('=>' | '->') atom ('&' atom)* ')'   (v3)
  parseUniversal(depth: number): AtomNode {
    const forall = this.advance();
    const open = this.advance();
    const condition = this.parseScopeConjunction(depth, open, "the left side of 'forall'");
    if (!this.isSymbol('->')) {
      this.fail('forall-without-arrow', forall.start, Math.max(this.current.end, open.end));
    }
    const arrow = this.advance();
    const conclusion = this.parseScopeConjunction(depth, arrow, "the right side of 'forall'");
    const close = this.expectSymbol(')', "'&' or ')' (forall has one '=>')");
    return { kind: 'forall', condition, conclusion, range: this.range(forall.start, close.end) };
  }

  /**
   * Whether a body atom at the cursor is a comparison of terms (v3, LANGUAGE.md §9): it
   * starts with a binding, a number, a clock word, or `min(`/`max(` whose first argument
   * is a term — a pattern's constraints start with a name, never with one of those.
   */
  startsComparison(offset = 0): boolean {
    const token = this.peek(offset);
    if (this.isSymbol('$', token)) return true;
    if (this.isSymbol('(', token)) return this.parenthesisOpensTerm(offset);
    // A number starts one only when an operator follows: `1.5. A -> B` is a misread rule number.
    if (token.kind === 'number' || token.kind === 'duration') {
      const next = this.peek(offset + 1);
      return (
        next.kind === 'symbol' && (comparisonSymbols.has(next.text) || '+-*/'.includes(next.text))
      );
    }
    if (token.kind !== 'identifier' || this.isSymbol('(', this.peek(offset + 1)) === false)
      return token.kind === 'identifier' && isClockWord(token);
    const lower = token.text.toLowerCase();
    if (lower !== 'min' && lower !== 'max') return false;
    const inner = this.peek(offset + 2);
    return this.isSymbol('(', inner) || this.startsComparison(offset + 2);
  }

  /**
   * Whether the `(` at `offset` opens arithmetic (`($a + 1) * 2 > $b`) rather than a
   * disjunction: directly inside it there is no comparison, `|`, `&`, `,` or `and`, which
   * every alternative of a disjunction has or is (a pattern's own are nested deeper).
   */
  parenthesisOpensTerm(offset: number): boolean {
    let depth = 0;
    for (let at = offset; at < offset + maxDisjunctionLookahead; at++) {
      const token = this.peek(at);
      if (token.kind === 'end') return false;
      if (this.isSymbol('(', token)) depth++;
      else if (this.isSymbol(')', token)) {
        if (--depth === 0) return at > offset + 1;
      } else if (
        depth === 1 &&
        ((token.kind === 'symbol' &&
          (comparisonSymbols.has(token.text) || ['|', '&', ',', '->'].includes(token.text))) ||
          isKeyword(token, 'and'))
      )
        return false;
      else if (
        depth === 1 &&
        at === offset + 1 &&
        token.kind === 'identifier' &&
        !isClockWord(token) &&
        !(isExtremum(token) && this.isSymbol('(', this.peek(at + 1)))
      )
        // An alternative starts with a name: a pattern, an objective, `not`, `refused`.
        return false;
    }
    return false;
  }

  // comparison ::= arithmetic cmp arithmetic      (v3: a condition on bindings)
  parseComparison(): ComparisonAtom {
    const start = this.current.start;
    const left = this.parseArithmetic(0) as ArithmeticOperand;
    if (!(this.current.kind === 'symbol' && comparisonSymbols.has(this.current.text)))
      this.unexpected("a comparison ('=', '!=', '<', '<=', '>' or '>=')");
    const operator = this.advance().text as ComparisonOperator;
    const right = this.parseArithmetic(0) as ArithmeticOperand;
    return {
      kind: 'comparison',
      left,
      operator,
      right,
      range: this.range(start, this.previousEnd()),
    };
  }

  /** Constraints up to `)`; `absent(arg)` items (v2) go to `absent`. */
  parseConstraintList(absent: Identifier[]): ConstraintNode[] {
    const constraints: ConstraintNode[] = [];
    if (this.isSymbol(')')) return constraints;
    const item = (): void => {
      if (isKeyword(this.current, 'absent') && this.isSymbol('(', this.peek())) {
        this.advance();
        this.advance();
        absent.push(this.expectIdentifier('an argument name'));
        this.expectSymbol(')', "')' after the argument name");
      } else constraints.push(this.parseConstraint());
    };
    item();
    while (this.isSymbol(',')) {
      this.advance();
      if (constraints.length + absent.length >= this.limits.maxConstraints) {
        this.fail('too-many-constraints', this.current.start, this.current.end, {
          limit: this.limits.maxConstraints,
        });
      }
      item();
    }
    return constraints;
  }

  // constraint ::= var op value | var '=' '(' value ',' op ')'
  parseConstraint(): ConstraintNode {
    const { variable, subject } = this.parseSubject();
    // `products[name ~ "x", id = $id]` alone: some element satisfies the filter (§7).
    if (
      subject !== undefined &&
      subject.function === undefined &&
      subject.as === undefined &&
      subject.steps[subject.steps.length - 1]?.kind === 'filter' &&
      (this.isSymbol(',') || this.isSymbol(')') || this.isSymbol(']'))
    )
      return {
        kind: 'constraint',
        variable,
        subject: { ...subject, function: 'count', exists: true },
        operator: '>=',
        value: { kind: 'number', value: 1, range: subject.range },
        range: subject.range,
      };
    const operatorToken = this.current;
    let operator = this.parseOperator();
    let value: ValueNode;
    if (operator === '=' && this.isSymbol('(')) {
      // VeriSafe's tuple form `x = (5, >)` means `x > 5`.
      this.advance();
      value = this.parseValue(0, false);
      if (this.isSymbol(')') && (hasBinding(value) || hasClockWord(value))) {
        // `x = ($a + $b) * 2`: a parenthesized computation, not a (value, operator) pair.
        this.advance();
        value = this.parseArithmetic(1, this.parseTerm(1, value as ArithmeticOperand));
        return this.constraintNode(variable, subject, operator, value);
      }
      this.expectSymbol(',', "',' and an operator");
      operator = this.parseOperator();
      this.expectSymbol(')', "')' closing the (value, operator) pair");
    } else {
      value = this.parseValue(0, false);
    }
    if (
      operatorToken.kind === 'identifier' &&
      value.kind === 'regex' &&
      !operator.endsWith('matches')
    ) {
      this.unexpected('a value');
    }
    return this.constraintNode(variable, subject, operator, value);
  }

  constraintNode(
    variable: Identifier,
    subject: SubjectNode | undefined,
    operator: Operator,
    value: ValueNode,
  ): ConstraintNode {
    if (subject === undefined) {
      return {
        kind: 'constraint',
        variable,
        operator,
        value,
        range: this.range(variable.range.start.offset, this.previousEnd()),
      };
    }
    return {
      kind: 'constraint',
      variable,
      subject,
      operator,
      value,
      range: this.range(subject.range.start.offset, this.previousEnd()),
    };
  }

  // subject ::= var step* | fn '(' var step* ['matches' regex] ')'   (LANGUAGE.md §7)
  // step    ::= '.' Name | '[' constraint (',' constraint)* ']'
  parseSubject(): { variable: Identifier; subject?: SubjectNode } {
    const token = this.current;
    // `count(` is rare: the name is lower-cased only when a parenthesis follows it.
    const call = this.isSymbol('(', this.peek()) && this.peek().start === token.end;
    const word = call && token.kind === 'identifier' ? token.text.toLowerCase() : '';
    const fn = call ? subjectFunctions.find((name) => name === word) : undefined;
    if (fn !== undefined) {
      this.advance();
      this.advance();
      const { variable, steps } = this.parsePath();
      let matches: SubjectNode['matches'];
      if (fn === 'count' && isKeyword(this.current, 'matches')) {
        this.advance();
        const regex = this.current;
        if (regex.kind !== 'regex') this.unexpected('a regular expression after matches');
        this.advance();
        matches = {
          kind: 'regex',
          pattern: regex.text,
          flags: regex.flags ?? '',
          range: this.range(regex.start, regex.end),
        };
      }
      const close = this.expectSymbol(')', `')' closing ${fn}(…)`);
      return {
        variable,
        subject: {
          function: fn,
          steps,
          ...(matches ? { matches } : {}),
          range: this.range(token.start, close.end),
        },
      };
    }
    const { variable, steps } = this.parsePath();
    const coercion = this.parseCoercion();
    if (steps.length === 0 && coercion === undefined) return { variable };
    return {
      variable,
      subject: {
        steps,
        ...(coercion === undefined ? {} : { as: coercion }),
        range: this.range(token.start, this.previousEnd()),
      },
    };
  }

  // path ::= var step* | 'keys' '(' path ')' step*   (keys: v3, LANGUAGE.md §9)
  // Read without recursion: `keys(keys(…(m)…))` nests as deep as the input is long.
  parsePath(): { variable: Identifier; steps: PathStep[] } {
    const opened: number[] = [];
    while (
      this.current.kind === 'identifier' &&
      this.current.text.toLowerCase() === 'keys' &&
      this.isSymbol('(', this.peek()) &&
      this.peek().start === this.current.end
    ) {
      opened.push(this.advance().start);
      this.advance();
    }
    const variable = this.expectIdentifier('a variable name');
    const steps = this.parseSteps();
    for (let index = opened.length - 1; index >= 0; index--) {
      const close = this.expectSymbol(')', "')' closing keys(…)");
      steps.push({ kind: 'keys', range: this.range(opened[index] ?? close.start, close.end) });
      steps.push(...this.parseSteps());
    }
    return { variable, steps };
  }

  // coercion ::= 'as' ('number' | 'date' | 'time' | 'datetime' | 'boolean')
  parseCoercion(): CoercionType | undefined {
    if (!isKeyword(this.current, 'as')) return undefined;
    const next = this.peek();
    const word = next.kind === 'identifier' ? next.text.toLowerCase() : '';
    const type = coercionTypes.find((candidate) => candidate === word);
    if (type === undefined)
      return this.unexpected('number, date, time, datetime or boolean after as', next);
    this.advance();
    this.advance();
    return type;
  }

  parseSteps(): PathStep[] {
    const steps: PathStep[] = [];
    // The common case, a plain variable followed by its operator, allocates nothing more.
    if (!this.isSymbol('.') && !this.isSymbol('[')) return steps;
    for (;;) {
      // `a.b` is written without spaces; a `.` elsewhere still ends a rule.
      const next = this.peek();
      if (
        this.isSymbol('.') &&
        this.current.start === this.previousEnd() &&
        next.kind === 'identifier' &&
        next.start === this.current.end
      ) {
        this.advance();
        steps.push({ kind: 'field', name: this.expectIdentifier('a field name') });
        continue;
      }
      // `m.*` (v3, LANGUAGE.md §9): the values of a map.
      if (
        this.isSymbol('.') &&
        this.current.start === this.previousEnd() &&
        this.isSymbol('*', next) &&
        next.start === this.current.end
      ) {
        const dot = this.advance();
        const star = this.advance();
        steps.push({ kind: 'values', range: this.range(dot.start, star.end) });
        continue;
      }
      if (this.isSymbol('[') && this.current.start === this.previousEnd()) {
        const position = this.parsePosition();
        if (position !== undefined) {
          steps.push(position);
          continue;
        }
        const open = this.advance();
        const limit = Math.min(this.limits.maxNestingDepth, maxSupportedNesting);
        if (this.#filterDepth >= limit)
          this.fail('nesting-too-deep', open.start, open.end, { limit });
        this.#filterDepth++;
        const constraints: ConstraintNode[] = [];
        try {
          constraints.push(this.parseConstraint());
          while (this.isSymbol(',')) {
            this.advance();
            if (constraints.length >= this.limits.maxConstraints) {
              this.fail('too-many-constraints', this.current.start, this.current.end, {
                limit: this.limits.maxConstraints,
              });
            }
            constraints.push(this.parseConstraint());
          }
        } finally {
          this.#filterDepth--;
        }
        const close = this.expectSymbol(']', "',' or ']' closing the filter");
        steps.push({ kind: 'filter', constraints, range: this.range(open.start, close.end) });
        continue;
      }
      return steps;
    }
  }

  // position ::= '[' integer ']'   (v3, LANGUAGE.md §9): `flights[0]`, `flights[-1]`
  parsePosition(): PathStep | undefined {
    const number = this.peek();
    if (number.kind !== 'number') return undefined;
    const open = this.advance();
    this.advance();
    const position = number.number;
    const whole =
      position !== undefined && number.decimal === undefined && Number.isSafeInteger(position);
    if (!whole) this.report('invalid-index', number.start, number.end, { index: number.text });
    const close = this.expectSymbol(']', "']' closing the position");
    return {
      kind: 'index',
      position: whole ? position : 0,
      range: this.range(open.start, close.end),
    };
  }

  // op ::= '=' | '!=' | '~' | '!~' | '<' | '<=' | '>' | '>=' | 'in' | 'not' 'in' | 'contains' | ...
  parseOperator(): Operator {
    const token = this.current;
    // The lexer normalised symbol spellings (`≤` is `<=`, `∈` is `in`) to operator names.
    if (token.kind === 'symbol' && isOperator(token.text)) {
      this.advance();
      return token.text;
    }
    if (token.kind === 'identifier') {
      const word = token.text.toLowerCase();
      const operator = operatorWords.get(word);
      if (operator !== undefined) {
        this.advance();
        return operator;
      }
      if (word === 'not') {
        const next = this.peek();
        const nextWord = next.kind === 'identifier' ? next.text.toLowerCase() : '';
        const negated = operatorWords.get(`not ${nextWord}`);
        if (negated !== undefined) {
          this.advance();
          this.advance();
          return negated;
        }
        this.unexpected("'in', 'contains' or 'matches' after 'not'", next);
      }
    }
    return this.unexpected('an operator such as =, !=, <, in, contains or matches');
  }

  // value ::= string | number | 'true' | 'false' | date | time | datetime | relative | Name | list | regex
  parseValue(depth: number, inList: boolean): ValueNode {
    const token = this.current;
    const range = this.range(token.start, token.end);
    switch (token.kind) {
      case 'string':
        this.advance();
        return { kind: 'string', value: token.text, range };
      case 'number': {
        this.advance();
        this.checkThousandsSeparator(token, inList);
        return { kind: 'number', value: token.decimal ?? token.number ?? 0, range };
      }
      case 'date':
      case 'time':
      case 'datetime':
        this.advance();
        return { kind: token.kind, value: token.text, range };
      case 'regex':
        this.advance();
        return { kind: 'regex', pattern: token.text, flags: token.flags ?? '', range };
      case 'identifier': {
        // `max($a, $b)` (v3): computed on bindings, as arithmetic is.
        if (isExtremum(token) && this.isSymbol('(', this.peek()) && !inList)
          return this.parseArithmetic(depth);
        this.advance();
        const lower = token.text.toLowerCase();
        if (lower === 'true' || lower === 'false')
          return { kind: 'boolean', value: lower === 'true', range };
        if ((relativeDates as readonly string[]).includes(lower)) {
          const relative = { kind: 'relative' as const, value: lower as RelativeDate, range };
          // `now - 24h`, `today + 1d` (v3): a constant of the session.
          if (!inList && (this.isSymbol('+') || this.isSymbol('-')))
            return this.parseArithmetic(depth, relative);
          return relative;
        }
        this.checkUnquotedText(token);
        return { kind: 'name', value: token.text, range };
      }
      default:
        break;
    }
    if (this.isSymbol('$') && !inList) return this.parseArithmetic(depth);
    if (this.isSymbol('(') && !inList) {
      // `($a + $b) * 2`: arithmetic computes on bindings; without one it is no value.
      const computed = this.parseArithmetic(depth);
      if (!hasBinding(computed) && !hasClockWord(computed))
        this.fail('unexpected-token', token.start, this.previousEnd(), {
          expected: 'a binding ($x) in the computation',
          found: '(',
        });
      return computed;
    }
    if (this.isSymbol('[')) {
      // Lists are the only recursion; a configured limit beyond what the stack can take
      // would turn hostile input into a RangeError, so it is capped.
      const limit = Math.min(this.limits.maxNestingDepth, maxSupportedNesting);
      if (depth >= limit) this.fail('nesting-too-deep', token.start, token.end, { limit });
      this.advance();
      const elements: ValueNode[] = [];
      if (!this.isSymbol(']')) {
        elements.push(this.parseValue(depth + 1, true));
        while (this.isSymbol(',')) {
          this.advance();
          if (elements.length >= this.limits.maxListLength) {
            this.fail('list-too-long', this.current.start, this.current.end, {
              limit: this.limits.maxListLength,
            });
          }
          elements.push(this.parseValue(depth + 1, true));
        }
      }
      const close = this.expectSymbol(']', "',' or ']'");
      return { kind: 'list', elements, range: this.range(token.start, close.end) };
    }
    return this.unexpected('a value');
  }

  // arithmetic ::= term (('+' | '-') term)*       (LANGUAGE.md §7; starts with a binding
  // term       ::= factor (('*' | '/') factor)*    or a parenthesis)
  // factor     ::= '$' Name | number | duration | '(' arithmetic ')'
  parseArithmetic(depth: number, first?: ArithmeticOperand): ValueNode {
    let left = first ?? this.parseTerm(depth);
    for (;;) {
      const operator = this.current;
      if (!this.isSymbol('+') && !this.isSymbol('-')) return left;
      this.advance();
      const right = this.parseTerm(depth);
      left = this.arithmetic(left, operator.text as ArithmeticOperator, right);
    }
  }

  parseTerm(depth: number, first?: ArithmeticOperand): ArithmeticOperand {
    let left = first ?? this.parseFactor(depth);
    for (;;) {
      const operator = this.current;
      if (!this.isSymbol('*') && !this.isSymbol('/')) return left;
      this.advance();
      const right = this.parseFactor(depth);
      left = this.arithmetic(left, operator.text as ArithmeticOperator, right);
    }
  }

  parseFactor(depth: number): ArithmeticOperand {
    const token = this.current;
    const range = this.range(token.start, token.end);
    if (this.isSymbol('$')) {
      const name = this.peek();
      if (name.kind !== 'identifier' || name.start !== token.end)
        return this.unexpected('a binding name right after $', name);
      this.advance();
      this.advance();
      return { kind: 'binding', name: name.text, range: this.range(token.start, name.end) };
    }
    if (token.kind === 'number') {
      this.advance();
      return { kind: 'number', value: token.decimal ?? token.number ?? 0, range };
    }
    if (token.kind === 'duration') {
      this.advance();
      return { kind: 'duration', value: token.text, range };
    }
    if (isClockWord(token)) {
      this.advance();
      return { kind: 'relative', value: token.text.toLowerCase() as RelativeDate, range };
    }
    if (isExtremum(token) && this.isSymbol('(', this.peek())) return this.parseExtremum(depth);
    if (this.isSymbol('(')) {
      const limit = Math.min(this.limits.maxNestingDepth, maxSupportedNesting);
      if (depth >= limit) this.fail('nesting-too-deep', token.start, token.end, { limit });
      this.advance();
      const inner = this.parseArithmetic(depth + 1);
      this.expectSymbol(')', "')' closing the parenthesis");
      return inner as ArithmeticOperand;
    }
    return this.unexpected('a binding ($x), a number, a duration (90s, 30m, 3h, 2d) or (');
  }

  // extremum ::= ('min' | 'max') '(' arithmetic ',' arithmetic ')'   (v3, LANGUAGE.md §9)
  parseExtremum(depth: number): ExtremumNode {
    const token = this.advance();
    const limit = Math.min(this.limits.maxNestingDepth, maxSupportedNesting);
    if (depth >= limit) this.fail('nesting-too-deep', token.start, token.end, { limit });
    this.advance();
    const left = this.parseArithmetic(depth + 1) as ArithmeticOperand;
    this.expectSymbol(',', `',' and a second term of ${token.text.toLowerCase()}`);
    const right = this.parseArithmetic(depth + 1) as ArithmeticOperand;
    const close = this.expectSymbol(')', `')' closing ${token.text.toLowerCase()}(…)`);
    return {
      kind: 'extremum',
      function: token.text.toLowerCase() as 'min' | 'max',
      left,
      right,
      range: this.range(token.start, close.end),
    };
  }

  arithmetic(
    left: ArithmeticOperand,
    operator: ArithmeticOperator,
    right: ArithmeticOperand,
  ): ArithmeticNode {
    return {
      kind: 'arithmetic',
      left,
      operator,
      right,
      range: this.range(left.range.start.offset, this.previousEnd()),
    };
  }

  /** `1,000` outside a list: a thousands separator, not two constraints. */
  checkThousandsSeparator(token: Token, inList: boolean): void {
    if (inList) return;
    const comma = this.current;
    const next = this.peek();
    if (
      /^-?\d+$/.test(token.text) &&
      this.isSymbol(',', comma) &&
      comma.start === token.end &&
      next.kind === 'number' &&
      next.start === comma.end &&
      /^\d{3}$/.test(next.text)
    ) {
      let end = next.end;
      let digits = token.text + next.text;
      let lookahead = 2;
      while (
        this.isSymbol(',', this.peek(lookahead)) &&
        this.peek(lookahead).start === end &&
        /^\d{3}$/.test(this.peek(lookahead + 1).text) &&
        this.peek(lookahead + 1).start === this.peek(lookahead).end
      ) {
        digits += this.peek(lookahead + 1).text;
        end = this.peek(lookahead + 1).end;
        lookahead += 2;
      }
      const source = this.lines.text.slice(token.start, end);
      this.fail('number-with-comma', token.start, end, {
        text: source,
        suggestion: digits,
        underscored: source.replace(/,/g, '_'),
      });
    }
  }

  /** A bare name followed by more words on the same line is unquoted text. */
  checkUnquotedText(token: Token): void {
    const next = this.current;
    if (next.kind !== 'identifier' || next.newlineBefore) return;
    const lower = next.text.toLowerCase();
    if (lower === 'and' || lower === 'because') return;
    const words = [token.text];
    let end = token.end;
    while (this.current.kind === 'identifier' && !this.current.newlineBefore) {
      const word = this.current.text.toLowerCase();
      if (word === 'and' || word === 'because') break;
      words.push(this.current.text);
      end = this.current.end;
      this.advance();
    }
    this.fail('unquoted-text', token.start, end, { suggestion: `"${words.join(' ')}"` });
  }

  // head ::= Name ['(' ')'] | 'Done' ['(' ')']
  parseHead(): HeadNode {
    const token = this.current;
    if (token.kind !== 'identifier') return this.unexpected('an objective name or Done after ->');
    this.advance();
    const isDone = token.text.toLowerCase() === 'done';
    const name: Identifier = {
      name: isDone ? 'Done' : token.text,
      range: this.range(token.start, token.end),
    };
    let end = token.end;
    // A disjunction that starts the next rule (v2) is not this head's parentheses.
    if (this.isSymbol('(') && !(this.current.newlineBefore && this.parenthesisStartsBody())) {
      this.advance();
      if (!this.isSymbol(')')) {
        const from = this.current.start;
        this.skipParenthesized();
        // The range covers the constraints, not the closing parenthesis.
        const to = this.isSymbol(')', this.peek(-1)) ? this.peek(-1).start : this.previousEnd();
        this.fail('head-with-constraints', from, to, { name: name.name });
      }
      end = this.advance().end;
    }
    if (
      (this.isSymbol('&') || this.isSymbol(',')) &&
      this.peek().kind === 'identifier' &&
      !this.current.newlineBefore
    ) {
      this.fail('multiple-heads', this.current.start, this.peek().end);
    }
    return { name, isDone, range: this.range(token.start, end) };
  }
}
