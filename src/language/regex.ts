import { RE2JS, RE2JSException, RE2JSSyntaxException } from 're2js';

/**
 * Regexes of a spec run on an agent's or a tool's text, so they run on a linear-time
 * engine (RE2 via re2js, LANGUAGE.md §5.1): a backtracking engine lets a value of a
 * few dozen characters stall the synchronous check for minutes (`/(a+)+$/`). The
 * syntax is RE2's; constructs that need backtracking are refused where the regex is
 * written.
 */
export interface TextRegex {
  /** Whether the regex matches somewhere in the (normalized) text. */
  test(text: string): boolean;
  /** The regex as written, so that a compiled spec can carry it (compiled-spec-format.ts). */
  readonly pattern: string;
  readonly flags: string;
}

export type RegexCompilation =
  | { readonly ok: true; readonly regex: TextRegex }
  | { readonly ok: false; readonly reason: string; readonly hint: string };

const allowedFlags = new Set(['i', 'm', 's', 'u']);

const linearTimeHint =
  'Regexes run in linear time on RE2 syntax, so constructs that need backtracking (backreferences, lookahead, lookbehind, atomic groups, possessive quantifiers) are not supported; test the text without them or with several constraints.';
const syntaxHint =
  'Regexes use RE2 syntax (https://github.com/google/re2/wiki/Syntax), mostly that of JavaScript without backreferences and lookaround.';

/**
 * JavaScript's `\uXXXX` and `\u{X}` escapes, which RE2 spells `\x{X}`: a spec's strings
 * take `\u{…}`, so its regexes do too. Every other escape is left to RE2.
 */
function translateUnicodeEscapes(pattern: string): string {
  if (!pattern.includes('\\u')) return pattern;
  let result = '';
  for (let index = 0; index < pattern.length; index++) {
    const character = pattern[index];
    if (character !== '\\') {
      result += character;
      continue;
    }
    const next = pattern[index + 1];
    if (next === 'u') {
      const braced = /^\{([0-9a-fA-F]{1,6})\}/.exec(pattern.slice(index + 2));
      const plain = /^[0-9a-fA-F]{4}/.exec(pattern.slice(index + 2));
      if (braced) {
        result += `\\x{${braced[1]}}`;
        index += 1 + braced[0].length;
        continue;
      }
      if (plain) {
        result += `\\x{${plain[0]}}`;
        index += 5;
        continue;
      }
    }
    result += character + (next ?? '');
    index++;
  }
  return result;
}

/** The construct an RE2 error points at, named for a person, with why it is refused. */
function explain(description: string, at: string, pattern: string): RegexCompilation {
  const refuse = (what: string, token: string): RegexCompilation => ({
    ok: false,
    reason: `${what} '${token}' is not supported (it needs backtracking)`,
    hint: linearTimeHint,
  });
  if (at.startsWith('(?=') || at.startsWith('(?!')) return refuse('lookahead', at.slice(0, 3));
  if (at.startsWith('(?<=') || at.startsWith('(?<!')) return refuse('lookbehind', at.slice(0, 4));
  if (at.startsWith('(?>')) return refuse('an atomic group', '(?>');
  if (/^\\([1-9]|k)/.test(at)) return refuse('a backreference', at.slice(0, 2));
  if (/^[*+?}]\+/.test(at)) return refuse('a possessive quantifier', at);
  const shown = at !== '' && at !== pattern ? `: '${at}'` : '';
  return { ok: false, reason: `${description}${shown}`, hint: syntaxHint };
}

/**
 * Compiles a spec regex for the linear-time engine. The text it is tested on is
 * normalized (case-folded), so the regex always ignores case; `m` and `s` keep their
 * meaning, `i` and `u` are accepted and change nothing (RE2 reads code points);
 * `g` and `y` are refused, as they make a regex stateful between tests.
 */
export function compileRegex(pattern: string, flags: string): RegexCompilation {
  for (const flag of flags) {
    if (!allowedFlags.has(flag)) {
      return {
        ok: false,
        reason: `the flag '${flag}' is not allowed (use i, m, s or u)`,
        hint: 'Drop it: a regex here answers whether the text matches; g and y make that depend on earlier tests.',
      };
    }
  }
  if (new Set(flags).size !== flags.length) {
    return { ok: false, reason: 'a flag is repeated', hint: 'Give each flag once.' };
  }
  let options = RE2JS.CASE_INSENSITIVE;
  if (flags.includes('m')) options |= RE2JS.MULTILINE;
  if (flags.includes('s')) options |= RE2JS.DOTALL;
  try {
    const compiled = RE2JS.compile(translateUnicodeEscapes(pattern), options);
    return { ok: true, regex: { test: (text) => compiled.test(text), pattern, flags } };
  } catch (error) {
    if (error instanceof RE2JSSyntaxException) {
      // re2js reads flags as a `(?i)` prefix, which the quoted fragment may include.
      const at = (error.getPattern() ?? '').replace(/^(?:\(\?[ims]\))+/, '');
      return explain(error.getDescription(), at, pattern);
    }
    if (error instanceof RE2JSException)
      return { ok: false, reason: error.message, hint: syntaxHint };
    throw error;
  }
}
