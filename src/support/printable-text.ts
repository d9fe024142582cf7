/*
 * The characters that cannot be shown as they are. Text from an agent, a model or a data
 * file can hide controls, bidirectional overrides, zero-width characters and line
 * separators ("Trojan Source"); every place that shows or compares such text uses these
 * classes (the contents of a `[...]` with the `u` flag), so they cannot drift apart.
 */

/**
 * Invisible or disturbing: controls (`Cc`: C0, DEL, C1, so tab and line breaks too),
 * format characters (`Cf`: bidi overrides, zero-width joiners, the BOM) and the line and
 * paragraph separators (`Zl`, `Zp`). What a terminal line, a prompt or a message shows
 * in another form.
 */
export const invisibleClass = '\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}';

/**
 * {@link invisibleClass} and lone surrogates (`Cs`), which a UTF-8 file or terminal
 * cannot hold: the spec language's printer, parser and diagnostics, which handle
 * strings decoded from `\u` escapes.
 */
export const invisibleOrSurrogateClass = `${invisibleClass}\\p{Cs}`;

/**
 * {@link invisibleOrSurrogateClass} and the code points no font shows reliably:
 * private use (`Co`) and unassigned (`Cn`). The lexer names such a character by its
 * code point instead of echoing it in a message.
 */
export const unprintableClass = `${invisibleOrSurrogateClass}\\p{Co}\\p{Cn}`;

/**
 * What text comparison drops (LANGUAGE.md §5.1's normalized text): default-ignorable code
 * points (zero-width characters, joiners, soft hyphen, variation selectors, tag
 * characters, bidi controls, the BOM, Hangul fillers) and controls. Narrower than
 * {@link invisibleClass} on purpose: line separators and visible format characters
 * such as the Arabic number sign keep their place in the compared text.
 */
export const ignorableClass = '\\p{Default_Ignorable_Code_Point}\\p{Cc}';
